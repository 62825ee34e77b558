"""Letting a browser in (DESIGN §4: "from a browser, motor commands need a token").

A browser never holds the API token.  Instead the daemon makes a short one-time
**pairing code** (``ABCD-1234``), shown on the host's terminal (``jantaku run``, ``jantaku
pair --new``); the page sends it once in a POST body (``POST /pair``) and gets back a
**browser session**: a random cookie, ``HttpOnly; SameSite=Strict``, never in a URL, never
readable by the page's scripts.  docs/API.md §Security has the rules.

* a code lives CODE_TTL_S, is good once, and a new code replaces the old one;
* wrong codes are rate-limited per client (MAX_TRIES per TRY_WINDOW_S for one peer
  address, so one browser typing wrong codes keeps no other from pairing) and for all
  clients together (MAX_TRIES_ALL per TRY_WINDOW_S, counted afresh for each new code), so
  a code's life allows at most MAX_TRIES_ALL * CODE_TTL_S / TRY_WINDOW_S = 300 guesses
  among the CODE_SPACE ~3.3·10⁹ codes: a chance of 1 in ~11 million (:func:`guess_chance`);
* sessions are kept in memory only, as SHA-256 digests of the cookie (a daemon's dump
  or log holds no usable cookie); a daemon restart or ``jantaku pair --revoke-all``
  ends them all; each lasts SESSION_TTL_S.
"""
import collections
import hashlib
import hmac
import secrets
import time

from hostd.errors import Forbidden, JantakuError

CODE_TTL_S = 300
MAX_TRIES = 5  # wrong codes per TRY_WINDOW_S from one client (peer address)
MAX_TRIES_ALL = 60  # wrong codes per TRY_WINDOW_S from every client together
TRY_WINDOW_S = 60
MAX_CLIENTS = 256  # clients whose wrong codes are remembered; the oldest are dropped
SESSION_TTL_S = 24 * 3600
MAX_SESSIONS = 64
COOKIE = "jantaku_session"
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read off a screen, typed on a phone
DIGITS = "0123456789"
CODE_SPACE = len(LETTERS) ** 4 * len(DIGITS) ** 4  # 3 317 760 000


class TooManyTries(JantakuError):
    status = 429
    code = "pair_rate_limited"


def guess_chance():
    """The chance that guessing finds a code within its life: the most wrong codes the
    limit for all clients lets through in CODE_TTL_S, over the number of codes."""
    return max_guesses() / CODE_SPACE


def max_guesses():
    """The most wrong codes a code's life lets through: MAX_TRIES_ALL in each
    TRY_WINDOW_S of its CODE_TTL_S (the count starts afresh with each code, and a code of
    age CODE_TTL_S is already too old)."""
    return MAX_TRIES_ALL * -(-CODE_TTL_S // TRY_WINDOW_S)


def _digest(value):
    return hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


def normalise(code):
    """'abcd 1234', 'ABCD-1234' -> 'ABCD1234'."""
    return "".join(c for c in str(code).upper() if c.isalnum())


# -- the rate limit -------------------------------------------------------------------------

class _Tries:
    """The times of wrong codes within TRY_WINDOW_S: per client and for all together.

    The per-client table is ordered by each client's latest wrong code; entries older than
    the window are dropped from its front, and beyond MAX_CLIENTS the oldest go too, so a
    flood of addresses cannot make it grow without bound."""

    def __init__(self):
        self.all = collections.deque()
        self.clients = collections.OrderedDict()  # client -> deque of times

    def _prune(self, now):
        while self.all and now - self.all[0] >= TRY_WINDOW_S:
            self.all.popleft()
        while self.clients:
            client, times = next(iter(self.clients.items()))
            if now - times[-1] < TRY_WINDOW_S and len(self.clients) <= MAX_CLIENTS:
                break
            del self.clients[client]

    def refusal(self, client, now):
        """None when ``client`` may try a code now, else the :class:`TooManyTries`."""
        self._prune(now)
        mine = [t for t in self.clients.get(client, ()) if now - t < TRY_WINDOW_S]
        if len(mine) >= MAX_TRIES:
            return TooManyTries(
                "this browser typed %d wrong pairing codes: wait a minute, then type the "
                "code again" % MAX_TRIES)
        if len(self.all) >= MAX_TRIES_ALL:
            return TooManyTries(
                "too many wrong pairing codes on the network (%d a minute from all browsers "
                "together): wait a minute, or make a fresh code with `jantaku pair --new` on "
                "the table's host" % MAX_TRIES_ALL)
        return None

    def wrong(self, client, now):
        self.all.append(now)
        times = self.clients.pop(client, None) or collections.deque(maxlen=MAX_TRIES)
        times.append(now)
        self.clients[client] = times  # now the newest
        self._prune(now)

    def new_code(self):
        """Wrong guesses at the last code say nothing about the next: the limit for all
        clients starts afresh (each browser's own does not)."""
        self.all.clear()


class Pairing:
    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._code = None  # (digest of the normalised code, expires at)
        self._tries = _Tries()
        self._sessions = {}  # digest of the cookie -> expires at

    def new_code(self):
        """A fresh one-time code (the previous one no longer works)."""
        code = ("".join(secrets.choice(LETTERS) for _ in range(4)) + "-"
                + "".join(secrets.choice(DIGITS) for _ in range(4)))
        self._code = (_digest(normalise(code)), self.clock() + CODE_TTL_S)
        self._tries.new_code()
        return code

    def exchange(self, code, *, client=None):
        """The cookie value for a right code (which is then spent), else an error.

        ``client``: the peer's address, the key of its own limit on wrong codes."""
        now = self.clock()
        client = str(client or "unknown")
        refusal = self._tries.refusal(client, now)
        if refusal is not None:
            raise refusal
        given = _digest(normalise(code))
        if (self._code is None or now >= self._code[1]
                or not hmac.compare_digest(given, self._code[0])):
            self._tries.wrong(client, now)
            expired = self._code is not None and now >= self._code[1]
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
                "code_open": self._code is not None and now < self._code[1]}
