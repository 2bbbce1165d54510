"""ASGI middleware, the outermost layer: request ids and an access log, the ``Host`` allow-list,
a cap on request bodies (413), security and isolation headers, and one log line (never a
traceback in the answer) for an unexpected error."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import secrets
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import database_unavailable, internal_error

access_log = logging.getLogger("server.access")

#: cross-origin isolation, so the browser runner may use SharedArrayBuffer
ISOLATION = [(b"cross-origin-opener-policy", b"same-origin"),
             (b"cross-origin-embedder-policy", b"require-corp"),
             (b"cross-origin-resource-policy", b"same-origin")]
#: the API docs' pages (self-hosted assets and an inline start-up script), not isolated
DOCS = ("/docs", "/redoc")
#: no third-party script anywhere; WebAssembly (Pyodide) and workers from this origin
APP_CSP = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
           "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
           "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; "
           "form-action 'self'; frame-ancestors 'none'")
#: the API docs' pages: their own inline start-up script allowed by its hash, no other
DOCS_CSP = ("default-src 'self'; script-src 'self' {hashes}; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; "
            "object-src 'none'; base-uri 'self'; frame-ancestors 'none'")
#: an inline script's text (a ``<script>`` without ``src``)
INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)
SECURITY = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
            (b"x-frame-options", b"DENY")]


def docs_csp(html: bytes) -> bytes:
    """The policy for a docs page ``html``: its inline scripts by SHA-256, no ``unsafe-inline``."""
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'"
                      for script in INLINE_SCRIPT.findall(html))
    return DOCS_CSP.format(hashes=hashes).encode()


def hashing_scripts(send: Send) -> Send:
    """``send`` for a docs page: the answer is held until its body is complete, then sent with
    the CSP that allows exactly its own inline scripts."""
    held: list[Message] = []

    async def hashed_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            held.append(message)
        elif message["type"] == "http.response.body" and held:
            held.append(message)
            if not message.get("more_body"):
                start, *parts = held
                held.clear()
                body = b"".join(part.get("body", b"") for part in parts)
                start["headers"] = [*start.get("headers", []),
                                    (b"content-security-policy", docs_csp(body))]
                await send(start)
                await send({"type": "http.response.body", "body": body})
        else:
            await send(message)

    return hashed_send


class BodyTooLarge(Exception):
    """A request body went past the limit while it was being read."""


def host_name(host: str) -> str:
    """A ``Host`` header's name without its port (``[::1]:8000`` -> ``[::1]``), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """Refuses unknown hosts (400) and bodies over ``max_body`` bytes (413), adds headers,
    logs each request in one line, and answers an unexpected error with a bare 500."""

    def __init__(self, app: ASGIApp, max_body: int, allowed_hosts: list[str]) -> None:
        self.app = app
        self.max_body = max_body
        self.any_host = "*" in allowed_hosts
        self.allowed = {host_name(h) for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Guard one HTTP request (other scopes pass straight through) and log it in one line."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = secrets.token_hex(6)
        scope.setdefault("state", {})["request_id"] = rid
        headers = dict(scope["headers"])
        path = scope["path"]
        docs = path.startswith(DOCS)
        exchange = _Exchange(receive, send, _added_headers(rid, docs), self.max_body)
        started_at = time.monotonic()
        try:
            await self._admit(scope, headers, exchange, docs)
        except Exception as exc:  # noqa: BLE001 - logged in one line; the caller sees the id
            await _answer_error(scope, receive, exchange, rid, path, exc)
        finally:
            _log_access(scope, rid, path, exchange.status, started_at)

    async def _admit(self, scope: Scope, headers: dict[bytes, bytes], exchange: _Exchange,
                     docs: bool) -> None:
        """Refuse an unknown host (400) or a declared body over the limit (413), else run the app."""
        host = headers.get(b"host", b"").decode("latin-1")
        length = headers.get(b"content-length")
        if not (self.any_host or host_name(host) in self.allowed):
            await _answer(exchange.send, 400, {"detail": "unknown host", "code": "bad_host",
                                               "message_zh": "未知的主机名"})
        elif length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _too_large(exchange.send, self.max_body)
        else:
            try:
                await self.app(scope, exchange.receive,
                               hashing_scripts(exchange.send) if docs else exchange.send)
            except BodyTooLarge:
                if not exchange.status:
                    await _too_large(exchange.send, self.max_body)


class _Exchange:
    """One request's traffic through the guard: the answer's status once started, and the
    body bytes read so far."""

    def __init__(self, receive: Receive, send: Send, added: list[tuple[bytes, bytes]],
                 max_body: int) -> None:
        self._receive = receive
        self._send = send
        self.added = added
        self.max_body = max_body
        self.status = 0
        self.received = 0

    async def send(self, message: Message) -> None:
        """Pass ``message`` on, noting the status and adding the guard's headers at the start."""
        if message["type"] == "http.response.start":
            self.status = message["status"]
            message["headers"] = [*message.get("headers", []), *self.added]
        await self._send(message)

    async def receive(self) -> Message:
        """The next request message; ``BodyTooLarge`` once the body read passes the limit."""
        message = await self._receive()
        self.received += len(message.get("body", b""))
        if self.received > self.max_body:
            raise BodyTooLarge
        return message


def _added_headers(rid: str, docs: bool) -> list[tuple[bytes, bytes]]:
    """The headers added to every answer: security, the request id, CSP and isolation (not docs)."""
    return [*SECURITY, (b"x-request-id", rid.encode()),
            *([] if docs else [(b"content-security-policy", APP_CSP.encode()), *ISOLATION])]


async def _answer_error(scope: Scope, receive: Receive, exchange: _Exchange, rid: str, path: str,
                        exc: Exception) -> None:
    """Log ``exc`` in one line and, if no answer has started, answer 503 or a bare 500."""
    unavailable = database_unavailable(scope["method"], path, exc)
    if unavailable is not None:
        if not exchange.status:
            await unavailable(scope, receive, exchange.send)
    elif not exchange.status:
        response = internal_error(rid, scope["method"], path, exc)
        await response(scope, receive, exchange.send)
    else:
        internal_error(rid, scope["method"], path, exc)


def _log_access(scope: Scope, rid: str, path: str, status: int, started_at: float) -> None:
    """Write the request's access-log line: client, id, method, path, status and duration."""
    client = scope.get("client") or ("-", 0)
    access_log.info("%s %s %s %s %s %.1fms", client[0], rid, scope["method"],
                    path[:200].encode("unicode_escape").decode("ascii"), status or "-",
                    (time.monotonic() - started_at) * 1e3)


async def _answer(send: Send, status: int, body_obj: dict[str, Any]) -> None:
    body = json.dumps(body_obj).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _too_large(send: Send, limit: int) -> None:
    await _answer(send, 413, {"detail": f"request body over {limit} bytes", "code": "too_large",
                              "message_zh": f"请求体超过 {limit} 字节"})
