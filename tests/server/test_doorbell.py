"""The doorbell: the API's ring after it queued a job wakes the idle workers of that queue on
this machine, and only theirs; a bell's own ring wakes it to stop."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.doorbell import Doorbell, folder, ring


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
