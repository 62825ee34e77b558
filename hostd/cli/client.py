"""Talking to a running daemon over its API: the address, the token, one request with
the answer or the error worded for a person (exit 1; exit 2 for a bad request)."""
import json
import os
import sys

from hostd.cli.common import UsageError

DEFAULT_API = "http://127.0.0.1:8737"


def api_url(args):
    return (getattr(args, "api", None) or os.environ.get("JANTAKU_API") or DEFAULT_API).rstrip("/")


def add_api_option(p):
    p.add_argument("--api", metavar="URL", default=None,
                   help="the daemon's API (default $JANTAKU_API or %s)" % DEFAULT_API)
    p.add_argument("--token", default=os.environ.get("JANTAKU_TOKEN"),
                   help="API token, needed when the daemon listens beyond loopback ($JANTAKU_TOKEN)")


def _request(args, method, path, body=None, timeout=30.0):
    import httpx

    headers = {"Authorization": "Bearer %s" % args.token} if getattr(args, "token", None) else {}
    url = api_url(args) + path
    try:
        r = httpx.request(method, url, json=body, headers=headers, timeout=timeout)
    except httpx.HTTPError as e:
        sys.stderr.write("jantaku: cannot reach the daemon at %s (%s); is `jantaku run` up?\n"
                         % (api_url(args), e))
        return None, 1
    try:
        data = r.json()
    except ValueError:
        data = {"error": {"message": r.text}}
    if r.status_code >= 400:
        err = data.get("error") if isinstance(data, dict) else None
        msg = err.get("message") if isinstance(err, dict) else str(data)
        code = err.get("code") if isinstance(err, dict) else None
        if r.status_code == 400 or (r.status_code == 422 and code == "bad_request"):
            raise UsageError(msg)  # the request itself was wrong: exit 2
        hint = HINTS.get(code) or _next_command(err)
        sys.stderr.write("jantaku: %s%s\n" % (msg, " (`%s`)" % hint if hint else ""))
        return data, 1
    return data, 0


def _next_command(err):
    """The command a refusal's `next` asks for, as the CLI names it."""
    from hostd.cli.words import command_line

    nxt = err.get("next") if isinstance(err, dict) else None
    return command_line(nxt.get("action")) if isinstance(nxt, dict) else None


#: the commands that answer a refusal the daemon words without naming any (the CLI may),
#: by the refusal's code (hostd/core/vocabulary.py REFUSALS)
HINTS = {
    "sets_not_apart": "jantaku session start --ruleset R --loaded, or --mixed-deck",
    "walls_inside": "jantaku session end --empty",
    "fault_remains": "jantaku clear-fault once it is fixed",
    "not_connected": "jantaku status says why",
    "no_session": "jantaku session start --ruleset R",
}


def _print(args, data, text_fn):
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        sys.stdout.write(text_fn(data) + "\n")
