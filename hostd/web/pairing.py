"""Letting a browser in (DESIGN §4: "from a browser, motor commands need a token").

A browser never holds the API token.  Instead the daemon makes a short one-time
**pairing code** (``ABCD-1234``), shown on the host's terminal (``jantaku run``, ``jantaku
pair --new``); the page sends it once in a POST body (``POST /pair``) and gets back a
**browser session**: a random cookie, ``HttpOnly; SameSite=Strict``, never in a URL, never
readable by the page's scripts.  docs/API.md §Security has the rules.

* a code lives CODE_TTL_S, is good once, and a new code replaces the old one;
* wrong codes are limited per client (MAX_TRIES per TRY_WINDOW_S for one peer address,
  so one browser typing wrong codes keeps no other from pairing) and per code (at most
  MAX_WRONG_PER_CODE = 300 in its life, then it is spent: a fresh one starts again), so a
  code's life allows at most 300 guesses among the CODE_SPACE ~3.3·10⁹ codes: a chance of
  1 in ~11 million (:func:`guess_chance`).  No count of all clients' refuses an address
  that typed nothing wrong: wrong codes from other addresses (12 at 5 a minute) never
  lock the right one out; only the code's 300 in its 5 minutes spend it;
* sessions are kept under the SHA-256 digest of the cookie (a daemon's dump, log or
  journal holds no usable cookie), in memory and, given a ``store`` (the daemon's
  journal: hostd/core/journal/browsers.py), on disk with their wall-clock expiry, so
  a daemon restart keeps every browser paired; each has a short random ``id`` (not
  derived from the cookie) by which the host lists (``jantaku pair --list``) and ends
  (``jantaku pair --revoke ID``) it; a browser ends its own (``POST /pair/forget``);
  ``jantaku pair --revoke-all`` ends them all; each lasts SESSION_TTL_S from its pairing.
  ``last_seen`` is written to the store at most once per SEEN_WRITE_S (an SD card is not
  written at every page load).

No web framework here: the API layer (hostd/web/api.py) passes plain values in (the peer's
address, its User-Agent, the cookie).
"""
import collections
import datetime
import hashlib
import hmac
import re
import secrets
import time

import structlog

from hostd.errors import Forbidden, JantakuError, NotFound

CODE_TTL_S = 300
MAX_TRIES = 5  # wrong codes per TRY_WINDOW_S from one client (peer address)
MAX_WRONG_PER_CODE = 300  # wrong codes in a code's life, from every client together
TRY_WINDOW_S = 60
MAX_CLIENTS = 256  # clients whose wrong codes are remembered; the oldest are dropped
SESSION_TTL_S = 24 * 3600
SEEN_WRITE_S = 60  # a browser's last_seen reaches the store at most this often
MAX_SESSIONS = 64
COOKIE = "jantaku_session"
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read off a screen, typed on a phone
DIGITS = "0123456789"
CODE_SPACE = len(LETTERS) ** 4 * len(DIGITS) ** 4  # 3 317 760 000
ID_BYTES = 3  # a browser's id: 6 hex digits
DESCRIPTION_CHARS = 60
log = structlog.get_logger("jantaku.api")


class TooManyTries(JantakuError):
    status = 429
    code = "pair_rate_limited"


def guess_chance():
    """The chance that guessing finds a code within its life: the most wrong codes a code
    lets through, over the number of codes."""
    return max_guesses() / CODE_SPACE


def max_guesses():
    """The most wrong codes a code's life lets through (the count starts afresh with each
    code)."""
    return MAX_WRONG_PER_CODE


def _digest(value):
    return hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


def normalise(code):
    """'abcd 1234', 'ABCD-1234' -> 'ABCD1234'."""
    return "".join(c for c in str(code).upper() if c.isalnum())


def iso(t):
    """Wall-clock seconds -> '2025-05-01T18:30:05+00:00'."""
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec="seconds")


# -- what a User-Agent says -----------------------------------------------------------------

# (token in the User-Agent, name); the first that matches wins, so the browsers built on
# Chrome come before it, and Chrome before Safari (Chrome's User-Agent says Safari too)
_BROWSERS = (("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("Edg/", "Edge"), ("OPR/", "Opera"),
             ("OPiOS/", "Opera"), ("SamsungBrowser/", "Samsung Internet"),
             ("FxiOS/", "Firefox"), ("Firefox/", "Firefox"), ("CriOS/", "Chrome"),
             ("Chromium/", "Chromium"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))
# an iPhone's says "like Mac OS X", an Android's "Linux": they come first
_SYSTEMS = (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"),
            ("Windows", "Windows"), ("Macintosh", "macOS"), ("Mac OS X", "macOS"),
            ("Linux", "Linux"))


def describe_agent(agent):
    """A short description of a browser from its User-Agent ('Chrome on Android', 'Safari
    on iPhone'), or the User-Agent's first DESCRIPTION_CHARS characters when it is not
    one of the common browsers; printable characters only (it is shown on a terminal)."""
    agent = re.sub(r"[^\x20-\x7e]", "?", str(agent or "")).strip()
    if not agent:
        return "unknown (no User-Agent)"
    browser = next((name for token, name in _BROWSERS if token in agent), None)
    system = next((name for token, name in _SYSTEMS if token in agent), None)
    if browser and system:
        return "%s on %s" % (browser, system)
    if browser:
        return browser
    return agent[:DESCRIPTION_CHARS]


# -- the rate limit -------------------------------------------------------------------------

class _Tries:
    """The times of wrong codes within TRY_WINDOW_S: per client and for all together.

    The per-client table is ordered by each client's latest wrong code; entries older than
    the window are dropped from its front, and beyond MAX_CLIENTS the oldest go too, so a
    flood of addresses cannot make it grow without bound."""

    def __init__(self):
        self.code = 0  # wrong codes since the current code was made
        self.clients = collections.OrderedDict()  # client -> deque of times

    def _prune(self, now):
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
        if self.code >= MAX_WRONG_PER_CODE:
            return TooManyTries(
                "this pairing code had %d wrong guesses from the network and is spent: make "
                "a fresh code with `jantaku pair --new` on the table's host"
                % MAX_WRONG_PER_CODE)
        return None

    def wrong(self, client, now):
        self.code += 1
        times = self.clients.pop(client, None) or collections.deque(maxlen=MAX_TRIES)
        times.append(now)
        self.clients[client] = times  # now the newest
        self._prune(now)

    def new_code(self):
        """Wrong guesses at the last code say nothing about the next: the code's count
        starts afresh (each browser's own does not)."""
        self.code = 0


# -- the sessions ---------------------------------------------------------------------------

class _Browser:
    __slots__ = ("id", "paired_at", "last_seen", "expires", "address", "browser", "stored_seen")

    def __init__(self, id, paired_at, expires, address, browser):
        self.id = id
        self.paired_at = paired_at  # wall clock
        self.last_seen = paired_at  # wall clock
        self.expires = expires  # the monotonic clock
        self.address = address
        self.browser = browser
        self.stored_seen = paired_at  # the last_seen the store holds


class Paired:
    """What a right code gives: the cookie's value (for the browser only), the new
    session's id (for the log, the list) and the id of the session it replaced (the same
    browser's, paired before), if any."""

    __slots__ = ("cookie", "id", "replaced")

    def __init__(self, cookie, id, replaced=None):
        self.cookie = cookie
        self.id = id
        self.replaced = replaced


class Pairing:
    """The pairing code and the paired browsers.  ``store``: where paired browsers are
    kept across restarts (the daemon's :class:`~hostd.core.journal.Journal`: its
    ``browsers``, ``browser_paired``, ``browser_seen`` and ``browsers_unpaired``), or None
    to keep them in memory only."""

    def __init__(self, clock=time.monotonic, wall=time.time, store=None):
        self.clock = clock
        self.wall = wall
        self.store = store
        self._code = None  # (digest of the normalised code, expires at)
        self._tries = _Tries()
        self._sessions = {}  # digest of the cookie -> _Browser
        if store is not None:
            self._load()

    # -- the store ------------------------------------------------------------------------
    def _load(self):
        """The browsers the store kept, those not expired by the wall clock; the expired
        ones leave the store."""
        now, wall = self.clock(), self.wall()
        gone = []
        try:
            rows = self.store.browsers()
        except JantakuError as e:
            log.warning("paired_browsers_not_read", error=str(e))
            return
        for row in rows:
            left = row["expires_at"] - wall
            if left <= 0 or len(row["digest"]) != 64:
                gone.append(row["digest"])
                continue
            b = _Browser(row["id"], row["paired_at"], now + left, row["address"],
                         row["browser"])
            b.last_seen = b.stored_seen = row["last_seen"]
            self._sessions[row["digest"]] = b
        self._unstored(gone)

    def _write(self, what, *args, **kw):
        """One write to the store.  A store that cannot be written (a full SD card) does
        not stop pairing: the browser is paired in memory, and the log says it would be
        lost at a restart."""
        if self.store is None:
            return
        try:
            getattr(self.store, what)(*args, **kw)
        except JantakuError as e:
            log.warning("paired_browsers_not_kept", error=str(e))

    def _stored(self, digest, b):
        self._write("browser_paired", digest=digest, id=b.id, paired_at=b.paired_at,
                    last_seen=b.last_seen, expires_at=self.wall() + (b.expires - self.clock()),
                    address=b.address or "", browser=b.browser or "")

    def _unstored(self, digests):
        if digests:
            self._write("browsers_unpaired", list(digests))

    def _seen(self, digest, b):
        if self.store is not None and b.last_seen - b.stored_seen >= SEEN_WRITE_S:
            b.stored_seen = b.last_seen
            self._write("browser_seen", digest, last_seen=b.last_seen, address=b.address)

    def new_code(self):
        """A fresh one-time code (the previous one no longer works)."""
        code = ("".join(secrets.choice(LETTERS) for _ in range(4)) + "-"
                + "".join(secrets.choice(DIGITS) for _ in range(4)))
        self._code = (_digest(normalise(code)), self.clock() + CODE_TTL_S)
        self._tries.new_code()
        return code

    def exchange(self, code, *, client=None, agent=None, previous=None):
        """A :class:`Paired` for a right code (which is then spent), else an error.

        ``client``: the peer's address (the key of its own limit on wrong codes, and shown
        in the list); ``agent``: its User-Agent (described in the list); ``previous``: the
        cookie the browser already carries, whose session this one replaces."""
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
        gone = []
        old = self._sessions.pop(_digest(previous), None) if previous else None
        if old is not None:
            gone.append(_digest(previous))
        gone += self._drop_expired(now, store=False)
        while len(self._sessions) >= MAX_SESSIONS:  # the oldest goes
            oldest = min(self._sessions, key=lambda k: self._sessions[k].expires)
            del self._sessions[oldest]
            gone.append(oldest)
        self._unstored(gone)
        cookie = secrets.token_urlsafe(32)
        browser = _Browser(self._new_id(), self.wall(), now + SESSION_TTL_S, client,
                           describe_agent(agent))
        self._sessions[_digest(cookie)] = browser
        self._stored(_digest(cookie), browser)
        return Paired(cookie, browser.id, old.id if old and old.expires >= now else None)

    def _new_id(self):
        known = {b.id for b in self._sessions.values()}
        while True:
            id_ = secrets.token_hex(ID_BYTES)
            if id_ not in known:
                return id_

    def _drop_expired(self, now, store=True):
        """Sessions past their time go (from the store too, unless ``store`` is false:
        then the caller does it); returns their digests."""
        gone = [k for k, b in self._sessions.items() if b.expires < now]
        for k in gone:
            del self._sessions[k]
        if store:
            self._unstored(gone)
        return gone

    def _find(self, cookie):
        if not cookie:
            return None
        browser = self._sessions.get(_digest(cookie))
        if browser is None or self.clock() > browser.expires:
            return None
        return browser

    def check(self, cookie):
        """Whether ``cookie`` is a live browser session (nothing is recorded)."""
        return self._find(cookie) is not None

    def touch(self, cookie, *, client=None):
        """The id of ``cookie``'s live session, which is seen now (from ``client``), or
        None when it is not paired."""
        browser = self._find(cookie)
        if browser is None:
            return None
        browser.last_seen = self.wall()
        if client:
            browser.address = str(client)
        self._seen(_digest(cookie), browser)
        return browser.id

    def forget(self, cookie):
        """End ``cookie``'s own session: its id, or None when it was not paired."""
        browser = self._find(cookie)
        if browser is None:
            return None
        del self._sessions[_digest(cookie)]
        self._unstored([_digest(cookie)])
        return browser.id

    def revoke(self, id):
        """End the session with this id (as listed); :class:`NotFound` naming the known
        ids when there is none."""
        self._drop_expired(self.clock())
        wanted = str(id).strip().lower()
        for key, browser in self._sessions.items():
            if browser.id == wanted:
                del self._sessions[key]
                self._unstored([key])
                return browser.id
        known = sorted(b.id for b in self._sessions.values())
        raise NotFound("no paired browser has the id %r; %s" % (
            str(id)[:40], "the paired ones: %s (`jantaku pair --list`)" % ", ".join(known)
            if known else "no browser is paired"), code="unknown_browser")

    def revoke_all(self):
        n = len(self._sessions)
        self._sessions.clear()
        self._code = None
        self._write("browsers_unpaired")
        return n

    def browsers(self):
        """The live sessions, oldest first: id, paired_at and last_seen (ISO 8601, UTC),
        address, browser (a description of its User-Agent) and expires_in (seconds)."""
        now = self.clock()
        self._drop_expired(now)
        return [{"id": b.id, "paired_at": iso(b.paired_at), "last_seen": iso(b.last_seen),
                 "address": b.address, "browser": b.browser,
                 "expires_in": max(0, int(b.expires - now))}
                for b in sorted(self._sessions.values(), key=lambda b: b.paired_at)]

    def summary(self):
        now = self.clock()
        return {"browsers": sum(1 for b in self._sessions.values() if b.expires >= now),
                "code_open": self._code is not None and now < self._code[1]}
