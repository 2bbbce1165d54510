"""The mistake corpus: its files, their headers, and their ground truth on real torch + gloo.

Every file under ``tests/mistakes/<exercise>/`` starts with

* ``# expect: <verdict>``: the judge's verdict;
* ``# gloo: <outcome> on <case>``: what real gloo did with the file on that case of the
  exercise (the case the judge fails it on): ``right`` (every rank returned the expected
  result), ``wrong`` (every rank returned, some result differs), ``deadlock``, ``error``
  (a rank raised or died), ``spinning``, ``undefined`` (a call named a rank outside the group:
  gloo crashes or hangs at random, the judge refuses it);
* optionally ``# racy: <outcome>``: another outcome gloo showed on other runs (a buffer read
  without waiting races with the data's arrival);
* ``# names:`` / ``# names_zh:`` lines: what the English and the Chinese message must say (the
  step, the phase, the line, the missed wait);
* optionally ``# diverges: <why>``: the judge's verdict does not agree with what gloo did
  (the corpus test then does not hold it to gloo's outcome; the score table counts it wrong);
* optionally ``# weak: <why>``: the message does not name the cause yet (the corpus test is
  then a strict xfail, and the score table counts it).

    .venv/bin/python -m tests.mistakes.corpus [FILE ...]

runs each file on gloo (``tests.gloo.gloo_run``) and prints its outcome next to the recorded
one; a maintainer copies a new file's outcome into its ``# gloo:`` line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from cjudge.contract.protocol import CaseSpec
from cjudge.exercise.exercises import Exercise, default_root, load_exercises
from cjudge.grading.compare import compare
from cjudge.grading.grade import plan_cases

HERE = Path(__file__).parent
FILES = sorted(HERE.glob("*/*.py"))
EXERCISES = load_exercises(default_root())
#: the judge's verdicts that agree with what gloo did
AGREES = {"right": {"accepted", "over_budget", "too_slow", "memory_limit"},
          "wrong": {"wrong_answer"}, "deadlock": {"deadlock"}, "error": {"runtime_error"},
          "spinning": {"time_limit"}, "undefined": {"runtime_error"}}
#: the ranks whose results torch defines, where it leaves the others' undefined
DEFINED = {"tree-reduce": lambda case: [int(case["params"]["dst"])]}


def header(text: str, key: str, required: bool = True) -> list[str]:
    """The ``;``-separated parts of the file's ``# key:`` lines (one or more)."""
    found = re.findall(rf"^# {key}: (.*)$", text, re.M)
    assert found or not required, f"no '# {key}:' line"
    return [part.strip() for line in found for part in line.split(";")]


def exercise_of(path: Path) -> Exercise:
    """The exercise a corpus file is written for (its folder, ``_`` for ``-``)."""
    return EXERCISES[path.parent.name.replace("_", "-")]


def gloo_record(path: Path) -> tuple[str, str]:
    """The recorded (outcome, case name) of the file on gloo."""
    outcome, _, case = header(path.read_text(encoding="utf-8"), "gloo")[0].partition(" on ")
    assert outcome in AGREES and case, f"{path}: '# gloo: <outcome> on <case>'"
    return outcome, case


def gloo_outcomes(path: Path) -> set[str]:
    """Every outcome recorded for the file on gloo: its ``# gloo:`` one and any ``# racy:``."""
    racy = header(path.read_text(encoding="utf-8"), "racy", required=False)
    return {gloo_record(path)[0], *racy}


def case_named(ex: Exercise, name: str) -> CaseSpec:
    """The exercise's case ``name``, inputs made as the judge makes them."""
    return next(c for c in plan_cases(ex) if c["name"] == name)


def on_gloo(ex: Exercise, code: str, filename: str, case: CaseSpec) -> str:
    """What real torch + gloo does with ``code`` on ``case``: an outcome of :data:`AGREES`."""
    from tests.gloo.gloo_run import run_gloo  # forks ranks: imported only where gloo runs

    gloo = run_gloo(ex.job_spec(code, filename), case)
    if gloo.undefined:
        return "undefined"
    if gloo.outcome != "returned":
        return gloo.outcome
    wants = ex.grader.expected(case["params"], case["world_size"], case["inputs"])
    ranks = DEFINED[ex.id](case) if ex.id in DEFINED else range(case["world_size"])
    wrong = [r for r in ranks if compare(ex, case, r, gloo.ranks[r].output, wants[r])]
    return "wrong" if wrong else "right"


def main(argv: list[str]) -> int:
    """Print each file's outcome on gloo and the recorded one; 1 if any differs."""
    differ = 0
    for path in [Path(a) for a in argv] or FILES:
        ex = exercise_of(path)
        recorded, name = gloo_record(path)
        got = on_gloo(ex, path.read_text(encoding="utf-8"), path.name, case_named(ex, name))
        differ += got not in gloo_outcomes(path)
        print(f"{path.parent.name}/{path.name:<40} gloo: {got:<9} recorded: {recorded} on {name}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
