"""The HTTP server under the API (CPython only): uvicorn, with limits for a small host.

A table's host may be a Raspberry Pi on a club's LAN, so the server does not wait for
anyone for ever:

* a connection must finish sending a request's headers within HEADER_TIMEOUT_S of being
  opened (or of its previous response): a client sending one byte a second is cut off;
* at most MAX_CONNECTIONS connections are open at once; one more is closed at once
  (each event stream holds one: a table has a handful of screens, not hundreds);
* headers larger than MAX_HEADER_BYTES are refused (h11's incomplete-event limit);
* idle keep-alive connections close after KEEP_ALIVE_S;
* request bodies are limited by the API itself (hostd.web.api.MAX_BODY_BYTES);
* answers over COMPRESS_MIN_BYTES are gzipped for a client that accepts it (the status a
  page asks for after each event is a few kilobytes of JSON); event streams never are
  (each event must reach the page as it happens), nor what is already encoded (the page's
  own files, hostd/web/webpage.py);
* when the daemon is stopped (SIGTERM, Ctrl-C), ``on_shutdown`` runs first (the API ends
  its event streams: a page left open on a phone never ends one by itself, and uvicorn
  would wait for it for ever, so systemd would kill the daemon before it stopped the
  table's step and closed the journal); requests still running after SHUTDOWN_S are
  cancelled.

Behind a TLS proxy on the same host (caddy, nginx: docs/DEPLOY.md): ``X-Forwarded-Proto``
and ``X-Forwarded-For`` are honoured from loopback only (TRUSTED_PROXIES), so the API sees
the browser's scheme (``https``: its Origin matches, the pairing cookie is ``Secure``) and
address (each browser's own limit on wrong pairing codes).  From any other address they
are ignored; ``$FORWARDED_ALLOW_IPS`` (uvicorn's) cannot widen that.

``make_server(app, host, port, on_shutdown=None)`` returns a ``uvicorn.Server``;
``await server.serve()``.
"""

import uvicorn
from starlette.middleware.gzip import GZipMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 64
MAX_HEADER_BYTES = 16 * 1024
KEEP_ALIVE_S = 5
SHUTDOWN_S = 2  # then requests still running as the daemon stops are cancelled
TRUSTED_PROXIES = "127.0.0.1,::1"  # whose X-Forwarded-Proto / -For count: a proxy on this host
COMPRESS_MIN_BYTES = 500
COMPRESS_LEVEL = 6  # a status of 5 KB in well under a millisecond on a Raspberry Pi


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for a request's headers and a cap on open
    connections."""

    header_timeout_s = HEADER_TIMEOUT_S
    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport):
        super().connection_made(transport)
        self._header_timer = None
        if len(self.connections) > self.max_connections:
            self.logger.warning("connection refused: %d connections are open (the most "
                                "this API keeps)", len(self.connections) - 1)
            transport.close()
            return
        self._arm_header_timer()

    def _arm_header_timer(self):
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timeout)

    def _cancel_header_timer(self):
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _header_timeout(self):
        self._header_timer = None
        if not self.transport.is_closing():
            self.logger.info("connection closed: request headers not complete within %g s",
                             self.header_timeout_s)
            self.transport.close()

    def handle_events(self):
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:  # a request's headers arrived whole
            self._cancel_header_timer()

    def on_response_complete(self):
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_timer()  # the next request's headers have the same deadline

    def connection_lost(self, exc):
        self._cancel_header_timer()
        super().connection_lost(exc)


def compressed(app):
    """``app`` with its answers over COMPRESS_MIN_BYTES gzipped (not event streams, not
    what is already encoded)."""
    return GZipMiddleware(app, minimum_size=COMPRESS_MIN_BYTES, compresslevel=COMPRESS_LEVEL)


def make_config(app, host="127.0.0.1", port=8737, **kw):
    opts = dict(host=host, port=port, http=GuardedH11Protocol, log_config=None,
                log_level="warning", lifespan="off", timeout_keep_alive=KEEP_ALIVE_S,
                timeout_graceful_shutdown=SHUTDOWN_S,
                h11_max_incomplete_event_size=MAX_HEADER_BYTES, server_header=False,
                # X-Forwarded-Proto / -For from a proxy on this host only; the Host is
                # always what came in (the proxy passes the browser's on: docs/DEPLOY.md)
                proxy_headers=True, forwarded_allow_ips=TRUSTED_PROXIES)
    opts.update(kw)
    return uvicorn.Config(compressed(app), **opts)


class Server(uvicorn.Server):
    """uvicorn's server, which calls ``on_shutdown()`` as it begins to shut down, before it
    waits for the requests still running."""

    def __init__(self, config, on_shutdown=None):
        super().__init__(config)
        self.on_shutdown = on_shutdown

    async def shutdown(self, sockets=None):
        if self.on_shutdown is not None:
            self.on_shutdown()
        await super().shutdown(sockets)


def make_server(app, host="127.0.0.1", port=8737, on_shutdown=None, **kw):
    return Server(make_config(app, host, port, **kw), on_shutdown=on_shutdown)


def bind_socket(host, port):
    """A listening socket on ``host:port`` (IPv6 when ``host`` is an IPv6 address), bound
    before the daemon says it is up, so a clash is an error, not a line after "daemon
    up".  Raises OSError (e.g. address already in use)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock
