"""uvicorn with limits for serving on its own (``make serve``): a cap on open connections (more
are closed at once), a deadline for each request's head and body (an idle or trickling
connection is closed), header size (h11's bound; httptools has none), concurrency and
keep-alive."""

from __future__ import annotations

import asyncio
import logging
import resource

import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from .settings import Settings

log = logging.getLogger("server")
SPARE_FILES = 256  # open files kept for the database, logs and sandboxes


class GuardedH11Protocol(H11Protocol):
    """h11 with a connection cap and a deadline for each request's head and body."""

    max_connections = 1024
    head_timeout_s = 10.0

    def connection_made(  # type: ignore[override]  # uvicorn's own narrower signature
            self, transport: asyncio.Transport) -> None:
        """Count the connection; close it at once past the cap, else start its request deadline."""
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        if len(self.connections) > self.max_connections:
            transport.abort()
            return
        self._arm_head_timer()

    def on_response_complete(self) -> None:
        """After each response the next request has the same deadline."""
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the head deadline."""
        timer: asyncio.TimerHandle | None = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
        super().connection_lost(exc)

    def _arm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        cycle = self.cycle

        def expire() -> None:
            current = self.cycle
            if self.transport.is_closing():
                return
            if current is cycle or (current.more_body and not current.response_complete):
                self.transport.close()  # no new request began, or its body is still arriving

        self._head_timer = self.loop.call_later(self.head_timeout_s, expire)


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
    GuardedH11Protocol.max_connections = cap
    GuardedH11Protocol.head_timeout_s = settings.head_timeout_s
    proxies = settings.trusted_proxies
    log.info("serving on %s:%s: at most %d connections, headers up to %d bytes, idle %.0f s",
             host, port, cap, settings.max_header_bytes, settings.idle_timeout_s)
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=False,
                http=GuardedH11Protocol, h11_max_incomplete_event_size=settings.max_header_bytes,
                limit_concurrency=cap, timeout_keep_alive=int(max(1, settings.idle_timeout_s)),
                timeout_graceful_shutdown=5, backlog=2048, server_header=False,
                proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None)
