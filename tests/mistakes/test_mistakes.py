"""A corpus of plausible learner mistakes: each wrong answer's message names its cause.

Every file under ``tests/mistakes/<exercise>/`` starts with ``# expect: <verdict>``, then
``# names: <part>; <part>`` lines (what the English message must say: the step, the phase,
the line, the missed wait) and ``# names_zh:`` lines (the same in the Chinese message). Each is judged on the
simulated runtime with the reference's run as evidence (``judge_code(..., explore=...)``), and
no message may name a call the exercise does not allow (advice it forbids).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cjudge.judge import judge_code
from cjudge.primitives import CANONICAL
from cjudge.sim.runtime import run_case
from tests.kernel.helpers import exercise

HERE = Path(__file__).parent
FILES = sorted(HERE.glob("*/*.py"))


def header(text: str, key: str) -> list[str]:
    """The parts of the ``# key:`` lines (one or more)."""
    found = re.findall(rf"^# {key}: (.*)$", text, re.M)
    assert found, f"no '# {key}:' line"
    return [part.strip() for line in found for part in line.split(";")]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_message_names_the_cause(path: Path) -> None:
    ex = exercise(path.parent.name.replace("_", "-"))
    code = path.read_text(encoding="utf-8")
    result = judge_code(ex, code, path.name, run_case, "sim", explore=run_case)
    assert result["verdict"] == header(code, "expect")[0]
    case = next(c for c in result["cases"] if c["verdict"] != "accepted")
    for part in header(code, "names"):
        assert part in case["message"], (part, case["message"])
    for part in header(code, "names_zh"):
        assert part in case["message_zh"], (part, case["message_zh"])
    if not any("never waited" in part for part in header(code, "names")):
        assert "never waited" not in case["message"]  # blocking and waited calls are not blamed
    forbidden = sorted(set(CANONICAL) - set(ex.allowed))
    for text in (case["message"], case["message_zh"], case["smallest"]["message"]):
        said = [call for call in forbidden if re.search(rf"(?<![\w-]){call}(?![\w-])", text)]
        assert not said, (said, text)


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
