"""The autograder bundles' entry point: grade a submission folder's file for each exercise on real
torch, every case, and write one platform's result file.

``python -m cjudge.courses.autograde PLATFORM --exercises DIR --submission DIR --results FILE
ID…``. The file for exercise ``ID`` is ``ID.py`` in the submission folder (or, for one exercise,
the folder's only ``.py`` file); a missing file fails that exercise's cases. The exit status is 0
once the result file is written: the platform reads the score from it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TypedDict

from ..contract.verdict_json import CaseResult
from ..exercise.exercises import Exercise, load_exercise
from .results import PLATFORMS, Graded, write_report


def submitted(folder: Path, exercise_id: str, only: bool) -> Path | None:
    """The learner's file for ``exercise_id`` in ``folder``: ``ID.py``, else (``only`` one
    exercise is graded) the folder's only Python file."""
    named = folder / f"{exercise_id}.py"
    if named.is_file():
        return named
    files = sorted(folder.glob("*.py")) if only and folder.is_dir() else []
    return files[0] if len(files) == 1 else None


class Missing(TypedDict):
    """The verdict-like record of an exercise with no file to grade: no verdict, no case."""

    verdict: None
    cases: list[CaseResult]
    message: str
    message_zh: str


def missing(exercise_id: str) -> Missing:
    """The verdict-like record of an exercise with no file to grade."""
    name = f"{exercise_id}.py"
    return Missing(verdict=None, cases=[],
                   message=f"no file {name} in the submission: submit your solution as {name}",
                   message_zh=f"提交中没有文件 {name}：请把你的解答命名为 {name} 提交")


def main(argv: list[str] | None = None) -> int:
    """Grade and write the result file; the exit status."""
    p = argparse.ArgumentParser(prog="python -m cjudge.courses.autograde", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("platform", choices=PLATFORMS)
    p.add_argument("--exercises", type=Path, required=True, help="the bundle's exercises folder")
    p.add_argument("--submission", type=Path, required=True, help="the learner's files")
    p.add_argument("--results", type=Path, required=True, help="the result file to write")
    p.add_argument("ids", nargs="+", metavar="ID")
    args = p.parse_args(argv)
    from ..cli.commands import grade_file
    from ..real.zygote import start_zygote

    start_zygote()  # before any exercise is in this process's memory, as the CLI does
    exercises: list[Exercise] = [load_exercise(args.exercises / i, published=True)
                                 for i in args.ids]
    graded: Graded = []
    for exercise in exercises:
        path = submitted(args.submission, exercise.id, only=len(exercises) == 1)
        result = grade_file(exercise, path, "fork", None, False, True) if path else \
            missing(exercise.id)
        graded.append((exercise, result, path.name if path else f"{exercise.id}.py"))
        print(f"{exercise.id}: {result['verdict'] or 'no file'}", file=sys.stderr)
    write_report(args.platform, graded, args.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
