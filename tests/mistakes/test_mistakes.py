"""A corpus of plausible learner mistakes: each wrong answer's message names its cause.

The files and their headers are described in :mod:`tests.mistakes.corpus`. Each is judged on
the simulated runtime with the reference's run as evidence (``judge_code(..., explore=...)``):
its verdict is the one declared, and agrees with what real gloo did (the ``# gloo:`` line);
every ``# names:`` part is in the English message and every ``# names_zh:`` part in the Chinese
one; a missed wait is blamed only where the header says so; and no message names a call the
exercise does not allow (advice it forbids). A file marked ``# weak:`` is a strict xfail: its
message does not name the cause yet.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cjudge.contract.primitives import CANONICAL
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case
from tests.grading.helpers import exercise

from .corpus import AGREES, FILES, HERE, exercise_of, gloo_record, header


def failing_case(path: Path) -> tuple[dict, dict]:
    """The verdict JSON of the file on the simulated runtime, and its first failing case."""
    ex = exercise_of(path)
    result = judge_code(ex, path.read_text(encoding="utf-8"), path.name, run_case, "sim",
                        explore=run_case)
    return result, next(c for c in result["cases"] if c["verdict"] != "accepted")


def forbidden_calls(path: Path, text: str) -> list[str]:
    """The calls the file's exercise forbids that ``text`` names: a name with an underscore
    anywhere, a plain word ("gather", "send") only as a call ("gather(", "dist.gather"). An
    exercise that allows no call at all (a model to compute) names collectives as its subject."""
    allowed = exercise_of(path).allowed
    if not allowed:
        return []
    said = []
    for call in sorted(set(CANONICAL) - set(allowed)):
        word = rf"(?<![\w-]){call}(?![\w-])" if "_" in call else rf"(?:dist\.{call}\b|\b{call}\()"
        if re.search(word, text):
            said.append(call)
    return said


#: a value as a message prints it: a number, or a few of them in brackets
_VALUE = r"(-?(?:\d[\d.,]*(?:e[+-]?\d+)?|nan|inf)|\[[^\]]*\])"
#: how a message sets what the learner's run had beside what it should have had
DIFFERENCES = [rf"{_VALUE} where the reference has {_VALUE}", rf"expected {_VALUE}, got {_VALUE}",
               rf"{_VALUE}，而参考解为 {_VALUE}", rf"应为 {_VALUE}，实际为 {_VALUE}"]


def printed_differences(text: str) -> list[tuple[str, str]]:
    """Every pair of values ``text`` prints as a difference (what the run had and what it
    should have had, in the order the text gives them)."""
    return [pair for pattern in DIFFERENCES for pair in re.findall(pattern, text)]


def _params() -> list:
    params = []
    for path in FILES:
        weak = header(path.read_text(encoding="utf-8"), "weak", required=False)
        marks = [pytest.mark.xfail(strict=True, reason=weak[0])] if weak else []
        params.append(pytest.param(path, marks=marks, id=f"{path.parent.name}/{path.stem}"))
    return params


def test_the_corpus_covers_every_exercise_three_times() -> None:
    counts = {p.parent.name: sum(1 for f in FILES if f.parent == p.parent) for p in FILES}
    assert len(counts) >= 25 and min(counts.values()) >= 3, counts


@pytest.mark.parametrize("path", _params())
def test_message_names_the_cause(path: Path) -> None:
    code = path.read_text(encoding="utf-8")
    result, case = failing_case(path)
    assert result["verdict"] == header(code, "expect")[0]
    if not header(code, "diverges", required=False):  # what gloo did, judged
        assert result["verdict"] in AGREES[gloo_record(path)[0]]
    for part in header(code, "names"):
        assert part in case["message"], (part, case["message"])
    for part in header(code, "names_zh"):
        assert part in case["message_zh"], (part, case["message_zh"])
    if not any("never waited" in part for part in header(code, "names")):
        assert "never waited" not in case["message"]  # blocking and waited calls are not blamed
    smallest = case.get("smallest", {}).get("message", "")
    for text in (case["message"], case["message_zh"], smallest):
        assert not forbidden_calls(path, text), text
        # two values that print alike are never shown as a difference (issue 38)
        assert all(one != other for one, other in printed_differences(text)), text


def test_smallest_case_is_smaller_and_shows_its_values() -> None:
    path = HERE / "ring_allreduce" / "allgather_off_by_one.py"
    result = judge_code(exercise("ring-allreduce"), path.read_text(encoding="utf-8"), path.name,
                        run_case, "sim", explore=run_case)
    case = result["cases"][0]
    small = case["smallest"]
    assert small["world_size"] < case["world_size"]
    assert small["message"].startswith("fails already at n = 2, numel = 2: rank 0:")
    assert small["message_zh"].startswith("在 n = 2, numel = 2 时就已失败")
    assert small["sample"]["inputs"][1]["data"] == [10.0, 20.0]  # the example's readable digits
    assert "all-gather step 1" in small["message"]


def test_a_correct_reference_gets_no_smallest_case() -> None:
    ex = exercise("reduce-scatter")
    result = judge_code(ex, ex.solution, "solution.py", run_case, "sim", explore=run_case)
    assert result["verdict"] == "accepted"
    assert all("smallest" not in c for c in result["cases"])


def test_printed_differences_are_read_from_both_languages() -> None:
    assert printed_differences("its input differs at element 0 (-0.4259 where the reference has "
                               "-0.4259)") == [("-0.4259", "-0.4259")]
    assert printed_differences("应为 2.795844482，实际为 2.995950306") == [
        ("2.795844482", "2.995950306")]
    assert printed_differences("expected [1, 2], got [1, 3]") == [("[1, 2]", "[1, 3]")]
