"""Live progress as server-sent events: one ``case`` event per graded case, then ``done``.

Workers may run in other processes or on other machines, so the stream follows the database
(the cases a worker has recorded so far), which is also what polling clients read.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from ..models import DONE
from .deps import EngineDep, SettingsDep, UserDep
from .errors import ApiError
from .submissions import SubmissionId, present, visible

router = APIRouter(prefix="/api/submissions", tags=["submissions"])
POLL_S = 0.2
HEARTBEAT_S = 15.0


def _event(name: str, data: object, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data, default=str)}\n\n"


@router.get("/{submission_id}/events", response_class=StreamingResponse, responses={
    200: {"content": {"text/event-stream": {}},
          "description": "events: status, case (id = case index), done (the submission)"},
    400: {"description": "Last-Event-ID is not a case index"},
    429: {"description": "too many streams open (see Retry-After)"}})
async def submission_events(submission_id: SubmissionId, request: Request, user: UserDep,
                            settings: SettingsDep, engine: EngineDep) -> StreamingResponse:
    """Follow one submission: ``status`` on each change, ``case`` per graded case, ``done``.

    A stream ends after ``CJUDGE_STREAM_MAX_S`` (reconnect with ``Last-Event-ID``); each user
    may have ``CJUDGE_MAX_STREAMS_PER_USER`` open at once."""
    last = request.headers.get("last-event-id", "-1").strip()
    if not (last == "-1" or (last.isdigit() and len(last) <= 6)):
        raise ApiError(400, "bad_last_event_id", "Last-Event-ID must be a case index",
                       "Last-Event-ID 必须是测试点序号")

    def load():
        with Session(engine) as session:
            return present(visible(session, submission_id, user), user)

    first = await run_in_threadpool(load)  # 404 before the stream starts
    streams: dict[int, int] = request.app.state.streams
    if streams.get(user.id, 0) >= settings.max_streams_per_user:
        raise ApiError(429, "too_many_streams", "too many live-progress streams open; close one "
                       "or poll instead", "打开的实时进度连接过多，请关闭一些或改用轮询",
                       headers={"Retry-After": "5"}, retry_after=5)
    streams[user.id] = streams.get(user.id, 0) + 1
    deadline = time.monotonic() + settings.stream_max_s
    return StreamingResponse(_counted(_stream(first, load, int(last) + 1, request, deadline),
                                      streams, user.id),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _counted(stream: AsyncIterator[str], streams: dict[int, int],
                   user_id: int) -> AsyncIterator[str]:
    """``stream``, counted among ``user_id``'s open streams until it ends however it ends."""
    try:
        async for chunk in stream:
            yield chunk
    finally:
        left = streams.get(user_id, 1) - 1
        if left > 0:
            streams[user_id] = left
        else:
            streams.pop(user_id, None)


async def _stream(current, load, seen: int, request: Request,
                  deadline: float) -> AsyncIterator[str]:
    status = None
    idle = 0.0
    while time.monotonic() < deadline:
        if current.status != status:
            status = current.status
            yield _event("status", {"id": current.id, "status": status})
        cases = current.result["cases"] if current.status == DONE else current.progress
        for index in range(seen, len(cases)):
            yield _event("case", cases[index], index)
            idle = 0.0
        seen = max(seen, len(cases))
        if current.status == DONE:
            yield _event("done", current.model_dump(mode="json"))
            return
        if await request.is_disconnected():
            return
        await asyncio.sleep(POLL_S)
        idle += POLL_S
        if idle >= HEARTBEAT_S:
            idle = 0.0
            yield ": keep-alive\n\n"
        current = await run_in_threadpool(load)
