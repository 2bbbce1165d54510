"""``judge.py`` at an 80-column terminal: mistyped ids, help that teaches, output that fits."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import judge_cli


@pytest.mark.parametrize("command", ["start", "model", "check"])
def test_a_mistyped_id_gets_did_you_mean_not_the_whole_catalog(tmp_path, command):
    run = judge_cli(command, "ring-alreduce", workspace=tmp_path, CJUDGE_WARM="0")
    assert run.returncode == 2 and run.stdout == ""
    assert "unknown exercise 'ring-alreduce'; did you mean ring-allreduce" in run.stderr
    assert "ulysses" not in run.stderr  # not every id there is


def test_an_id_close_to_none_points_to_list(tmp_path):
    run = judge_cli("solution", "no-such-exercise", workspace=tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith("judge.py: error: unknown exercise 'no-such-exercise'; "
                                 "`python practice/judge.py list` shows the exercises")
    assert "ring-allreduce" not in run.stderr
