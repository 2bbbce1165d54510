"""The doorbell: the API's ring after it queued a job wakes the idle workers of that queue on
this machine, and only theirs; a bell's own ring wakes it to stop; on Postgres, the commit of a
queued (or put back) job wakes them through LISTEN/NOTIFY."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from postgres import new_database

from server import jobqueue
from server.accounts import create_user
from server.db import make_engine, migrate, write_session
from server.doorbell import Doorbell, folder, ring
from server.models import Exercise
from server.settings import Settings


@pytest.fixture()
def bells(tmp_path) -> Iterator[tuple[str, Doorbell, Doorbell, Doorbell]]:
    url, other = f"sqlite:///{tmp_path}/judge.db", f"sqlite:///{tmp_path}/other.db"
    made = [Doorbell(url, "w1"), Doorbell(url, "w2"), Doorbell(other, "w1")]
    yield url, *made
    for bell in made:
        bell.close()


def test_a_ring_wakes_every_worker_of_the_queue_and_no_other(bells) -> None:
    url, first, second, elsewhere = bells
    ring(url)
    assert first.wait(30) and second.wait(30)
    assert not elsewhere.wait(0)
    assert not first.wait(0)  # the ring is taken: the next wait sleeps its whole time


def test_a_bell_rings_itself_to_stop_and_leaves_nothing_behind(tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/judge.db"
    bell = Doorbell(url, "w1")
    bell.ring()
    assert bell.wait(30)
    bell.close()
    assert not list(folder(url).glob("*.sock"))
    ring(url)  # nobody listens: nothing to wake, nothing raised


def test_on_postgres_a_committed_job_wakes_the_workers_of_that_database(
        tmp_path, postgres_server: str | None) -> None:
    if postgres_server is None:
        pytest.skip("PostgreSQL is not installed here")
    settings = Settings(data_dir=tmp_path, database_url=new_database(postgres_server))
    other = Settings(data_dir=tmp_path, database_url=new_database(postgres_server))
    migrate(settings.url)
    engine = make_engine(settings.url)
    with write_session(engine) as session:
        session.add(Exercise(id="ex", title_en="t", title_zh="t", statement_en="",
                             statement_zh="", starter="", content_hash="h"))
        user_id = create_user(session, "learner", "password").id
    bell, elsewhere = Doorbell(settings.url, "w1"), Doorbell(other.url, "w1")
    try:
        assert not bell.wait(0)  # listening, nothing announced yet
        with write_session(engine) as session:
            jobqueue.enqueue(session, settings, user_id, "ex", "h", "x = 1", "a.py")
            assert not bell.wait(0.2)  # announced only when the job is committed
        assert bell.wait(30)
        assert not elsewhere.wait(0)
        with write_session(engine) as session:
            claim = jobqueue.claim(session, "w1", 20, 3)
        assert claim is not None and not bell.wait(0)
        with write_session(engine) as session:
            jobqueue.release(session, claim, None, count_attempt=False)
        assert bell.wait(30)  # put back: another worker may take it
    finally:
        bell.close()
        elsewhere.close()
        engine.dispose()


def test_a_bell_left_by_a_dead_process_is_cleared_by_the_next_ring(tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/judge.db"
    live = Doorbell(url, "live")
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    left = folder(url) / "dead.sock"
    dead.bind(str(left))
    dead.close()  # its name stays, as when a worker is killed
    try:
        ring(url)
        assert live.wait(30)
        assert not left.exists()
    finally:
        live.close()
