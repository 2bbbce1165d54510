"""The same words on every door (issue 38, point 9): a wrong answer whose diagnosis is confirmed
on a second, generic draw (the corpus's pattern 2) is worded by the server, whose worker reruns
the learner's code on that draw in a sandbox of its own, as by ``practice/judge.py test``, which
reruns it on the simulated runtime."""

from __future__ import annotations

import pytest

from cjudge.cli.commands import grade_file
from server.localserver import JudgeServer
from tests.mistakes.corpus import HERE, exercise_of
from tests.mistakes.patterns import PATTERNS


@pytest.mark.parametrize("name", PATTERNS[2])
def test_a_second_draw_message_is_the_clis(judge: JudgeServer, name: str) -> None:
    path = HERE / name
    ex = exercise_of(path)
    token = judge.register()
    official = judge.wait(token, judge.submit(token, path.read_text(encoding="utf-8"), ex.id))
    cli = grade_file(ex, path, "fork", seed=None, samples=False, all_cases=False)
    assert official["verdict"] == cli["verdict"] == "wrong_answer"
    result = official["result"]
    assert (result["message"], result["message_zh"]) == (cli["message"], cli["message_zh"])
