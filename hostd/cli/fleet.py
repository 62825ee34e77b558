"""`jantaku fleet status`: every table a broker knows, from its retained messages;
`jantaku fleet retire ID`: a table taken out of service, its retained messages and Home
Assistant entities removed (CPython only; docs/FLEET.md).

Each table's bridge (hostd/fleet/mqtt.py) keeps ``jantaku/<id>/availability`` and
``jantaku/<id>/status`` retained on the broker, so a new subscriber gets every table's
last word at once: this module subscribes to both, gathers what arrives until the broker
has been quiet for QUIET_S or a live (not retained) message comes (at most --wait
seconds), and prints one line per table.
"""
import asyncio
import json
import re
import sys
import time

ROOT = "jantaku"  # = hostd.fleet.broker.ROOT (this module's top stays light: `jantaku --help`)
QUIET_S = 0.3
WAIT_S = 3.0


class FleetError(Exception):
    """The broker cannot be read: the message says why."""


async def collect(broker, *, wait=WAIT_S, quiet=QUIET_S, client_factory=None):
    """``{table_id: {"availability": str|None, "status": dict|None, "problem": str|None}}``
    from the broker's retained messages."""
    from hostd.fleet.broker import client_class, describe_error

    factory = client_factory or client_class()
    tables = {}
    try:
        async with factory(**broker.client_kwargs(), clean_session=True, timeout=wait + 5) as c:
            granted = await c.subscribe([("%s/+/availability" % ROOT, 1),
                                         ("%s/+/status" % ROOT, 1)])
            if all(int(getattr(g, "value", g)) >= 0x80 for g in granted):
                raise FleetError("the broker does not let %s read %s/+/status (its ACL): give "
                                 "this user `topic read %s/#`"
                                 % (broker.username or "an anonymous client", ROOT, ROOT))
            for topic_, payload in (await _retained(c, wait, quiet)).items():
                _take(tables, topic_, payload)
    except FleetError:
        raise
    except Exception as e:
        raise FleetError("cannot read the broker %s: %s" % (broker.url(), describe_error(e))) \
            from None
    return tables


async def _retained(c, wait, quiet):
    """``{topic: payload}`` of the retained messages the subscriptions made ``c`` get:
    until ``quiet`` seconds pass with none, or the first live message (the broker sends
    the retained ones first, on subscribing; busy tables are never quiet)."""
    got = {}
    end = time.monotonic() + wait
    messages = c.messages
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        try:
            msg = await asyncio.wait_for(messages.__anext__(), min(quiet, left))
        except asyncio.TimeoutError:
            break
        if not msg.retain:
            break
        p = msg.payload
        got[str(msg.topic)] = p.encode() if isinstance(p, str) else bytes(p or b"")
    return {t: p for t, p in got.items() if p}


async def retire(broker, table_id, *, prefix, force=False, wait=WAIT_S, quiet=QUIET_S,
                 client_factory=None):
    """Clear the table's retained messages (availability, status, Home Assistant's
    discovery configs under ``prefix``): ``[topics cleared]``; FleetError if the table is
    online (unless ``force``), unknown, or the broker did not clear them."""
    from hostd.fleet import ha
    from hostd.fleet.broker import client_class, describe_error

    factory = client_factory or client_class()
    mine = ["%s/%s/availability" % (ROOT, table_id), "%s/%s/status" % (ROOT, table_id)]
    subs = [(t, 1) for t in mine]
    if prefix:
        subs.append((ha.subscription(table_id, prefix), 1))
    try:
        async with factory(**broker.client_kwargs(), clean_session=True, timeout=wait + 5) as c:
            await c.subscribe(subs)
            found = await _retained(c, wait, quiet)
            if not found:
                await c.subscribe("%s/+/availability" % ROOT, qos=1)
                others = sorted(t.split("/")[1] for t in await _retained(c, wait, quiet))
                raise FleetError(
                    "table %s has no retained message on %s%s: nothing to retire (the tables "
                    "there: %s)" % (table_id, broker.url(), " nor under %s/" % prefix
                                    if prefix else "", ", ".join(others) or "none"))
            if found.get(mine[0]) == b"online" and not force:
                raise FleetError(
                    "table %s is online: stop its daemon first (a running daemon publishes "
                    "all this again), or give --force" % table_id)
            for t in sorted(found):
                await c.publish(t, b"", qos=1, retain=True)
        # read back: a broker whose ACL refuses a publish drops it without a word (MQTT 3.1.1)
        async with factory(**broker.client_kwargs(), clean_session=True, timeout=wait + 5) as c:
            await c.subscribe(subs)
            left = await _retained(c, wait, quiet)
    except FleetError:
        raise
    except Exception as e:
        raise FleetError("cannot retire %s on %s: %s" % (table_id, broker.url(),
                                                          describe_error(e))) from None
    if left:
        raise FleetError(
            "the broker kept %d of the table's retained messages (%s): the ACL does not let "
            "%s write them; this needs `topic write %s/%s/#`%s" % (
                len(left), ", ".join(sorted(left)[:3]), broker.username or "an anonymous client",
                ROOT, table_id, " and `topic write %s/#`" % prefix if prefix else ""))
    return sorted(found)


def _take(tables, topic_, payload):
    parts = topic_.split("/")
    if len(parts) != 3 or parts[0] != ROOT:
        return
    table_id, what = parts[1], parts[2]
    if not payload:
        return  # a cleared retained message
    t = tables.setdefault(table_id, {"availability": None, "status": None, "problem": None})
    if isinstance(payload, str):
        payload = payload.encode()
    if what == "availability":
        t["availability"] = payload.decode("utf-8", "replace").strip()[:40]
    elif what == "status":
        try:
            body = json.loads(payload)
            if not isinstance(body, dict):
                raise ValueError("not an object")
            t["status"] = body
        except ValueError:
            t["problem"] = "its status is not a JSON object"


def natural(table_id):
    """A sort key that puts t2 before t10 (numbers as numbers), case aside: t1, t2, ...
    t9, t10, t11; table-07 before table-8."""
    parts = re.split(r"(\d+)", table_id)
    return [(0, int(p)) if p.isdigit() else (1, p.lower()) for p in parts if p], table_id


def rows(tables):
    """One dict per table, in the ids' natural order (t2 before t10): id, online, state,
    session, hand, next, fault ..."""
    out = []
    for table_id in sorted(tables, key=natural):
        t = tables[table_id]
        st = t["status"] or {}
        sess = st.get("session") or {}
        avail = t["availability"]
        fault = st.get("fault")
        out.append({
            "id": table_id,
            "online": True if avail == "online" else False if avail == "offline" else None,
            "state": st.get("state"),
            "session": sess.get("id"),
            "ruleset": sess.get("ruleset"),
            "game": sess.get("game"),
            "hand": sess.get("hand"),
            "next": (st.get("next") or {}).get("text") if isinstance(st.get("next"), dict)
            else st.get("next"),
            "next_code": (st.get("next") or {}).get("code") if isinstance(st.get("next"), dict)
            else None,
            "fault": fault.get("message") if isinstance(fault, dict) else fault,
            "events_dropped": st.get("events_dropped"),
            "updated": st.get("at"),
            "problem": t["problem"],
        })
    return out


def _cell(v):
    return "-" if v is None or v == "" else str(v)


def text(rows_, url, now=None):
    if not rows_:
        return ("no table on %s: none has published under %s/ (`jantaku run ... --mqtt URL "
                "--table-id ID`), or the broker's ACL does not let this user read them (a "
                "fleet view needs `topic read %s/#`)" % (url, ROOT, ROOT))
    now = time.time() if now is None else now
    head = ("TABLE", "ONLINE", "STATE", "SESSION", "HAND", "FAULT", "NEXT")
    lines = []
    for r in rows_:
        online = {True: "online", False: "OFFLINE", None: "?"}[r["online"]]
        state = r["state"]
        if r["online"] is False and state:
            state = "(%s)" % state  # the last state it said, before it went away
        nxt = r["problem"] or r["next"]
        if r["online"] is False and r["updated"]:
            nxt = "offline; its last status came %s ago" % _ago(now - r["updated"])
        lines.append((r["id"], online, _cell(state), _cell(r["session"]), _cell(r["hand"]),
                      _cell(r["fault"]), _cell(nxt)))
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head) - 2)]
    fault_w = min(40, max(len(x[5]) for x in [head] + lines))

    def fmt(x):
        fault = x[5] if len(x[5]) <= fault_w else x[5][:fault_w - 3] + "..."
        return "  ".join([c.ljust(w) for c, w in zip(x, widths)] + [fault.ljust(fault_w), x[6]])

    online = sum(1 for r in rows_ if r["online"])
    title = "%d table%s on %s, %d online" % (len(rows_), "" if len(rows_) == 1 else "s", url, online)
    return "\n".join([title, fmt(head)] + [fmt(x) for x in lines])


def _ago(seconds):
    seconds = max(0, int(seconds))
    if seconds < 120:
        return "%d s" % seconds
    if seconds < 7200:
        return "%d min" % (seconds // 60)
    return "%d h" % (seconds // 3600)


# -- the command line ----------------------------------------------------------------------

def configure(p):
    sub = p.add_subparsers(dest="fleet_command", required=True, metavar="ACTION")
    s = sub.add_parser("status", help="every table the broker knows: online, state, session, "
                                      "hand, next, fault")
    _broker_options(s)
    s.add_argument("--wait", type=float, default=WAIT_S, metavar="S",
                   help="the most seconds to wait for the broker's retained messages "
                        "(default %g; it stops as soon as they have come)" % WAIT_S)
    s.add_argument("--json", action="store_true",
                   help='one JSON object: {"broker": URL, "tables": [...]}')
    r = sub.add_parser("retire", help="a table taken out of service: remove its retained "
                                      "status and its Home Assistant device from the broker")
    r.add_argument("table_id", metavar="ID", help="the table's id (its --table-id)")
    _broker_options(r)
    r.add_argument("--discovery-prefix", metavar="PREFIX", default=None,
                   help="Home Assistant's discovery prefix (default homeassistant)")
    r.add_argument("--force", action="store_true",
                   help="even while the table says it is online")


def _broker_options(s):
    s.add_argument("--mqtt", metavar="URL", required=True,
                   help="the broker: mqtt://[USER@]HOST[:PORT] or mqtts://... (TLS)")
    s.add_argument("--mqtt-password-file", metavar="PATH", default=None,
                   help="the password's file (mode 0600), else $JANTAKU_MQTT_PASSWORD")
    s.add_argument("--mqtt-ca", metavar="FILE", default=None,
                   help="with mqtts://: the CA the broker's certificate is checked against")


def cmd_fleet(args):
    from hostd.fleet.broker import BrokerConfigError, parse
    from hostd.cli.common import UsageError

    if args.fleet_command == "status" and not 0 < args.wait <= 60:
        raise UsageError("--wait takes seconds above 0, at most 60; got %g" % args.wait)
    try:
        broker = parse(args.mqtt, password_file=args.mqtt_password_file, ca_file=args.mqtt_ca)
    except BrokerConfigError as e:
        raise UsageError(str(e)) from None
    if args.fleet_command == "retire":
        return _cmd_retire(args, broker)
    try:
        tables = asyncio.run(collect(broker, wait=args.wait))
    except FleetError as e:
        sys.stderr.write("jantaku fleet: %s\n" % e)
        return 1
    out = rows(tables)
    if args.json:
        sys.stdout.write(json.dumps({"broker": broker.url(), "tables": out}) + "\n")
    else:
        sys.stdout.write(text(out, broker.url()) + "\n")
    return 0


def _cmd_retire(args, broker):
    from hostd.fleet import ha
    from hostd.fleet.broker import BrokerConfigError, check_table_id
    from hostd.cli.common import UsageError

    try:
        check_table_id(args.table_id)
        prefix = ha.check_prefix(args.discovery_prefix or ha.PREFIX)
    except (BrokerConfigError, ValueError) as e:
        raise UsageError(str(e)) from None
    try:
        cleared = asyncio.run(retire(broker, args.table_id, prefix=prefix, force=args.force))
    except FleetError as e:
        sys.stderr.write("jantaku fleet: %s\n" % e)
        return 1
    entities = sum(1 for t in cleared if t.startswith(prefix + "/"))
    sys.stdout.write("table %s retired on %s: %d retained message%s cleared (%d Home Assistant "
                     "entit%s)\n" % (args.table_id, broker.url(), len(cleared),
                                     "" if len(cleared) == 1 else "s", entities,
                                     "y" if entities == 1 else "ies"))
    return 0
