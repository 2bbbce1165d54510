"""Idle workers against the database (issue 26's numbers), on this machine: SQLite (WAL), and
with ``--postgres`` then a throw-away PostgreSQL cluster (Debian's PostgreSQL, as root: the
tests' ``tests/server/postgres.py``).

Three ways for a worker to wait for jobs, each with ``--workers`` idle worker processes:

* ``before``: a claim (``jobqueue.claim``) inside the write lock (SQLite) or a locking
  transaction (Postgres) every 50 ms, as workers did before issue 26;
* ``backoff``: ``worker.claim_next`` (a read-only look first; the lock only when a job waits)
  with the worker's waits (``worker.idle_waits``: 50 ms doubling up to 200 ms) as sleeps;
* ``after``: the same waits on the worker's ``Doorbell``, which the queueing of a job rings
  (the API's ring on this machine for SQLite, as ``claims`` does here; on Postgres only the
  ``NOTIFY`` at commit, which is what reaches workers on other machines).

Measured for each: (1) the cost to other writers: how often each idle worker looks at the
queue and takes the write lock, and the latency of short write transactions (one row updated,
5 ms apart) for ``--seconds`` while the workers idle, against the same with no worker; (2) claim
latency: jobs enqueued one at a time at random moments 0.5-1.5 s apart, each claimed and
finished by a worker; the time from enqueue to claim.

    python benchmarks/idle_workers.py [--workers 4] [--seconds 5] [--jobs 20] [--postgres]
                                      [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import update

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "practice"))

from server import doorbell, jobqueue, worker  # noqa: E402
from server.accounts import create_user  # noqa: E402
from server.db import make_engine, migrate, write_session  # noqa: E402
from server.models import DONE, Exercise, Submission, utcnow  # noqa: E402
from server.settings import Settings  # noqa: E402

OLD_POLL_S = 0.05  # the fixed wait between claims of workers before issue 26
POLICIES = ("before", "backoff", "after")


def idle_worker(url: str, policy: str, name: str, stop: object, ready: object,
                looks: object) -> None:
    """A worker that claims as ``policy`` says and finishes each job at once; it counts its
    looks at the queue in ``looks`` (each one a write transaction ``before``)."""
    settings = Settings(database_url=url)
    engine = make_engine(url)
    waits = worker.idle_waits(settings.poll_s, settings.idle_poll_max_s)
    bell = doorbell.Doorbell(url, name) if policy == "after" else None
    ready.release()  # type: ignore[attr-defined]
    while not stop.is_set():  # type: ignore[attr-defined]
        with looks.get_lock():  # type: ignore[attr-defined]
            looks.value += 1  # type: ignore[attr-defined]
        looked_at = utcnow()
        if policy == "before":
            with write_session(engine) as session:
                claim = jobqueue.claim(session, name, settings.lease_s, settings.max_attempts)
        else:
            claim = worker.claim_next(engine, name, settings)
        if claim is None:
            if bell is not None:
                if bell.wait(next(waits)):
                    waits = worker.idle_waits(settings.poll_s, settings.idle_poll_max_s)
            else:
                time.sleep(OLD_POLL_S if policy == "before" else next(waits))
            continue
        claimed_at = utcnow()  # the job is this worker's
        waits = worker.idle_waits(settings.poll_s, settings.idle_poll_max_s)
        with write_session(engine) as session:  # when it looked, and when it held the job
            session.exec(update(Submission).where(Submission.id == claim.id)  # type: ignore[call-overload]
                         .values(status=DONE, verdict="accepted", started_at=looked_at,
                                 finished_at=claimed_at))
    if bell is not None:
        bell.close()


def percentiles(values: list[float]) -> dict[str, float]:
    """p50, p99 and max of ``values`` in ms."""
    ordered = sorted(values)
    return {"n": len(ordered), "p50_ms": round(statistics.median(ordered) * 1e3, 3),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e3, 3),
            "max_ms": round(ordered[-1] * 1e3, 3)}


def writes(engine, seconds: float) -> dict[str, float]:
    """Latency of short write transactions for ``seconds``."""
    took, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        with write_session(engine) as session:
            session.exec(update(Exercise).where(Exercise.id == "ex")  # type: ignore[call-overload]
                         .values(starter=f"{start}"))
        took.append(time.perf_counter() - start)
        time.sleep(0.005)
    return percentiles(took)


def claims(engine, settings: Settings, user_id: int, jobs: int) -> dict[str, object]:
    """Enqueue ``jobs`` one at a time at random moments, ringing this machine's doorbells
    after each commit as the API does (SQLite). From each commit's start: ``look``, until the
    worker began the look that found the job (negative when that look was already waiting for
    the lock the enqueue held); ``claim``, until its claim returned the job."""
    committed = {}
    for _ in range(jobs):
        time.sleep(random.uniform(0.5, 1.5))
        with write_session(engine) as session:
            job_id = jobqueue.enqueue(session, settings, user_id, "ex", "h", "x", "a.py").id
            committed[job_id] = utcnow()  # just before the commit: never after the claim
        if settings.url.startswith("sqlite"):  # Postgres: NOTIFY alone, as across machines
            doorbell.ring(settings.url)
    time.sleep(1.0)
    with write_session(engine) as session:
        rows = {i: session.get_one(Submission, i) for i in committed}
        moments = {i: (r.started_at, r.finished_at) for i, r in rows.items() if r.finished_at}
    looked = [(_aware(s) - committed[i]).total_seconds() for i, (s, _) in moments.items()]
    held = [(_aware(f) - committed[i]).total_seconds() for i, (_, f) in moments.items()]
    return {"look": percentiles(looked), "claim": percentiles(held),
            "unclaimed": len(committed) - len(moments)}


def _aware(moment: datetime) -> datetime:
    """SQLite gives back naive UTC datetimes."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def run(policy: str, workers: int, seconds: float, jobs: int,
        database_url: str | None) -> dict[str, object]:
    """Both measures for ``policy`` with ``workers`` idle workers, in a fresh database
    (``database_url``, else SQLite in a temporary directory)."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), database_url=database_url, rate_per_minute=10**6,
                            max_queued_per_user=10**6, max_pending_per_ip=10**6)
        migrate(settings.url)
        engine = make_engine(settings.url)
        with write_session(engine) as session:
            session.add(Exercise(id="ex", title_en="t", title_zh="t", statement_en="",
                                 statement_zh="", starter="", content_hash="h"))
            user_id = create_user(session, "bench", "password").id
        alone = writes(engine, seconds)
        ctx = mp.get_context("spawn")
        stop, ready, looks = ctx.Event(), ctx.Semaphore(0), ctx.Value("l", 0)
        procs = [ctx.Process(target=idle_worker,
                             args=(settings.url, policy, f"w{i}", stop, ready, looks))
                 for i in range(workers)]
        for p in procs:
            p.start()
        try:
            for _ in procs:
                ready.acquire()  # each imported and connected
            time.sleep(2.0)  # idle (the "after" waits at their longest)
            before_looks = looks.value
            busy = writes(engine, seconds)
            rate = (looks.value - before_looks) / seconds / max(1, workers)
            claimed = claims(engine, settings, user_id, jobs)
        finally:
            stop.set()
            for p in procs:
                p.join()
        engine.dispose()
    return {"policy": policy, "database": settings.url.split(":")[0], "workers": workers,
            "writes_no_worker": alone,
            "writes_idle_workers": busy, "claim": claimed,
            "looks_per_s_per_worker": round(rate, 2),
            "write_locks_per_s_per_worker": round(rate, 2) if policy == "before" else 0.0}


def main() -> None:
    """Measure every policy and print (``--json``: also write) the numbers."""
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--jobs", type=int, default=20)
    p.add_argument("--postgres", action="store_true",
                   help="then the same on a throw-away PostgreSQL cluster")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    results = [run(policy, args.workers, args.seconds, args.jobs, None) for policy in POLICIES]
    if args.postgres:
        sys.path.insert(0, str(REPO / "tests" / "server"))
        from postgres import cluster, new_database

        with cluster() as server:
            results += [run(policy, args.workers, args.seconds, args.jobs, new_database(server))
                        for policy in POLICIES]
    for r in results:
        w, alone, c = r["writes_idle_workers"], r["writes_no_worker"], r["claim"]
        print(f"{r['database']} {r['policy']:7} {r['workers']} idle workers: "
              f"{r['looks_per_s_per_worker']} looks/s and "
              f"{r['write_locks_per_s_per_worker']} write locks/s each; writes p50/p99 "
              f"{w['p50_ms']}/{w['p99_ms']} ms (no worker {alone['p50_ms']}/{alone['p99_ms']}); "
              f"look p50/p99 {c['look']['p50_ms']}/{c['look']['p99_ms']} ms, "
              f"claim p50/p99 {c['claim']['p50_ms']}/{c['claim']['p99_ms']} ms"
              f" ({c['unclaimed']} unclaimed)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
