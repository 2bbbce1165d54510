"""A fast path for the hottest request: polling a finished submission that is already cached
for a caller already known. Anything else goes on to the regular routes (which fill the
caches), so this only skips FastAPI's routing and dependency machinery, never a check."""

from __future__ import annotations

import re

from starlette.datastructures import State
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from ..deps import cached_caller, request_claims
from .submissions import cached_for

PATH = re.compile(r"^/api/submissions/(\d+)$")


class FinishedSubmissions:
    """Answers ``GET /api/submissions/{id}`` from the done cache when the caller may see it."""

    def __init__(self, app: ASGIApp, state: State) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await self._cached(scope) if scope["type"] == "http" else None
        if body is None:
            await self.app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def _cached(self, scope: Scope) -> bytes | None:
        match = PATH.match(scope["path"])
        if scope["method"] != "GET" or match is None or len(match.group(1)) > 18:
            return None  # another route; or past any id, which the route answers with 422
        state = self.state
        claims = await request_claims(HTTPConnection(scope), state.settings.secret)
        caller = cached_caller(state.caller_cache, claims)
        return None if caller is None else cached_for(state.done_cache, int(match.group(1)), caller)
