"""A submission's cases so far as server-sent events: one ``case`` event per graded case, then ``done``.

Workers may run in other processes or on other machines, so the stream follows the database
(the cases a worker has recorded so far), which is also what polling clients read: one poller
per submission in this process (``watch.Watches``), shared by all of its streams. A finished
submission's events never change: they are rendered once, kept in a cache bounded in bytes,
and sent at once (no stream stays open, no database read) to whoever reopens them. Events are
framed by FastAPI's own server-sent events support (``fastapi.sse``: its encoder and response
class).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from fastapi.sse import EventSourceResponse, format_sse_event
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from cjudge.contract.verdict_json import dumps

from ...models import DONE, Submission
from ..cache import DoneCache, FinishedEvents
from ..contract import NOT_FOUND
from ..deps import EngineDep, SettingsDep, UserDep
from ..errors import ApiError
from ..schemas import SubmissionOut
from ..watch import Watch, Watches
from .submissions import SubmissionId, cached_for, present, visible

router = APIRouter(prefix="/api/submissions", tags=["submissions"])
POLL_S = 0.05  # how often a submission's poller asks whether it changed (a one-row stamp)
HEARTBEAT_S = 15.0
#: the longest a stream waits for a change before it looks whether its client is still there
LISTEN_S = 1.0
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def _event(name: str, data: object, event_id: int | None = None) -> bytes:
    """One server-sent event ``name`` carrying ``data`` as JSON (its id: a case's index)."""
    return format_sse_event(data_str=dumps(data, default=str), event=name,
                            id=None if event_id is None else str(event_id))


# (the route returns its responses itself: declaring EventSourceResponse here would make
# FastAPI expect a generator endpoint, whose errors could not be 4xx answers before the stream)
@router.get("/{submission_id}/events", response_class=StreamingResponse, responses={
    **NOT_FOUND,
    200: {"content": {"text/event-stream": {}},
          "description": "events: status, case (id = case index), done (the submission)"},
    400: {"description": "Last-Event-ID is not a case index"},
    429: {"description": "too many streams open (see Retry-After)"}})
async def submission_events(submission_id: SubmissionId, request: Request, user: UserDep,
                            settings: SettingsDep, engine: EngineDep) -> Response:
    """Follow one submission: ``status`` on each change, ``case`` per graded case, ``done``.

    A stream ends after ``CJUDGE_STREAM_MAX_S`` (reconnect with ``Last-Event-ID``); each user
    may have ``CJUDGE_MAX_STREAMS_PER_USER`` open at once. A finished submission's events come
    at once, from a cache bounded in bytes (``CJUDGE_EVENTS_CACHE_BYTES``)."""
    last = request.headers.get("last-event-id", "-1").strip()
    if not (last == "-1" or (last.isascii() and last.isdigit() and len(last) <= 6)):
        raise ApiError(400, "bad_last_event_id", "Last-Event-ID must be a case index",
                       "Last-Event-ID 必须是测试点序号")

    seen = int(last) + 1
    cache: DoneCache[FinishedEvents] = request.app.state.events_cache
    cached = cached_for(cache, submission_id, user)
    if cached is not None:
        return _finished(cached, seen)

    def load() -> SubmissionOut:
        with Session(engine) as session:
            return present(visible(session, submission_id, user), user)

    def remember(done: SubmissionOut) -> FinishedEvents:
        events = render(done)
        cache.put(done.id, user.staff, done.user_id, events)
        return events

    first = await run_in_threadpool(load)  # 404 before the stream starts
    if first.status == DONE:
        return _finished(remember(first), seen)
    streams: dict[int, int] = request.app.state.streams
    if streams.get(user.id, 0) >= settings.max_streams_per_user:
        raise ApiError(429, "too_many_streams", "too many event streams open; close one or "
                       "poll instead", "打开的事件流过多，请关闭一些或改用轮询",
                       headers={"Retry-After": "5"}, retry_after=5)
    streams[user.id] = streams.get(user.id, 0) + 1
    deadline = time.monotonic() + settings.stream_max_s

    async def followed() -> AsyncIterator[bytes]:
        async with _watches(request, engine, settings.url).follow(submission_id) as watch:
            async for chunk in _stream(first, watch, lambda row: present(row, user), remember,
                                       seen, request, deadline):
                yield chunk

    return EventSourceResponse(_counted(followed(), streams, user.id), headers=HEADERS)


def _watches(request: Request, engine: Engine, database_url: str) -> Watches:
    """This app's pollers (made with its first stream, in its event loop; closed with the app)."""
    state = request.app.state
    if not hasattr(state, "watches"):
        state.watches = Watches(engine, POLL_S, database_url)
    watches: Watches = state.watches
    return watches


def render(done: SubmissionOut) -> FinishedEvents:
    """A finished submission's events, as bytes."""
    return FinishedEvents(
        status=_event("status", {"id": done.id, "status": done.status}),
        cases=tuple(_event("case", case, index) for index, case in enumerate(_cases(done))),
        done=format_sse_event(data_str=done.model_dump_json(), event="done"))


def _cases(current: SubmissionOut) -> list[dict[str, Any]]:
    result = current.result if current.status == DONE else None
    return [case.model_dump(mode="json")
            for case in (result.cases if result is not None else current.cases_so_far)]


def _finished(events: FinishedEvents, seen: int) -> Response:
    return Response(events.body(seen), media_type=EventSourceResponse.media_type, headers=HEADERS)


async def _counted(stream: AsyncIterator[bytes], streams: dict[int, int],
                   user_id: int) -> AsyncIterator[bytes]:
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


async def _stream(current: SubmissionOut, watch: Watch,
                  present_row: Callable[[Submission], SubmissionOut],
                  remember: Callable[[SubmissionOut], FinishedEvents], seen: int,
                  request: Request, deadline: float) -> AsyncIterator[bytes]:
    status, version = None, 0
    sent_at = time.monotonic()  # a keep-alive goes HEARTBEAT_S after the last chunk, by the clock
    while time.monotonic() < deadline:
        if current.status == DONE:  # the rest of the stream as a finished one's, kept
            events = remember(current)
            yield events.body(seen)
            return
        if current.status != status:
            status = current.status
            yield _event("status", {"id": current.id, "status": status})
            sent_at = time.monotonic()
        cases = _cases(current)
        for index in range(seen, len(cases)):
            yield _event("case", cases[index], index)
            sent_at = time.monotonic()
        seen = max(seen, len(cases))
        if await request.is_disconnected():
            return
        now = time.monotonic()
        if await watch.after(version, min(LISTEN_S, sent_at + HEARTBEAT_S - now, deadline - now)):
            version = watch.version
            current = present_row(watch.current())
        if time.monotonic() - sent_at >= HEARTBEAT_S:
            sent_at = time.monotonic()
            yield format_sse_event(comment="keep-alive")
