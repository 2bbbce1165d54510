"""``/healthz``: 200 while the judge can judge, 503 with the reasons when it cannot."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from ... import health, jobqueue, outage
from ...models import utcnow

router = APIRouter(tags=["health"])


class WorkerHealth(BaseModel):
    """A worker's last report on its sandboxes."""

    id: str
    host: str
    sandbox: str
    ready: int
    failed_starts: int
    failing: bool


class HealthOut(BaseModel):
    """Whether the judge can judge, and why not."""

    status: Literal["ok", "degraded"]
    reasons: list[str]
    notes: list[str]  # a failing part the rest of the judge covers for
    queue: dict[str, int]  # submissions by status
    oldest_queued_s: float | None
    workers: int  # embedded workers alive
    reporting_workers: list[WorkerHealth]  # workers that reported their sandboxes' health
    sandbox: str


@router.get("/healthz", response_model=HealthOut,
            responses={503: {"model": HealthOut, "description": "degraded: see `reasons`"}})
async def healthz(request: Request) -> JSONResponse:
    """The database answers and takes writes; queue counts, embedded workers and each worker's
    sandbox health. 503 ``degraded`` with the reasons when the database cannot be read or
    written (or the data directory's disk is full), no sandbox can start on any worker, the
    embedded workers have not reported for three heartbeats, or no worker has claimed a queued
    job for ``CJUDGE_STALL_S`` seconds; ``notes`` name a failing worker the others cover for."""
    state = request.app.state
    settings = state.settings
    supervisor = state.supervisor
    since = getattr(supervisor, "started_at", None) or utcnow()

    def read() -> tuple[dict[str, int], health.Health]:
        try:
            with Session(state.engine) as session:
                found = (jobqueue.counts(session),
                         health.check(session, settings, since, supervisor.count))
        except Exception as exc:
            if not outage.unavailable(exc):
                raise
            return {}, health.Health([f"the database cannot be read: {outage.reason(exc)}"])
        found[1].reasons += [problem for problem in (
            health.write_probe(state.engine),
            None if settings.database_url else health.disk_problem(settings.data_dir))
            if problem]
        return found

    queue, judged = await run_in_threadpool(read)
    body = HealthOut(status="ok" if judged.ok else "degraded", reasons=judged.reasons,
                     notes=judged.notes, queue=queue, oldest_queued_s=judged.oldest_wait_s,
                     workers=supervisor.alive(),
                     reporting_workers=[WorkerHealth.model_validate(w) for w in judged.workers],
                     sandbox=settings.sandbox)
    return JSONResponse(body.model_dump(mode="json"), status_code=200 if judged.ok else 503)
