"""Letting a browser in (DESIGN §4: "from a browser, motor commands need a token").

A browser never holds the API token.  Instead the daemon makes a short one-time
**pairing code** (``ABCD-1234``), shown on the host's terminal (``jantaku run``, ``jantaku
pair --new``); the page sends it once in a POST body (``POST /pair``) and gets back a
**browser session**: a random cookie, ``HttpOnly; SameSite=Strict``, never in a URL, never
readable by the page's scripts.  docs/API.md §Security has the rules.

* a code lives CODE_TTL_S, is good once, and a new code replaces the old one;
* wrong codes are rate-limited for the whole daemon (MAX_TRIES per TRY_WINDOW_S), so
  the ~3·10⁹ codes cannot be guessed in a code's life;
* sessions are kept in memory only, as SHA-256 digests of the cookie (a daemon's dump
  or log holds no usable cookie); a daemon restart or ``jantaku pair --revoke-all``
  ends them all; each lasts SESSION_TTL_S.
"""
import hashlib
import hmac
import secrets
import time

from hostd.errors import Forbidden, JantakuError

CODE_TTL_S = 300
MAX_TRIES = 5
TRY_WINDOW_S = 60
SESSION_TTL_S = 24 * 3600
MAX_SESSIONS = 64
COOKIE = "jantaku_session"
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read off a screen, typed on a phone


class TooManyTries(JantakuError):
    status = 429


def _digest(value):
    return hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


def normalise(code):
    """'abcd 1234', 'ABCD-1234' -> 'ABCD1234'."""
    return "".join(c for c in str(code).upper() if c.isalnum())


class Pairing:
    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._code = None  # (digest of the normalised code, expires at)
        self._tries = []  # times of wrong codes within TRY_WINDOW_S
        self._sessions = {}  # digest of the cookie -> expires at

    def new_code(self):
        """A fresh one-time code (the previous one no longer works)."""
        code = ("".join(secrets.choice(LETTERS) for _ in range(4)) + "-"
                + "".join(secrets.choice("0123456789") for _ in range(4)))
        self._code = (_digest(normalise(code)), self.clock() + CODE_TTL_S)
        return code

    def exchange(self, code):
        """The cookie value for a right code (which is then spent), else an error."""
        now = self.clock()
        self._tries = [t for t in self._tries if now - t < TRY_WINDOW_S]
        if len(self._tries) >= MAX_TRIES:
            raise TooManyTries("too many wrong pairing codes: wait a minute, then type the "
                               "code again", code="pair_rate_limited")
        given = _digest(normalise(code))
        if (self._code is None or now > self._code[1]
                or not hmac.compare_digest(given, self._code[0])):
            self._tries.append(now)
            expired = self._code is not None and now > self._code[1]
            raise Forbidden("that pairing code is %s: get a fresh one on the table's host "
                            "with `jantaku pair --new`" % ("too old" if expired else "not right"),
                            code="pair_refused")
        self._code = None
        self._sessions = {k: v for k, v in self._sessions.items() if v > now}
        while len(self._sessions) >= MAX_SESSIONS:  # the oldest goes
            del self._sessions[min(self._sessions, key=self._sessions.get)]
        cookie = secrets.token_urlsafe(32)
        self._sessions[_digest(cookie)] = now + SESSION_TTL_S
        return cookie

    def check(self, cookie):
        if not cookie:
            return False
        expires = self._sessions.get(_digest(cookie))
        return expires is not None and self.clock() <= expires

    def revoke_all(self):
        n = len(self._sessions)
        self._sessions.clear()
        self._code = None
        return n

    def summary(self):
        now = self.clock()
        return {"browsers": sum(1 for v in self._sessions.values() if v > now),
                "code_open": self._code is not None and now <= self._code[1]}
