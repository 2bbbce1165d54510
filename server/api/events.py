"""Live progress as server-sent events: one ``case`` event per graded case, then ``done``.

Workers may run in other processes or on other machines, so the stream follows the database
(the cases a worker has recorded so far), which is also what polling clients read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from ..models import DONE
from .deps import EngineDep, UserDep
from .submissions import present, visible

router = APIRouter(prefix="/api/submissions", tags=["submissions"])
POLL_S = 0.2
HEARTBEAT_S = 15.0


def _event(name: str, data: object, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data, default=str)}\n\n"


@router.get("/{submission_id}/events", response_class=StreamingResponse, responses={
    200: {"content": {"text/event-stream": {}},
          "description": "events: status, case (id = case index), done (the submission)"}})
async def submission_events(submission_id: int, request: Request, user: UserDep,
                            engine: EngineDep) -> StreamingResponse:
    """Follow one submission: ``status`` on each change, ``case`` per graded case, ``done``."""
    def load():
        with Session(engine) as session:
            return present(visible(session, submission_id, user), user)

    first = await run_in_threadpool(load)  # 404 before the stream starts
    seen = int(request.headers.get("last-event-id", "-1")) + 1
    return StreamingResponse(_stream(first, load, seen, request),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _stream(current, load, seen: int, request: Request) -> AsyncIterator[str]:
    status = None
    idle = 0.0
    while True:
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
