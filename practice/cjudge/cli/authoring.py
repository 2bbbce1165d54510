"""Writing an exercise: ``judge.py new ID`` scaffolds a draft, ``judge.py check ID`` says step
by step what is left to write, then proves it (reference accepted, starter not, every wrong
file its declared verdict) and finally asks for ``draft = true`` to go."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from rich.console import Console
from rich.table import Table

from ..exercise.draws import DRAWS
from ..exercise.exercises import ID_RE, Exercise, ExerciseError, is_draft, load_exercise, load_exercises
from .exits import OK, REJECTED, USAGE, error, invocation
from .scaffold import MARK, write_draft
from .suggest import unknown_exercise

if TYPE_CHECKING:  # commands is imported when an exercise is graded, not with this module
    from .commands import CheckRow

GRADER_HELP = {
    "make_inputs": "make_inputs(case, rng): every rank's input tensor from the seeded rng",
    "expected": "expected(case, inputs): what every rank must end with",
    "bytes_bound": "bytes_bound(case): the most bytes one rank may send",
}


@dataclass(frozen=True)
class Step:
    """One thing an exercise needs: the file it is in, whether it is done, what is left."""

    file: str
    what: str
    done: bool
    left: str = ""


def _marked(path: Path) -> list[str]:
    """The lines of ``path`` that still carry the author's placeholder mark."""
    if not path.is_file():
        return []
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if MARK in line]


def _toml_fields(lines: list[str]) -> list[str]:
    """The field names of marked ``key = value`` lines."""
    fields = [m.group(1) for line in lines if (m := re.match(r"^([A-Za-z_]+)\s*=", line))]
    return fields or lines


def _file_step(folder: Path, name: str, what: str, todo: str) -> Step:
    path = folder / name
    if not path.is_file():
        return Step(name, what, False, f"missing: create {name}: {todo}")
    if _marked(path):
        return Step(name, what, False, f"{todo} (then delete every {MARK} line)")
    return Step(name, what, True)


def _load(folder: Path) -> tuple[Exercise | None, str]:
    """The exercise in ``folder`` and "", or None and why it does not load."""
    try:
        return load_exercise(folder), ""
    except ExerciseError as exc:
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001 - e.g. grader.py does not import: say so, go on
        return None, f"{type(exc).__name__}: {exc}"


def _toml_step(folder: Path, load_error: str) -> Step:
    """``exercise.toml``: its load error, else the fields still marked."""
    toml = folder / "exercise.toml"
    marked = [line for line in _marked(toml) if not line.startswith("#")]  # not the help text
    what = "id, titles, function, rules, cases"
    if load_error and ("exercise.toml" in load_error or not toml.is_file()):
        return Step("exercise.toml", what, False, load_error)
    if marked:
        return Step("exercise.toml", what, False, "fill in: " + ", ".join(_toml_fields(marked)))
    return Step("exercise.toml", what, True)


def _grader_step(folder: Path, load_error: str) -> Step:
    """``grader.py``: its load error, else the functions still to write."""
    grader = folder / "grader.py"
    what = "inputs, expected results, byte bound"
    if load_error and "grader.py" in load_error:
        return Step("grader.py", what, False, load_error)
    if not grader.is_file():
        return Step("grader.py", what, False, "missing: create grader.py")
    todo = re.findall(rf"{re.escape(MARK)}: (\w+)", grader.read_text(encoding="utf-8"))
    left = "; ".join(GRADER_HELP.get(name, name) for name in todo)
    return Step("grader.py", what, not todo, f"write {left}" if todo else "")


def _wrong_step(folder: Path) -> Step:
    """``wrong/*.py``: at least one, none still marked."""
    wrong = sorted(folder.glob("wrong/*.py"))
    marked_wrong = [p.name for p in wrong if _marked(p)]
    if not wrong or marked_wrong:
        left = (f"finish {', '.join(marked_wrong)}" if marked_wrong else "write one") + (
            ": a real mistake, its first line `# expect: <verdict>`")
        return Step("wrong/*.py", "known-wrong solutions (private)", False, left)
    return Step("wrong/*.py", "known-wrong solutions (private)", True)


def writing_steps(folder: Path) -> tuple[list[Step], Exercise | None]:
    """What is left to write in ``folder``, in the order to write it, and the exercise once it
    loads."""
    exercise, load_error = _load(folder)
    steps = [_toml_step(folder, load_error),
             _file_step(folder, "statement.md", "the task in English",
                        "write the task: the function, what must hold, the allowed calls, "
                        "the byte bound, an example"),
             _file_step(folder, "statement.zh.md", "the task in Chinese",
                        "write the same task in Chinese"),
             _grader_step(folder, load_error),
             _file_step(folder, "starter.py", "what learners start from",
                        "write the learners' starting point: the signature and hints"),
             _file_step(folder, "solution.py", "the reference (private)",
                        "write the reference solution; every case must accept it"),
             _wrong_step(folder)]
    if load_error and all(s.done for s in steps):  # an error none of the steps above names
        steps.append(Step(folder.name, "loads", False, load_error))
    return steps, exercise


def show_steps(console: Console, exercise_id: str, steps: list[Step]) -> None:
    """The steps as a table on a terminal, as plain lines when piped."""
    left = sum(not s.done for s in steps)
    if console.is_terminal:
        table = Table(title=f"writing {exercise_id}: {left} step(s) left")
        for col in ("step", "file", "what", "left to do"):
            table.add_column(col, overflow="fold")
        for i, s in enumerate(steps, 1):
            table.add_row(str(i), s.file, s.what, "[green]done[/]" if s.done else s.left)
        console.print(table)
        return
    console.print(f"writing {exercise_id}: {left} step(s) left", markup=False)
    for i, s in enumerate(steps, 1):
        state = "done" if s.done else f"TODO: {s.left}"
        console.print(f"  {i}. {s.file} ({s.what}): {state}", markup=False)


class FolderReport(TypedDict):
    """``judge.py check``'s report on one exercise folder (an item of its ``--json``)."""

    id: str
    steps: list[dict[str, object]]  # each a :class:`Step` as a dict, while some are left
    files: list[CheckRow]
    problems: int


def check_folder(console: Console | None, folder: Path, launcher: str, draws: int) -> FolderReport:
    """What is left in ``folder``, and once written its proof (each file also under ``draws``
    more seeds on the simulation): ``{"id", "steps", "files", "problems"}`` (steps are shown
    only while some are left); shown on ``console`` as it goes unless that is None (``--json``)."""
    from .commands import check_exercise

    grading = "reference accepted, starter not, wrong files as declared"
    steps, exercise = writing_steps(folder)
    files: list[CheckRow] = []
    if exercise is None or not all(s.done for s in steps):
        steps += [Step("(grading)", grading, False, "runs once the steps above are done"),
                  _draft_step(folder)]
        problems = sum(not s.done for s in steps)
    else:
        files = check_exercise(exercise, launcher, console, draws)
        failures, draft = sum(not f["ok"] for f in files), _draft_step(folder)
        problems = failures + (not draft.done)
        steps = steps + [Step("(grading)", grading, not failures,
                              f"{failures} file(s) got another verdict: see the table"),
                         draft] if problems else []
    if steps and console is not None:
        show_steps(console, folder.name, steps)
    return {"id": folder.name, "steps": [dataclasses.asdict(s) for s in steps], "files": files,
            "problems": problems}


def _draft_step(folder: Path) -> Step:
    return Step("exercise.toml", "served by the judge", not is_draft(folder),
                "delete the line `draft = true` once everything above passes; the server "
                "picks the exercise up when it next starts")


def cmd_new(console: Console, root: Path, exercise_id: str) -> int:
    """Scaffold ``root/exercise_id`` as a draft and say what to do next."""
    if not ID_RE.match(exercise_id):
        error(f"{exercise_id!r} is not a valid id: kebab-case, a-z, 0-9 and '-' "
              "(e.g. tree-broadcast)")
        return USAGE
    folder = root / exercise_id
    if folder.exists():
        error(f"{folder} exists already; pick another id or edit it")
        return USAGE
    written = write_draft(folder, random.SystemRandom().randrange(1, 2**31))
    console.print(f"created the draft exercise {folder}:", markup=False)
    for path in written:
        console.print(f"  {path.relative_to(folder)}", markup=False)
    console.print(f"every placeholder says {MARK}; the guide is docs/authoring.md. Next:\n"
                  f"  {invocation()} check {exercise_id}   # what is left to write",
                  markup=False)
    return 0


def cmd_check(console: Console, root: Path, ids: list[str], launcher: str,
              as_json: bool = False, draws: int = DRAWS) -> int:
    """``judge.py check [ID…]``: every exercise (drafts included) or those named; with
    ``as_json`` one document of every folder's report instead of tables."""
    if ids:
        folders = []
        for exercise_id in ids:
            folder = root / exercise_id
            if not (folder / "exercise.toml").is_file() and not folder.is_dir():
                known = (p.name for p in root.iterdir() if (p / "exercise.toml").is_file())
                error(f"{unknown_exercise(exercise_id, known)} (a new one: "
                      f"{invocation()} new {exercise_id})")
                return USAGE
            folders.append(folder)
    else:
        folders = sorted(p for p in root.iterdir() if (p / "exercise.toml").is_file())
    reports = [check_folder(None if as_json else console, folder, launcher, draws)
               for folder in folders]
    problems = sum(r["problems"] for r in reports)
    catalog = None
    try:  # the catalog as a whole: prerequisites that name an exercise, one exercise a place
        load_exercises(root, strict=True)
    except ExerciseError as exc:
        catalog = str(exc)
        problems += 1
    if as_json:
        sys.stdout.write(json.dumps({"passed": not problems, "problems": problems,
                                     "catalog": catalog, "exercises": reports},
                                    indent=1, ensure_ascii=False) + "\n")
    else:
        if catalog:
            console.print(f"catalog: {catalog}", markup=False)
        console.print("check passed" if not problems else f"check FAILED: {problems} left to do",
                      markup=False)
    return OK if not problems else REJECTED
