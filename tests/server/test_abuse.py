"""The server against an abuser with a script: sign-up floods and the database's write lock,
free accounts filling the queue, a squatted admin name, header and connection floods, and
revocable sessions. In-process apps (no workers) unless a real uvicorn is the point."""

from __future__ import annotations

import resource
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from postgres import cluster, new_database, pg_bin
from sqlmodel import Session

from server import accounts, jobqueue
from server.accounts import StartupRefused, create_user
from server.api.app import create_app
from server.api.routes import auth
from server.db import make_engine, migrate, write_session
from server.localserver import JudgeServer, start_server
from server.models import Exercise, User
from server.security import hash_password
from server.settings import Settings

GOOD = "correct horse battery"


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str | None]:
    """A PostgreSQL cluster for this module, or None where PostgreSQL is missing."""
    if pg_bin() is None:
        yield None
        return
    with cluster() as url:
        yield url


def settings_for(tmp_path: Path, database_url: str | None = None, **overrides: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=database_url, workers=0,
                    sandbox="none", allowed_hosts="testserver", **overrides)


def app_client(settings: Settings) -> TestClient:
    return TestClient(create_app(settings, embedded_workers=False))


def register(c: TestClient, username: str, password: str = GOOD, **extra: Any) -> httpx.Response:
    return c.post("/api/auth/register", json={"username": username, "password": password, **extra})


# --- 1. sign-up hashes outside the write transaction --------------------------------------

def test_signup_hashes_while_the_database_stays_writable(tmp_path: Path, monkeypatch) -> None:
    """While a sign-up's password is hashed, another process can take SQLite's write lock."""
    settings = settings_for(tmp_path)
    db_path = settings.data_dir / "judge.db"
    lock_free: list[bool] = []

    def hash_and_probe(password: str) -> str:
        probe = sqlite3.connect(db_path, timeout=0.05, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            lock_free.append(True)
        except sqlite3.OperationalError:  # "database is locked": hashing inside the write lock
            lock_free.append(False)
        finally:
            probe.close()
        return hash_password(password)

    monkeypatch.setattr(accounts, "hash_password", hash_and_probe)
    monkeypatch.setattr(auth, "hash_password", hash_and_probe, raising=False)
    with app_client(settings) as c:
        assert register(c, "learner_one").status_code == 201
    assert lock_free == [True]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_name_taken_meanwhile_is_409_not_500(tmp_path: Path, monkeypatch, backend: str,
                                               postgres_url: str | None) -> None:
    """Two sign-ups for one name pass the early check together: the unique index decides."""
    url = None
    if backend == "postgres":
        if postgres_url is None:
            pytest.skip("PostgreSQL is not installed here")
        url = new_database(postgres_url)
    monkeypatch.setattr(auth, "find_user", lambda *_: None)  # as if both checked at once
    with app_client(settings_for(tmp_path, url)) as c:
        assert register(c, "Twin").status_code == 201
        again = register(c, "twin")
        assert again.status_code == 409 and again.json()["code"] == "username_taken"


def test_hashing_is_bounded_and_the_rest_get_503(tmp_path: Path, monkeypatch) -> None:
    release = threading.Event()
    entered = threading.Event()

    def slow_hash(password: str) -> str:
        entered.set()
        release.wait(10)
        return hash_password(password)

    monkeypatch.setattr(auth, "hash_password", slow_hash, raising=False)
    monkeypatch.setattr(accounts, "hash_password", slow_hash)
    with app_client(settings_for(tmp_path, hash_concurrency=1)) as c:
        first: list[httpx.Response] = []
        thread = threading.Thread(target=lambda: first.append(register(c, "first_one")))
        thread.start()
        assert entered.wait(10)
        second = register(c, "second_one")
        release.set()
        thread.join()
    assert first[0].status_code == 201
    assert second.status_code == 503 and int(second.headers["retry-after"]) >= 1


# --- 2. accounts are not free -------------------------------------------------------------

def test_signups_per_address_are_limited(tmp_path: Path) -> None:
    with app_client(settings_for(tmp_path, signup_rate="3/minute")) as c:
        assert [register(c, f"flood_{i}").status_code for i in range(3)] == [201] * 3
        r = register(c, "flood_3")
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
        assert r.json()["retry_after"] >= 1 and int(r.headers["retry-after"]) >= 1


def test_registration_switch(tmp_path: Path) -> None:
    with app_client(settings_for(tmp_path / "closed", registration="closed")) as c:
        r = register(c, "nobody_here")
        assert r.status_code == 403 and r.json()["code"] == "registration_closed"
    with app_client(settings_for(tmp_path / "invite", registration="invite",
                                 invite_codes="course-2024-x1,other")) as c:
        assert register(c, "no_code").json()["code"] == "invite_required"
        assert register(c, "bad_code", invite="guess").status_code == 403
        assert register(c, "has_code", invite="course-2024-x1").status_code == 201
    roster = tmp_path / "roster.txt"
    roster.write_text("Listed_Learner\n")
    with app_client(settings_for(tmp_path / "roster", roster_file=roster)) as c:
        assert register(c, "not_listed").json()["code"] == "not_on_roster"
        assert register(c, "listed_learner").status_code == 201


def test_submissions_per_address_are_limited(tmp_path: Path) -> None:
    with app_client(settings_for(tmp_path, submit_rate_ip="2/minute", rate_per_minute=100,
                                 max_queued_per_user=100)) as c:
        headers = {"authorization": f"Bearer {register(c, 'submitter').json()['token']}"}
        body = {"exercise": "ring-allreduce", "code": "x = 1"}
        codes = [c.post("/api/submissions", json=body, headers=headers).status_code
                 for _ in range(3)]
        assert codes == [202, 202, 429]


@pytest.fixture(params=["sqlite", "postgres"])
def queue_db(request: pytest.FixtureRequest, tmp_path: Path, postgres_url: str | None):
    url = None
    if request.param == "postgres":
        if postgres_url is None:
            pytest.skip("PostgreSQL is not installed here")
        url = new_database(postgres_url)
    settings = Settings(data_dir=tmp_path, database_url=url, rate_per_minute=1000,
                        max_queued_per_user=1000, max_pending_per_ip=3)
    migrate(settings.url)
    engine = make_engine(settings.url)
    with write_session(engine) as s:
        s.add(Exercise(id="ex", title_en="t", title_zh="t", statement_en="", statement_zh="",
                       starter="", content_hash="h"))
        users = [create_user(s, name, "password").id for name in ("flooder", "honest")]
    yield engine, settings, users
    engine.dispose()


def test_claims_go_to_the_user_with_fewest_running(queue_db) -> None:
    engine, settings, (flooder, honest) = queue_db
    with write_session(engine) as s:
        flood = [jobqueue.enqueue(s, settings, flooder, "ex", "h", "x", "a.py").id
                 for _ in range(5)]
        mine = jobqueue.enqueue(s, settings, honest, "ex", "h", "x", "a.py").id
    claimed = []
    for worker in ("w1", "w2", "w3"):
        with write_session(engine) as s:
            claimed.append(jobqueue.claim(s, worker, 30, 3).id)
    # the flood's oldest first (nobody runs anything), then the honest job, then the flood again
    assert claimed == [flood[0], mine, flood[1]]


def test_claims_go_to_the_address_with_fewest_running(queue_db) -> None:
    """Many accounts from one address: another address's job still goes next."""
    engine, settings, (flooder, honest) = queue_db
    settings = settings.model_copy(update={"max_pending_per_ip": 100})
    with write_session(engine) as s:
        accounts_ = [flooder] + [create_user(s, f"sock_{i}", "password").id for i in range(3)]
        flood = [jobqueue.enqueue(s, settings, user, "ex", "h", "x", "a.py", client_ip="10.0.0.1"
                                  ).id for user in accounts_ for _ in range(2)]
        mine = jobqueue.enqueue(s, settings, honest, "ex", "h", "x", "a.py",
                                client_ip="10.0.0.2").id
    claimed = []
    for worker in ("w1", "w2", "w3"):
        with write_session(engine) as s:
            claimed.append(jobqueue.claim(s, worker, 30, 3).id)
    # every flooding account has nothing running, but their address has one job running
    assert claimed == [flood[0], mine, flood[2]]


def test_one_worker_serves_the_least_recently_served_first(queue_db) -> None:
    """One worker: nothing runs when it claims, so the address and user served least
    recently go first (round robin), not the oldest job of the flood."""
    engine, settings, (flooder, honest) = queue_db
    settings = settings.model_copy(update={"max_pending_per_ip": 100})
    with write_session(engine) as s:
        socks = [flooder] + [create_user(s, f"sock_{i}", "password").id for i in range(2)]
        flood = [jobqueue.enqueue(s, settings, user, "ex", "h", "x", "a.py", client_ip="10.0.0.1"
                                  ).id for user in socks for _ in range(2)]
        mine = [jobqueue.enqueue(s, settings, honest, "ex", "h", "x", "a.py",
                                 client_ip="10.0.0.2").id for _ in range(2)]
    order = []
    for _ in range(5):
        with write_session(engine) as s:
            job = jobqueue.claim(s, "only-worker", 30, 3)
        with write_session(engine) as s:
            jobqueue.finish(s, job, {"verdict": "accepted", "cases": []}, None)
        order.append(job.id)
    # addresses alternate; within the flood's address, accounts take turns
    assert order == [flood[0], mine[0], flood[2], mine[1], flood[4]]


def test_pending_jobs_per_address_are_bounded(queue_db) -> None:
    engine, settings, (flooder, honest) = queue_db
    with write_session(engine) as s:
        for user in (flooder, honest, flooder):
            jobqueue.enqueue(s, settings, user, "ex", "h", "x", "a.py", client_ip="10.0.0.7")
    with pytest.raises(jobqueue.Refused) as refused, write_session(engine) as s:
        jobqueue.enqueue(s, settings, honest, "ex", "h", "x", "a.py", client_ip="10.0.0.7")
    assert refused.value.status == 429
    with write_session(engine) as s:  # another address is not held up
        jobqueue.enqueue(s, settings, honest, "ex", "h", "x", "a.py", client_ip="10.0.0.8")


# --- 3. the admin name cannot be squatted -------------------------------------------------

def test_admin_bootstrap_never_promotes_a_learner(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    migrate(settings.url)
    engine = make_engine(settings.url)
    with write_session(engine) as s:  # registered before the operator chose the name
        create_user(s, "Admin", GOOD)
    admin_settings = settings_for(tmp_path, admin_username="admin",
                                  admin_password="operator's long passphrase")
    with pytest.raises(StartupRefused, match="never makes a learner an admin"):
        with app_client(admin_settings):
            pass
    with Session(engine) as s:
        assert s.get(User, 1).role == "learner"
    engine.dispose()


def test_admin_names_are_reserved_and_a_new_password_ends_sessions(tmp_path: Path) -> None:
    first = settings_for(tmp_path, admin_username="teacher", admin_password="first passphrase!")
    with app_client(first) as c:
        for name in ("admin", "ROOT", "Teacher"):
            r = register(c, name)
            assert r.status_code == 409 and r.json()["code"] == "username_reserved"
        token = c.post("/api/auth/login", json={"username": "teacher",
                                                "password": "first passphrase!"}).json()["token"]
        assert c.get("/api/auth/me", headers={"authorization": f"Bearer {token}"}).json()[
            "role"] == "admin"
    second = settings_for(tmp_path, admin_username="teacher", admin_password="second passphrase!")
    with app_client(second) as c:
        c.cookies.clear()
        assert c.get("/api/auth/me", headers={"authorization": f"Bearer {token}"}
                     ).status_code == 401


# --- 4. header and connection limits (a real uvicorn) --------------------------------------

@pytest.fixture(scope="module")
def plain_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JudgeServer]:
    server = start_server(tmp_path_factory.mktemp("limits"), workers=0, sandbox="none",
                          head_timeout_s=1.5)
    yield server
    server.stop()


def test_a_header_flood_is_cut_off(plain_server: JudgeServer) -> None:
    """Headers that never end: the server answers 4xx or closes, rather than reading on."""
    sock = socket.create_connection(("127.0.0.1", plain_server.port), timeout=10)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    answer = b""
    try:
        for _ in range(1024):  # 4 MiB, more than the socket buffers hold
            sock.sendall(b"X-Flood: " + b"a" * 4086 + b"\r\n")
        sock.settimeout(5)
        answer = sock.recv(100) or b"closed"
    except TimeoutError:
        answer = b""  # still reading headers: no limit
    except OSError:  # reset or broken pipe: the server closed the connection
        answer = b"closed"
    finally:
        sock.close()
    assert answer == b"closed" or answer.startswith(b"HTTP/1.1 4"), "headers read without limit"
    assert plain_server.alive()


def test_idle_connections_are_closed_and_do_not_stop_the_server(plain_server: JudgeServer) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1300
    if soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            pytest.skip(f"open-file hard limit {hard} is below {want}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    idle = []
    try:
        for _ in range(1100):  # more than the default open-file limit of 1024
            idle.append(socket.create_connection(("127.0.0.1", plain_server.port), timeout=10))
        started = time.monotonic()
        while not plain_server.alive():
            assert time.monotonic() - started < 10, "the server stopped answering"
        idle[0].settimeout(5)
        assert idle[0].recv(1) == b""  # closed: no request came within the head deadline
    finally:
        for sock in idle:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_trickled_body_is_cut_off(plain_server: JudgeServer) -> None:
    """A request whose head arrives but whose body trickles (or never comes) is closed at the
    request deadline, rather than held open for as long as the client likes."""
    token = plain_server.register()
    sock = socket.create_connection(("127.0.0.1", plain_server.port), timeout=10)
    sock.sendall(b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Authorization: Bearer " + token.encode() + b"\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{")
    started = time.monotonic()
    closed = False
    try:
        sock.settimeout(0.25)
        while time.monotonic() - started < 8:
            sock.sendall(b" ")
            try:
                if sock.recv(100) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
    except OSError:  # reset or broken pipe: closed
        closed = True
    finally:
        sock.close()
    assert closed, "a trickled body held the connection open"
    assert time.monotonic() - started < 5  # the deadline (1.5 s here), with room for load
    assert plain_server.alive()


def test_raw_header_bytes_are_a_4xx(plain_server: JudgeServer) -> None:
    """Bytes a test client cannot send: ``Last-Event-ID: ²`` (0xB2, a digit to ``isdigit`` but
    not to ``int``) arrives as it is over a real socket, and is refused, not a 500."""
    token = plain_server.register()
    for value in (b"\xb2", b"1\xb9", b"\xff"):
        with socket.create_connection(("127.0.0.1", plain_server.port), timeout=10) as sock:
            sock.sendall(b"GET /api/submissions/1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Authorization: Bearer " + token.encode() + b"\r\n"
                         b"Last-Event-ID: " + value + b"\r\nConnection: close\r\n\r\n")
            answer = sock.recv(200)
        assert answer.startswith(b"HTTP/1.1 400"), (value, answer)


def test_an_open_stream_does_not_block_shutdown(tmp_path: Path) -> None:
    server = start_server(tmp_path, workers=0, sandbox="none")
    try:
        token = server.register()
        sid = server.submit(token, "x = 1")  # no worker: it stays queued, the stream stays open
        with server.client(token) as c, c.stream("GET", f"/api/submissions/{sid}/events") as r:
            assert r.status_code == 200
            next(r.iter_lines())
            started = time.monotonic()
            server.proc.terminate()
            server.proc.wait(30)
            assert time.monotonic() - started < 15
    finally:
        server.stop()
