"""A NUL character in a request's path, query or JSON body is refused with 422, on every route:
PostgreSQL's text cannot hold one (it answered 500), and SQLite would keep what Postgres
refuses."""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import json_body

#: NUL in JSON: ``\u0000`` after an even run of backslashes (``\\u0000`` is a backslash and text)
JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


def nul_in(scope: Scope, body: bytes) -> str | None:
    """Where a NUL is in the request (``path``, ``query`` or ``body``), or None."""
    if "\x00" in scope["path"]:
        return "path"
    query = scope.get("query_string", b"")
    if b"\x00" in query or b"%00" in query:
        return "query"
    if JSON_NUL.search(body):
        return "body"
    return None


def is_json(scope: Scope) -> bool:
    """Whether the request says its body is JSON."""
    content_type: bytes = dict(scope["headers"]).get(b"content-type", b"")
    return content_type.split(b";")[0].strip().lower() == b"application/json"


class RefuseNul:
    """Answers 422 ``invalid_request`` to a request with a NUL (its JSON body read whole first,
    then handed on unchanged)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        read: list[Message] = []
        if is_json(scope):
            while True:
                message = await receive()
                read.append(message)
                if message["type"] != "http.request" or not message.get("more_body", False):
                    break
        where = nul_in(scope, b"".join(m.get("body", b"") for m in read))
        if where is not None:
            issue = {"loc": [where], "msg": "a NUL character is not allowed", "type": "nul"}
            answer = json_body(422, {"detail": [issue], "code": "invalid_request",
                                     "message_zh": "请求中不能含有 NUL 字符"})
            await answer(scope, receive, send)
            return

        async def replay() -> Message:
            return read.pop(0) if read else await receive()

        await self.app(scope, replay, send)
