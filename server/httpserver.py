"""uvicorn with limits for serving on its own (``make serve``): a cap on open connections (more
are closed at once), a deadline for each request's head and body (an idle or trickling
connection is closed), header size (h11's bound; httptools has none), concurrency and
keep-alive.

uvicorn is used through its public configuration only: ``http=`` takes an asyncio protocol
class, here :class:`GuardedProtocol`, which wraps the h11 protocol as a black box (it only
forwards the ``asyncio.Protocol`` calls), and the app is wrapped in :class:`Deadlines`, which
tells the connection's guard when a request's body has been read and when its answer is done.
The guard reaches the request through a context variable: uvicorn starts each request's task
in ``data_received``, and a task inherits the context it was created in.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import resource
from typing import Any, cast

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol

from .settings import Settings

log = logging.getLogger("server")
SPARE_FILES = 256  # open files kept for the database, logs and sandboxes
#: the connection whose bytes are being handled (its requests' tasks inherit it)
CONNECTION: contextvars.ContextVar[GuardedProtocol | None] = contextvars.ContextVar(
    "connection", default=None)


class GuardedProtocol(asyncio.Protocol):
    """h11 with a connection cap and a deadline for each request's head and body."""

    max_connections = 1024
    head_timeout_s = 10.0
    open = 0  # connections open now, in this process

    def __init__(self, **uvicorn_arguments: Any) -> None:
        self.inner = H11Protocol(**uvicorn_arguments)
        self.transport: asyncio.BaseTransport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.refused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Count the connection; close it at once past the cap, else start its request deadline."""
        GuardedProtocol.open += 1
        self.transport = transport
        if GuardedProtocol.open > self.max_connections:
            self.refused = True
            transport.abort()  # type: ignore[attr-defined]  # a stream transport
            return
        self.inner.connection_made(transport)  # type: ignore[arg-type]  # a stream transport
        self.request_done()

    def data_received(self, data: bytes) -> None:
        """Hand the bytes to h11, with this connection as the context its requests start in."""
        token = CONNECTION.set(self)
        try:
            self.inner.data_received(data)
        finally:
            CONNECTION.reset(token)

    def eof_received(self) -> None:
        self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the deadline; uncount the connection."""
        GuardedProtocol.open -= 1
        self._cancel()
        if not self.refused:
            self.inner.connection_lost(exc)

    def body_read(self) -> None:
        """The request's head and body are in: no deadline while the app answers."""
        self._cancel()

    def request_done(self) -> None:
        """Start the deadline for the next request's head and body."""
        self._cancel()
        if self.transport is not None and not self.transport.is_closing():
            self.timer = asyncio.get_running_loop().call_later(self.head_timeout_s, self._expire)

    def _expire(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()  # no request came, or its body is still arriving

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class Deadlines:
    """ASGI middleware: tells the request's :class:`GuardedProtocol` when its body has been read
    (at once when it has none) and when its answer is done."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        connection = CONNECTION.get()
        if scope["type"] != "http" or connection is None:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if headers.get(b"content-length", b"0") in (b"0", b"") and \
                b"transfer-encoding" not in headers:
            connection.body_read()

        async def reading() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                connection.body_read()
            return message

        try:
            await self.app(scope, reading, send)
        finally:
            connection.request_done()


def raise_file_limit() -> int:
    """Raise this process's open-file limit to its hard limit; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def serve(app: ASGIApp, settings: Settings, host: str, port: int) -> None:
    """Run ``app`` with uvicorn and every limit set."""
    files = raise_file_limit()
    cap = max(16, min(settings.max_connections, files - SPARE_FILES))
    GuardedProtocol.max_connections = cap
    GuardedProtocol.head_timeout_s = settings.head_timeout_s
    proxies = settings.trusted_proxies
    if proxies:  # inside Deadlines, so that it sees the connection's own context
        app = cast(ASGIApp, ProxyHeadersMiddleware(cast(Any, app), trusted_hosts=proxies))
    log.info("serving on %s:%s: at most %d connections, headers up to %d bytes, idle %.0f s",
             host, port, cap, settings.max_header_bytes, settings.idle_timeout_s)
    uvicorn.run(Deadlines(app), host=host, port=port, log_level="info", access_log=False,
                http=GuardedProtocol, h11_max_incomplete_event_size=settings.max_header_bytes,
                limit_concurrency=cap, timeout_keep_alive=int(max(1, settings.idle_timeout_s)),
                timeout_graceful_shutdown=5, backlog=2048, server_header=False,
                proxy_headers=False)
