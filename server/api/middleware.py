"""ASGI middleware: a cap on request bodies (413) and the isolation headers the web app needs."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: cross-origin isolation, so the browser runner may use SharedArrayBuffer
ISOLATION = [(b"cross-origin-opener-policy", b"same-origin"),
             (b"cross-origin-embedder-policy", b"require-corp"),
             (b"cross-origin-resource-policy", b"same-origin")]
#: pages that load Swagger/ReDoc assets from a CDN, which require-corp would block
NOT_ISOLATED = ("/docs", "/redoc")


class BodyTooLarge(Exception):
    """A request body went past the limit while it was being read."""


class Guard:
    """Refuses bodies over ``max_body`` bytes with 413 and adds COOP/COEP/CORP headers."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _too_large(send, self.max_body)
            return
        isolate = not scope["path"].startswith(NOT_ISOLATED)
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.max_body:
                raise BodyTooLarge
            return message

        async def headed_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if isolate:
                    message["headers"] = [*message.get("headers", []), *ISOLATION]
            await send(message)

        try:
            await self.app(scope, counted_receive, headed_send)
        except BodyTooLarge:
            if not started:
                await _too_large(send, self.max_body)


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps({"detail": f"request body over {limit} bytes"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *ISOLATION]})
    await send({"type": "http.response.body", "body": body})
