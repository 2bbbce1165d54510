"""Rank states: each rank's page is shared with the judge only."""

from __future__ import annotations

import os
from pathlib import Path

from cjudge.rank_status import RankSlot, RankStatus


def test_the_judge_sees_each_rank_set_its_own_state(tmp_path: Path) -> None:
    status = RankStatus(tmp_path, 3)
    assert status.read() == [("starting", 0)] * 3
    slot = RankSlot(tmp_path, 1)
    slot.set("running")
    slot.set("blocked")
    assert status.read() == [("starting", 0), ("blocked", 2), ("starting", 0)]


def test_a_rank_leaves_no_name_for_its_peers_to_open(tmp_path: Path) -> None:
    RankStatus(tmp_path, 2)
    RankSlot(tmp_path, 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["status.1"]


def test_the_judges_pages_are_not_inherited_by_what_it_forks(tmp_path: Path) -> None:
    status = RankStatus(tmp_path, 2)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        maps = Path("/proc/self/maps").read_text()
        os.write(write_fd, str(maps.count(str(tmp_path))).encode())
        os._exit(0)
    os.close(write_fd)
    seen_in_child = int(os.read(read_fd, 100))
    os.waitpid(pid, 0)
    assert str(tmp_path) in Path("/proc/self/maps").read_text()
    assert seen_in_child == 0
    assert len(status.read()) == 2
