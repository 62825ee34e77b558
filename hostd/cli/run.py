"""`jantaku run`: the daemon on a table (its serial port) or on the simulated table,
with its API, its page, the MQTT bridge and a live status line.  Registered in
hostd.cli.main; imported lazily from there."""
import asyncio
import os
import sys

from hostd.cli.reads import pair_text

DEFAULT_API_PORT = 8737
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")  # = hostd.logging.LEVEL_CHOICES


def default_db(sim=False):
    """The journal's default place; the simulated table keeps its own, apart from a real
    table's."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "jantaku", "sim-journal.sqlite" if sim else "journal.sqlite")


# ------------------------------------------------------------------------------ the daemon
def _api_port(text):
    import argparse

    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a port number (1-65535)" % text) from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError("%d is not a port number: 1-65535" % port)
    return port


def _whole(what, lo, hi):
    """An argparse type: a whole number lo..hi, refused in words naming `what`."""
    def parse(text):
        import argparse

        try:
            v = int(text)
        except ValueError:
            v = lo - 1
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError("%r is not %s: a whole number %d..%d"
                                             % (text, what, lo, hi))
        return v
    return parse


_days = _whole("a number of days", 1, 36500)
_megabytes = _whole("a size in MB", 1, 1 << 20)


def _seconds(text):
    import argparse

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text) from None
    if not v > 0 or v > 3600:
        raise argparse.ArgumentTypeError("%s: give seconds above 0 (at most 3600)" % text)
    return v


def configure_run(p):
    from hostd.cli.common import fault_arg

    where = p.add_mutually_exclusive_group()
    where.add_argument("--port", metavar="PATH", help="the table's serial port (e.g. /dev/jantaku)")
    where.add_argument("--sim", action="store_true",
                       help="start the simulated table (`jantaku sim serve`) and use it; it "
                            "ends with the daemon")
    p.add_argument("--db", metavar="PATH", default=None,
                   help="the journal (default %s; with --sim %s)" % (default_db(), default_db(sim=True)))
    p.add_argument("--api-host", "--host", dest="api_host", default="127.0.0.1", metavar="ADDR",
                   help="address the API listens on (default 127.0.0.1; anything else needs a token)")
    p.add_argument("--api-port", type=_api_port, default=DEFAULT_API_PORT, metavar="N",
                   help="TCP port of the API (default %d)" % DEFAULT_API_PORT)
    p.add_argument("--no-invite", dest="invites", action="store_false",
                   help="a paired browser may not pair another phone (POST /pair/invite): "
                        "every pairing code comes from the host (`jantaku pair --new`)")
    p.add_argument("--allow-host", dest="allow_hosts", action="append", default=[], metavar="NAME",
                   help="a host name the API may be reached by besides its address and "
                        "localhost, e.g. the table host's LAN name (table.local); repeatable")
    p.add_argument("--lan-reads", choices=("paired", "open"), default="paired",
                   help="who on another machine may read history and scores, which name the "
                        "players: paired browsers and the token (paired, the default), or "
                        "anyone who reaches the API (open)")
    p.add_argument("--trusted-proxy", dest="trusted_proxies", action="append", default=[],
                   metavar="ADDR", type=_proxy_arg,
                   help="a TLS proxy whose X-Forwarded-For and X-Forwarded-Proto count (its "
                        "address as its requests come in: 127.0.0.1 for caddy or nginx on this "
                        "host; docs/DEPLOY.md); repeatable; none by default, loopback included")
    p.add_argument("--token-file", default=None, metavar="PATH",
                   help="where the API token is kept (mode 0600; generated if absent); needed "
                        "when listening beyond loopback (default: api-token beside the journal)")
    from hostd.boards.boardfile import LOOKUP

    p.add_argument("--pi", dest="pi_board", nargs="?", const="pi-reference", default=None,
                   metavar="ID|PATH",
                   help="this Raspberry Pi is the table: start its firmware (python -m "
                        "firmware.pi_main on the GPIO) with this board profile (default "
                        "pi-reference; " + LOOKUP + ") and connect to it; off a Pi, "
                        "GPIOZERO_PIN_FACTORY=mock")
    p.add_argument("--colours", "--colors", default=None, metavar="A,B",
                   help="back colours of the two sets loaded: the default of `session start "
                        "--colours` (default: the table's own, as its board profile names them, "
                        "which `jantaku calibrate --sets` rewrites); the same name twice "
                        "(blue,blue) for sets whose backs look alike; with --sim, the simulated "
                        "sets' backs")
    p.add_argument("--seed", type=int, default=None,
                   help="dice (and the simulated table) from this seed instead of a cryptographic source")
    p.add_argument("--sim-ruleset", default="riichi", metavar="R",
                   help="with --sim: the tiles loaded into the simulated table (default riichi)")
    p.add_argument("--sim-mixed-deck", action="store_true",
                   help="with --sim: both tile sets in the simulated table's mixer (Mixed Deck)")
    p.add_argument("--sim-speed", type=float, default=1.0, metavar="X",
                   help="with --sim: the simulated table's speed, above 0 (1 = real time)")
    p.add_argument("--sim-fault", action="append", default=[], metavar="SPEC", type=fault_arg,
                   help="with --sim: inject a fault, KIND[:key=value,...] (docs/SIMULATOR.md); "
                        "repeatable")
    p.add_argument("--sim-board", default=None, metavar="ID|PATH", help="with --sim: the simulated "
                   "table's board profile (default reference-18; fourport-24v: a four-port machine)")
    p.add_argument("--sim-players", choices=("auto", "manual"), default="auto",
                   help="with --sim: the simulated people: auto push the played tiles in; "
                        "manual leave it to you (`jantaku sim push`, then `jantaku continue`)")
    p.add_argument("--keep-days", type=_days, default=90, metavar="N",
                   help="an ended session keeps its event detail in the journal this many "
                        "days, then only its summary (default 90; docs/ARCHITECTURE.md "
                        "\"Journal retention\")")
    p.add_argument("--journal-max-mb", type=_megabytes, default=64, metavar="MB",
                   help="past that much live data the oldest ended sessions are removed "
                        "whole (default 64)")
    p.add_argument("--push-window", type=_seconds, default=None, metavar="S",
                   help="table seconds the centre stays open while people push tiles in "
                        "(default 20: room for four people at a real table; `jantaku continue` "
                        "closes it sooner)")
    p.add_argument("--log-level", default="info", choices=LOG_LEVELS,
                   help="the lowest level logged (default info; tracebacks on the console "
                        "at debug only)")
    p.add_argument("--no-view", action="store_true", help="no live status line on a terminal")
    m = p.add_argument_group("MQTT (docs/FLEET.md)")
    m.add_argument("--mqtt", metavar="URL", default=None,
                   help="also publish this table on an MQTT broker: mqtt://[USER@]HOST[:PORT] "
                        "or mqtts://... (TLS); needs --table-id")
    m.add_argument("--table-id", metavar="ID", default=None,
                   help="this table's name on the broker (topics jantaku/ID/...), e.g. t1")
    m.add_argument("--mqtt-password-file", metavar="PATH", default=None,
                   help="the broker password's file (mode 0600), else $JANTAKU_MQTT_PASSWORD; "
                        "never on the command line")
    m.add_argument("--mqtt-ca", metavar="FILE", default=None,
                   help="with mqtts://: the CA certificate(s) the broker's certificate is checked "
                        "against (default: the system's)")
    m.add_argument("--mqtt-commands", action="store_true",
                   help="take commands from the broker (hand over, continue, abort ...); off by "
                        "default: a hand over from afar drops a hand in play")
    m.add_argument("--mqtt-outbox", type=int, default=None, metavar="N",
                   help="messages kept while the broker is away (default 10000); the oldest "
                        "beyond are dropped, counted and reported")
    m.add_argument("--mqtt-discovery-prefix", metavar="PREFIX", default=None,
                   help="Home Assistant's discovery prefix: the table is published there as a "
                        "device (default homeassistant)")
    m.add_argument("--no-mqtt-discovery", action="store_true",
                   help="publish nothing for Home Assistant's discovery")


def start_sim_process(args, colours):
    """`jantaku sim serve` as a child, loaded with sets of these backs; returns (Popen,
    port path)."""
    from hostd.table.sim import spawn_sim_serve

    return spawn_sim_serve(args.sim_ruleset, speed=args.sim_speed, seed=args.seed,
                           mixed_deck=args.sim_mixed_deck, faults=args.sim_fault,
                           players=args.sim_players, colours=colours,
                           board=getattr(args, "sim_board", None))


def _check_sim_options(args):
    """Everything `sim serve` would refuse, refused here before it starts (exit 2)."""
    from hostd.cli.common import UsageError, load_ruleset

    if args.sim_speed <= 0 or args.sim_speed != args.sim_speed:
        raise UsageError("--sim-speed must be above 0, e.g. 1 (real time) or 20; got %g"
                         % args.sim_speed)
    try:
        load_ruleset(argparse_ns(ruleset=args.sim_ruleset))
    except UsageError as e:
        raise UsageError("--sim-ruleset: %s" % e) from None
    from hostd.table.sim import board_profile
    from hostd.errors import JantakuError
    from hostd.core.session import check_sets

    try:
        prof = board_profile(board=getattr(args, "sim_board", None))
    except ValueError as e:
        raise UsageError("--sim-board: %s" % e) from None
    try:  # the simulated table's sets have these backs: colours of its board profile
        if args.colours:
            check_sets(args.colours, prof["colours"])
    except JantakuError as e:
        raise UsageError("--colours: %s" % e) from None


def _proxy_arg(text):
    import argparse

    from hostd.web.server import trusted_proxy

    try:
        return trusted_proxy(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _check_mqtt_options(args):
    """The broker (or None), every MQTT option checked before anything starts (exit 2)."""
    from hostd.fleet.broker import BrokerConfigError, check_table_id, parse
    from hostd.cli.common import UsageError

    if not args.mqtt:
        given = [o for o, v in (("--table-id", args.table_id),
                                ("--mqtt-password-file", args.mqtt_password_file),
                                ("--mqtt-ca", args.mqtt_ca),
                                ("--mqtt-commands", args.mqtt_commands),
                                ("--mqtt-outbox", args.mqtt_outbox is not None),
                                ("--mqtt-discovery-prefix", args.mqtt_discovery_prefix),
                                ("--no-mqtt-discovery", args.no_mqtt_discovery)) if v]
        if given:
            raise UsageError("%s without --mqtt URL: give the broker too" % ", ".join(given))
        return None
    if not args.table_id:
        raise UsageError("--mqtt needs --table-id ID: this table's name on the broker, e.g. t1")
    if args.mqtt_outbox is not None and not 1 <= args.mqtt_outbox <= 1000000:
        raise UsageError("--mqtt-outbox takes 1 to 1000000 messages, got %d" % args.mqtt_outbox)
    if args.no_mqtt_discovery and args.mqtt_discovery_prefix:
        raise UsageError("--no-mqtt-discovery and --mqtt-discovery-prefix: give one of them")
    from hostd.fleet import ha

    try:
        args.discovery_prefix = None if args.no_mqtt_discovery else \
            ha.check_prefix(args.mqtt_discovery_prefix or ha.PREFIX)
    except ValueError as e:
        raise UsageError("--mqtt-discovery-prefix: %s" % e) from None
    try:
        check_table_id(args.table_id)
        return parse(args.mqtt, password_file=args.mqtt_password_file, ca_file=args.mqtt_ca)
    except BrokerConfigError as e:
        raise UsageError(str(e)) from None


def argparse_ns(**kw):
    import argparse

    return argparse.Namespace(**kw)


def _prepare_db(args):
    """The journal's path, its folder made; UsageError (one line) if that cannot be."""
    from hostd.cli.common import UsageError

    db = args.db or default_db(sim=args.sim)
    folder = os.path.dirname(os.path.abspath(db))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise UsageError("cannot make the journal's folder %s (%s); give a writable place "
                         "with --db PATH" % (folder, e.strerror or e)) from None
    if not os.access(folder, os.W_OK):
        raise UsageError("the journal's folder %s is not writable; give a writable place with "
                         "--db PATH" % folder)
    return db


def cmd_run(args):
    from hostd.cli.common import UsageError
    from hostd.table.sim import SimStartError

    if sum(1 for x in (args.port, args.sim, args.pi_board) if x) != 1:
        raise UsageError("say where the table is, once: --port PATH (a real table), --pi "
                         "(this Raspberry Pi is the table) or --sim")
    from hostd.errors import JantakuError
    from hostd.core.session import check_sets

    try:  # the names the table knows are checked once it answers (session start)
        colours = check_sets(args.colours) if args.colours else None
    except JantakuError as e:
        raise UsageError("--colours: %s" % e) from None
    if args.sim:
        _check_sim_options(args)
    args.broker = _check_mqtt_options(args)
    db = _prepare_db(args)
    # systemd stops a service with SIGTERM, a closed terminal sends SIGHUP: both end the
    # daemon as Ctrl-C does (the table stopped cleanly, the simulated table ended)
    from hw_sim.lifetime import stop_on_signals

    stop_on_signals()
    sim = None
    speed = 1.0
    try:
        if args.pi_board:
            from hostd import logging as jlog
            from hostd.table import local

            try:
                sim, port = local.spawn_pi_firmware(args.pi_board)
            except local.FirmwareStartError as e:
                sys.stderr.write("jantaku run: %s\n" % e)
                return 1
            local.stop_when_child_ends(sim, jlog.get_logger("jantaku.run"))
        elif args.sim:
            try:
                sim, port = start_sim_process(args, colours)
            except SimStartError as e:
                sys.stderr.write("jantaku run: %s\n" % e)
                return 1
            speed = args.sim_speed
        else:
            port = args.port
        status = asyncio.run(_serve(args, port, colours, speed, db))
    except KeyboardInterrupt:
        status = 0
    finally:
        if sim is not None:
            from hostd.table.sim import stop_sim_process

            sim.jantaku_stopping = True
            stop_sim_process(sim)
    if args.pi_board and sim is not None:
        from hostd.table import local

        why = local.ended_by_itself(sim)
        if why:  # the firmware's end is the daemon's failure, never a clean exit
            sys.stderr.write("jantaku run: %s\n" % why)
            return 1
    return status


async def _serve(args, port, colours, speed, db):
    from hostd import logging as jlog
    from hostd.errors import ConfigError
    from hostd.web.api import create_app
    from hostd.web.server import make_server

    jlog.configure(args.log_level)
    log = jlog.get_logger("jantaku.run")
    opened = _open(args, log, db)
    if opened is None:
        return 1
    token, sock, journal = opened
    daemon = _daemon(args, port, colours, speed, journal)
    try:
        app = create_app(daemon, token=token, bind_host=args.api_host,
                         allowed_hosts=args.allow_hosts, invites=args.invites,
                         lan_reads=args.lan_reads)
    except ConfigError as e:
        sock.close()
        journal.close()
        sys.stderr.write("jantaku run: %s\n" % e)
        return 1
    await daemon.start()
    bridge = await _bridge(args, daemon)
    server = make_server(app, args.api_host, args.api_port, on_shutdown=app.state.end_streams,
                         trusted_proxies=args.trusted_proxies)
    extra = []
    try:
        extra = await _up(args, log, daemon, app, bridge, port, db, journal)
        await server.serve(sockets=[sock])
    finally:
        from hostd import sdnotify

        sdnotify.stopping()
        for task in extra:
            task.cancel()
        await asyncio.gather(*extra, return_exceptions=True)
        jlog.clear_status_line()
        if bridge is not None:
            await bridge.close()
        await daemon.close()
        sock.close()
    return 0


def _open(args, log, db):
    """The token, the API's socket and the journal, or None (said on stderr)."""
    from hostd import logging as jlog
    from hostd.core.journal import Journal, JournalError
    from hostd.errors import ConfigError
    from hostd.web.api import is_loopback, load_or_create_token
    from hostd.web.server import bind_socket

    token = None
    try:
        if not is_loopback(args.api_host) or args.token_file:
            path = args.token_file or os.path.join(os.path.dirname(os.path.abspath(db)), "api-token")
            token, created = load_or_create_token(path)
            jlog.add_secret(token)
            if created:
                log.info("API token created", path=path)
        # the API's address before anything starts: a clash is an error, never "daemon up"
        sock = bind_socket(args.api_host, args.api_port)
    except ConfigError as e:
        sys.stderr.write("jantaku run: %s\n" % e)
        return None
    except OSError as e:
        sys.stderr.write("jantaku run: cannot listen on %s:%d: %s (another daemon? choose "
                         "another with --api-port N)\n"
                         % (args.api_host, args.api_port, e.strerror or e))
        return None
    try:
        journal = Journal(db)
    except JournalError as e:
        sock.close()
        sys.stderr.write("jantaku run: %s\n" % e)
        return None
    return token, sock, journal


def _daemon(args, port, colours, speed, journal):
    from hostd.core.daemon import Daemon
    from hostd.table.transport import SerialTransport

    # a simulated table started by this daemon is new: nothing left from a session before
    return Daemon(transport=SerialTransport(port, time_scale=speed), journal=journal,
                  colours=colours, seed=args.seed, resume=not args.sim,
                  keep_days=args.keep_days, journal_max_bytes=args.journal_max_mb << 20,
                  **({"push_window": args.push_window} if args.push_window else {}))


async def _bridge(args, daemon):
    """The MQTT bridge (docs/FLEET.md) when --mqtt was given, started."""
    if getattr(args, "broker", None) is None:
        return None
    from hostd import logging as jlog
    from hostd.fleet.mqtt import Bridge
    from hostd.web.api import VERSION

    jlog.add_secret(args.broker.password)
    bridge = Bridge(daemon, args.broker, args.table_id, commands=args.mqtt_commands,
                    discovery_prefix=args.discovery_prefix, sw_version=VERSION,
                    **({"outbox_limit": args.mqtt_outbox} if args.mqtt_outbox else {}))
    await bridge.start()
    daemon.reporters["mqtt"] = bridge.get_status
    daemon.warnings.extend(bridge.warnings())  # (logged by start(); in GET /health too)
    return bridge


async def _up(args, log, daemon, app, bridge, port, db, journal):
    """The daemon is up: say so (the log, the pairing code on a terminal, systemd), and
    start what runs beside the server; returns those tasks."""
    from hostd import sdnotify
    from hostd.web.pairing import CODE_TTL_S

    extra = [asyncio.create_task(sdnotify.watchdog_loop(healthy=lambda: True)),
             asyncio.create_task(journal.flush_every())]
    # whether the table answered, and if not why (no such port, locked, not a tty)
    try:
        await daemon.link.wait_connected(timeout=2.0)
    except Exception:
        pass
    table = daemon.status()["table"]
    log.info("daemon up", port=port, db=db,
             api="http://%s:%d" % (args.api_host, args.api_port),
             page="http://%s:%d/" % (args.api_host, args.api_port),  # the table's page
             **({"mqtt": "%s as %s (commands %s)" % (
                 bridge.broker.url(), args.table_id, "on" if bridge.commands else "off")}
                if bridge else {}),
             table="connected" if table.get("connected")
             else "not connected: %s" % (table.get("error") or "waiting for the handshake"))
    # a browser's pairing code: on the terminal only, never in the log
    if sys.stdout.isatty():
        host = (args.allow_hosts[0] if args.allow_hosts else
                "127.0.0.1" if args.api_host in ("0.0.0.0", "::") else args.api_host)
        host = "[%s]" % host if ":" in host else host
        sys.stdout.write(pair_text(app.state.pairing.new_code(), "http://%s:%d/" % (
            host, args.api_port), CODE_TTL_S) + "\n")
        sys.stdout.flush()
    else:
        log.info("pair a browser with the code from `jantaku pair --new`")
    if sys.stdout.isatty() and not args.no_view:
        extra.append(asyncio.create_task(_live_view(daemon)))
    sdnotify.ready("table on %s" % port)
    return extra


def live_line(st):
    """The live view's line: the table, the state, what happens next."""
    t = st["table"]
    s = st["session"]
    b = t.get("build")
    parts = ["table %s" % (t["state"] if t["connected"] else "not connected")]
    if b and st["state"]["name"] in ("building", "preparing", "recovering"):
        parts.append("build %d %d/%d" % (b["id"], sum(b["per_track"]), sum(b["targets"])))
    if s:
        parts.append("session %s %s game %d hand %d" % (s["id"], s["ruleset"], s["game"],
                                                        s["game_hand"]))
    if st.get("fault"):
        parts.append("FAULT: %s" % st["fault"]["message"])
    parts.append(st["next"]["text"])
    m = st.get("mqtt")
    if m and not m["connected"]:
        parts.append("MQTT not connected (%d waiting)" % m["queued"])
    return " | ".join(parts)


async def _live_view(daemon):
    """One status line on the terminal, redrawn twice a second; a log line clears it
    first (hostd.logging), so the two never run together."""
    from hostd import logging as jlog

    while True:
        sys.stdout.write("\r\x1b[K" + live_line(daemon.status()))
        sys.stdout.flush()
        jlog.status_line_shown(sys.stdout)
        await asyncio.sleep(0.5)
