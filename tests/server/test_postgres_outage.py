"""Postgres stopped and started under a running server: /healthz and every request answer 503
with the reason and Retry-After (never 500), the outage is one line of log, and the server
serves again once Postgres is back (issue 41)."""

from __future__ import annotations

import logging
import os
import subprocess
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from postgres import cluster, new_database, pg_bin
from test_queue import ready_workers, start_worker, wait_until

from server import outage
from server.api import errors
from server.api.app import create_app
from server.db import make_engine, migrate
from server.localserver import START_S
from server.settings import Settings


def pg_ctl(url: str, action: str) -> None:
    """Stop or start the test cluster of ``url`` (its socket directory holds its data)."""
    query = parse_qs(urlsplit(url).query)
    base, port = Path(query["host"][0]), query["port"][0]
    bindir = pg_bin()
    assert bindir is not None
    options = ["-o", f"-k {base} -p {port} -c listen_addresses=''"] if action == "start" else []
    subprocess.run(["runuser", "-u", "postgres", "--", str(bindir / "pg_ctl"), "-D",
                    str(base / "data"), "-w", "-m", "fast", "-l", str(base / "log"), *options,
                    action], check=True, capture_output=True, timeout=120)


def test_postgres_stopped_and_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      caplog) -> None:
    if pg_bin() is None:
        pytest.skip("PostgreSQL is not installed here")
    monkeypatch.setattr(errors, "OUTAGE", outage.OutageLog(errors.log))
    caplog.set_level(logging.WARNING, "server.api")
    submission = {"exercise": "ring-allreduce", "code": "x = 1\n"}
    with cluster() as server_url:
        url = new_database(server_url)
        settings = Settings(data_dir=tmp_path / "data", database_url=url, workers=0,
                            sandbox="none", allowed_hosts="testserver")
        with TestClient(create_app(settings, embedded_workers=False)) as c:
            assert c.post("/api/auth/register", json={
                "username": "learner", "password": "correct horse battery"}).status_code == 201
            assert c.get("/healthz").status_code == 200
            pg_ctl(server_url, "stop")
            try:
                health = c.get("/healthz")
                posts = [c.post("/api/submissions", json=submission) for _ in range(10)]
            finally:
                pg_ctl(server_url, "start")
            deadline = time.monotonic() + 60  # a bound for a hang: the pool reconnects at once
            while c.get("/healthz").status_code != 200:
                assert time.monotonic() < deadline, c.get("/healthz").json()
                time.sleep(0.2)
            accepted = c.post("/api/submissions", json=submission)
    assert health.status_code == 503
    assert health.json()["reasons"][0].startswith("the database cannot be read: ")
    assert {p.status_code for p in posts} == {503}
    assert {p.json()["code"] for p in posts} == {"database_unavailable"}
    assert {p.headers["Retry-After"] for p in posts} == {str(outage.RETRY_AFTER_S)}
    assert accepted.status_code == 202, accepted.text
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1, lines  # one line for the whole outage
    print(f"\nPostgres down: /healthz {health.status_code} ({health.json()['reasons'][0]}); "
          f"10 POSTs {sorted({p.status_code for p in posts})}; {len(lines)} log line(s)")


def test_a_worker_outlives_a_postgres_outage_in_a_few_log_lines(tmp_path: Path) -> None:
    """A 10 s outage under an idle worker process (a crash loop wrote 1632 lines): it keeps
    running, says so in a few lines, and reports again once Postgres is back."""
    if pg_bin() is None:
        pytest.skip("PostgreSQL is not installed here")
    with cluster() as server_url:
        url = new_database(server_url)
        migrate(url)
        log = tmp_path / "worker.log"
        env = {**os.environ, "CJUDGE_DATABASE_URL": url, "CJUDGE_SANDBOX": "none",
               "CJUDGE_DATA_DIR": str(tmp_path / "data"), "CJUDGE_HEARTBEAT_S": "1"}
        proc = start_worker(env, "w", log)
        try:
            engine = make_engine(url)
            wait_until(lambda: bool(ready_workers(engine)), START_S, "the worker reports",
                       [log])
            engine.dispose()
            before = len(log.read_text().splitlines())
            pg_ctl(server_url, "stop")
            time.sleep(10)  # the outage's length, not a wait for a result
            pg_ctl(server_url, "start")
            engine = make_engine(url)
            wait_until(lambda: bool(ready_workers(engine)), 60, "the worker reports again",
                       [log])
            engine.dispose()
            assert proc.poll() is None, log.read_text()[-2000:]
        finally:
            proc.kill()
            proc.wait()
    lines = log.read_text().splitlines()[before:]
    print(f"\n10 s Postgres outage: {len(lines)} worker log line(s):", *lines, sep="\n")
    assert 1 <= len(lines) <= 4, lines
