"""`jantaku status`, `history` and `pair`: what the running daemon says (or, for
history, its journal), and the browsers it lets press.  Registered in hostd.cli.main;
imported lazily from there."""
import os
import sys

from hostd.cli.client import _print, _request, add_api_option, api_url
from hostd.errors import JantakuError
from hostd.cli.words import history_text, local_time, score_text, status_text


def configure_status(p):
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


def cmd_status(args):
    data, rc = _request(args, "GET", "/status")
    if rc == 0:
        _print(args, data, status_text)
    return rc


def cmd_history(args):
    if args.db:
        from hostd.core.journal import Journal, JournalError
        from hostd.core.scorebook import with_results

        if not os.path.isfile(args.db):
            sys.stderr.write("jantaku history: no journal at %s (`jantaku run --db PATH` "
                             "names the one a daemon keeps)\n" % args.db)
            return 1
        try:
            with Journal(args.db, exclusive=False) as j:
                data = {"sessions": with_results(j.history(limit=args.limit))}
        except JournalError as e:
            sys.stderr.write("jantaku history: %s\n" % e)
            return 1
        _print(args, data, history_text)
        return 0
    data, rc = _request(args, "GET", "/history?limit=%d" % args.limit)
    if rc == 0:
        _print(args, data, history_text)
    return rc


def configure_history(p):
    p.add_argument("--limit", type=int, default=20, metavar="N",
                   help="the latest N sessions (default 20)")
    p.add_argument("--db", metavar="PATH", default=None,
                   help="read this journal file directly (no daemon needed; beside a running "
                        "one it only reads)")
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


def pair_text(code, page_url, expires_in, qr=True):
    """The pairing code in words, and (``qr``) the page's address with the code as a QR
    code for a phone's camera.  The QR code carries the code in the address's fragment
    (``#pair=``): a fragment is never sent to any server, the page spends the code at once
    and takes it out of the address bar (docs/API.md §Security)."""
    lines = ["pair a browser: open %s and type the code %s (good once, for %d minutes)"
             % (page_url, code, expires_in // 60)]
    if qr:
        try:
            import io

            import segno

            buf = io.StringIO()
            segno.make("%s#pair=%s" % (page_url, code), error="m").terminal(out=buf, compact=True)
            lines.append("or scan this with the phone's camera:\n" + buf.getvalue().rstrip("\n"))
        except ImportError:  # pragma: no cover - a dependency
            pass
    return "\n".join(lines)


def browsers_text(data):
    """`jantaku pair --list`: one line a paired browser (local times)."""
    rows = data.get("browsers") or []
    if not rows:
        return "no browser is paired (`jantaku pair --new` makes a code for one)"
    table = [("ID", "BROWSER", "ADDRESS", "PAIRED", "LAST SEEN")]
    table += [(b["id"], b["browser"], b["address"], local_time(b["paired_at"]),
               local_time(b["last_seen"])) for b in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] for r in table]
    lines.append("`jantaku pair --revoke ID` unpairs one; --revoke-all every one")
    return "\n".join(lines)


def cmd_pair(args):
    if args.revoke_all:
        data, rc = _request(args, "POST", "/pair/revoke-all")
        if rc == 0:
            _print(args, data, lambda d: "%d browser session(s) ended: every browser must pair "
                                         "again (`jantaku pair --new`)" % d["revoked"])
        return rc
    if args.list:
        data, rc = _request(args, "GET", "/pair/browsers")
        if rc == 0:
            _print(args, data, browsers_text)
        return rc
    if args.revoke is not None:
        data, rc = _request(args, "POST", "/pair/revoke", {"id": args.revoke})
        if rc == 0:
            _print(args, data, lambda d: "browser %s unpaired: it must pair again to press "
                                         "(`jantaku pair --new`)" % d["revoked"])
        return rc
    data, rc = _request(args, "POST", "/pair/new")
    if rc == 0:
        page = args.page_url or api_url(args).rstrip("/") + "/"
        _print(args, data, lambda d: pair_text(d["code"], page, d["expires_in"], not args.no_qr))
    return rc


def configure_pair(p):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--new", action="store_true",
                   help="a fresh one-time code for a browser (the default; the last code stops "
                        "working)")
    g.add_argument("--list", action="store_true",
                   help="the paired browsers: id, browser, address, when each paired and was "
                        "last seen")
    g.add_argument("--revoke", metavar="ID", default=None,
                   help="end one browser's session (its id from --list): it must pair again")
    g.add_argument("--revoke-all", action="store_true",
                   help="end every browser session: each must pair again")
    p.add_argument("--page-url", metavar="URL", default=None,
                   help="the page's address as a phone reaches it (e.g. http://table.local:8737/; "
                        "default: the API's)")
    p.add_argument("--no-qr", action="store_true", help="the code only, no QR code")
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")


# -- the game's ledger (docs/SCORING.md) ----------------------------------------------------
LIST_FIELDS = ("tenpai", "multipliers")  # always lists, even of one (or none: `tenpai=`)


def _value(key, text):
    parts = [p for p in text.split(",") if p] if ("," in text or key in LIST_FIELDS) else [text]
    vals = [int(p) if p.lstrip("-").isdigit() else p for p in parts]
    return vals if ("," in text or key in LIST_FIELDS) else vals[0]


def score_entry_body(kind, pairs, entry_json=None):
    """`jantaku score add KIND key=value ...` (or --entry JSON) -> the POST /score body."""
    import json

    from hostd.cli.common import UsageError

    if entry_json is not None:
        try:
            body = json.loads(entry_json)
        except ValueError as e:
            raise UsageError("--entry is not JSON (%s)" % e) from None
        if not isinstance(body, dict):
            raise UsageError("--entry is a JSON object, e.g. '{\"kind\": \"undo\"}'")
        return body
    if not kind:
        raise UsageError("give the entry's kind (riichi, ron, tsumo, draw, abortive, chombo, "
                         "pass, nagashi, suukantsu, pot, transfer, rules, end, seats, undo) "
                         "and its fields as key=value, e.g. "
                         "`jantaku score add ron winner=west from=south han=3 fu=30`")
    body = {"kind": kind}
    for p in pairs:
        key, eq, text = p.partition("=")
        if not eq or not key:
            raise UsageError("%r is not key=value (e.g. winner=west, han=3, tenpai=south,north)"
                             % p)
        if key.startswith("names."):  # a seats entry's names: names.east=Mika
            body.setdefault("names", {})[key[6:]] = text or None
            continue
        body[key] = _value(key, text)
    return body


def cmd_score(args):
    if args.score_command == "add":
        body = score_entry_body(args.kind, args.fields, args.entry)
        data, rc = _request(args, "POST", "/score", body)
    elif args.score_command == "export":
        return _score_export(args)
    else:
        data, rc = _request(args, "GET", "/score" + ("?game=%d" % args.game if args.game else ""))
    if rc == 0:
        _print(args, data, score_text)
    return rc


def _score_export(args):
    """The export file, byte for byte as GET /score/export gives it: from the daemon, or
    with --db from its journal (no daemon needed)."""
    if args.db:
        data, rc = _export_from_journal(args)
    else:
        data, rc = _export_from_daemon(args)
    if rc:
        return rc
    if args.output:
        with open(args.output, "wb") as f:
            f.write(data)
        sys.stderr.write("wrote %s\n" % args.output)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0


def _export_from_daemon(args):
    import httpx

    q = "?format=%s%s%s" % (args.format, "&game=%d" % args.game if args.game else "",
                            "&session=%d" % args.session if args.session else "")
    headers = {"Authorization": "Bearer %s" % args.token} if args.token else {}
    try:
        r = httpx.get(api_url(args) + "/score/export" + q, headers=headers, timeout=30)
    except httpx.HTTPError as e:
        sys.stderr.write("jantaku: cannot reach the daemon at %s (%s); is `jantaku run` up? "
                         "(--db PATH reads its journal instead)\n" % (api_url(args), e))
        return None, 1
    if r.status_code != 200:
        sys.stderr.write("jantaku score export: %s\n" % (r.json().get("error", {}).get("message")
                                                         if r.headers.get("content-type", "").startswith("application/json") else r.text))
        return None, 1
    return r.content, 0


def _export_from_journal(args):
    from hostd.core.journal import Journal, JournalError, UnknownSession
    from hostd.core.scorebook import export_game, journal_book
    from hostd.game import export

    if not os.path.isfile(args.db):
        sys.stderr.write("jantaku score export: no journal at %s (`jantaku run --db PATH` "
                         "names the one a daemon keeps)\n" % args.db)
        return None, 1
    try:
        with Journal(args.db, exclusive=False) as j:
            sid, game = args.session, args.game
            if sid is None:  # the open session (its game in play), else the last one
                found = j.open_session() or j.last_session()
                if found is None:
                    sys.stderr.write("jantaku score export: the journal %s holds no session\n"
                                     % args.db)
                    return None, 1
                sid = found["id"]
                if found["state"] == "open" and game is None:
                    game = found["game"]
            book, summary = journal_book(j, sid)
            x = export_game(book, sid, [g["game"] for g in summary["games"]], game)
    except UnknownSession:
        sys.stderr.write("jantaku score export: no session %d in %s (`jantaku history --db "
                         "%s` lists them)\n" % (args.session, args.db, args.db))
        return None, 1
    except JournalError as e:
        sys.stderr.write("jantaku score export: %s\n" % e)
        return None, 1
    except JantakuError as e:
        sys.stderr.write("jantaku score export: %s\n" % e)
        return None, 1
    return export.document(x, args.format)[0].encode("utf-8"), 0


def _positive(text):
    import argparse

    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError("%r is not a number from 1 up" % text)
    return n


def configure_score(p):
    add_api_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--game", type=int, default=None, metavar="N",
                   help="an earlier game of the session (default: the game in play)")
    sub = p.add_subparsers(dest="score_command", metavar="{add,export}")
    a = sub.add_parser("add", help="enter one result, riichi, seats or undo into the game in "
                                   "play (e.g. `score add ron winner=west from=south han=3 "
                                   "fu=30`; docs/SCORING.md lists each kind's fields)")
    a.add_argument("kind", nargs="?", help="riichi, ron, tsumo, draw, abortive, chombo, pass, "
                                           "nagashi, suukantsu, pot, transfer, rules, end, "
                                           "seats or undo")
    a.add_argument("fields", nargs="*", metavar="key=value",
                   help="the entry's fields; a,b for a list (tenpai=south,north); "
                        "names.east=Mika for seats")
    a.add_argument("--entry", metavar="JSON", help="the whole entry as JSON instead")
    add_api_option(a)
    a.add_argument("--json", action="store_true", help="one JSON object")
    e = sub.add_parser("export", help="a game's ledger to keep, of any session: JSON or CSV "
                                      "(the file GET /score/export and the page give)")
    e.add_argument("--format", choices=("json", "csv"), default="json",
                   help="json (default): every entry and the final state; csv: a row an entry")
    e.add_argument("--output", "-o", metavar="FILE", help="write it here (default: stdout)")
    e.add_argument("--session", type=_positive, default=None, metavar="ID",
                   help="a session of the journal (`jantaku history` lists them; default: "
                        "the open session, else the last one)")
    e.add_argument("--db", metavar="PATH", default=None,
                   help="read this journal file directly (no daemon needed)")
    add_api_option(e)
    e.add_argument("--game", type=_positive, default=None, metavar="N",
                   help="a game of the session (default: the game in play; a past "
                        "session's last game with scores)")
