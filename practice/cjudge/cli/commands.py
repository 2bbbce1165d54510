"""What each subcommand does; ``main`` parses arguments and routes here."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from ..exercises import (
    CHAPTER,
    DIFFICULTIES,
    ID_RE,
    TRACKS,
    Exercise,
    ExerciseError,
    catalog_order,
    default_root,
    is_draft,
    load_exercise,
    load_exercises,
)
from ..verdicts import title
from . import workspace
from .render import show_case, show_result

console = Console()
if not console.is_terminal:
    console = Console(soft_wrap=True)  # piped: plain lines, never wrapped


def exercises_or_exit(root: Path | None) -> dict[str, Exercise]:
    """Every exercise, or a clear message and exit status 2 for a malformed folder."""
    try:
        return load_exercises(root or default_root())
    except ExerciseError as exc:
        console.print(f"malformed exercise: {exc}", markup=False)
        raise SystemExit(2) from None


def exercise_or_exit(root: Path | None, exercise_id: str) -> Exercise:
    """The exercise ``exercise_id``, loading only its own folder when it is there (a run of one
    exercise need not read every other); else as :func:`pick` finds it among them all."""
    folder = (root or default_root()) / exercise_id
    if ID_RE.match(exercise_id):
        try:
            if not is_draft(folder) and (ex := load_exercise(folder)).id == exercise_id:
                return ex
        except (OSError, ExerciseError):
            pass  # not there, or malformed: loading them all says which, or lists the known
    return pick(exercises_or_exit(root), exercise_id)


def pick(exercises: dict[str, Exercise], exercise_id: str) -> Exercise:
    """The exercise named ``exercise_id``, or exit 2 listing the known ones."""
    if exercise_id not in exercises:
        console.print(f"unknown exercise {exercise_id!r}; known: {', '.join(exercises)}",
                      markup=False)
        raise SystemExit(2)
    return exercises[exercise_id]


def cmd_list(exercises: dict[str, Exercise], lang: str) -> int:
    """The exercises by track, in the catalog's order: world sizes, prerequisites, your last
    verdict."""
    state = workspace.load_state()
    widest = max((len(i) for i in exercises), default=2)  # ids stay whole, to be copied
    tables: dict[str | None, Table] = {}
    for ex in catalog_order(exercises):
        if ex.track not in tables:
            heading = TRACKS[ex.track][lang == "zh"] if ex.track else (
                "other exercises" if lang == "en" else "其他练习")
            tables[ex.track] = table = Table(title=heading)
            for col in ("#", "id", "title · chapter", "level", "ranks", "cases", "after", "yours"):
                table.add_column(col, min_width=widest if col in ("id", "after") else
                                 8 if col == "level" else None)
        sizes = sorted({c.world_size for c in ex.cases})
        mine = state.get(ex.id)
        yours = title(mine, lang) if mine else ("started" if workspace.file_for(ex.id).exists()
                                                else "-")
        level = DIFFICULTIES[ex.difficulty][lang == "zh"] if ex.difficulty else "-"
        chapter = "; ".join(CHAPTER[c][lang == "zh"] for c in ex.chapter)
        named = f"{ex.title[lang]}\n§ {chapter}" if chapter else ex.title[lang]
        tables[ex.track].add_row(str(ex.order or ""), ex.id, named, level,
                                 ",".join(map(str, sizes)), str(len(ex.cases)),
                                 ", ".join(ex.prerequisites) or "-", yours)
    for table in tables.values():
        console.print(table)
    return 0


def cmd_start(ex: Exercise, lang: str, force: bool) -> int:
    """Copy the starter into the workspace and show the statement."""
    target = workspace.file_for(ex.id)
    if target.exists() and not force:
        console.print(f"{target} exists already: keeping your work (use --force to reset it)",
                      markup=False)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ex.path / "starter.py", target)
        console.print(f"wrote {target}", markup=False)
    console.print(Markdown(ex.statement(lang)) if console.is_terminal else ex.statement(lang))
    console.print(f"\nedit {target}, then: python practice/judge.py test {ex.id}", markup=False)
    return 0


def _run_case_for(launcher: str):
    from ..real.runtime import run_case

    return lambda job, spec: run_case(job, spec, launcher=launcher)


def grade_file(ex: Exercise, path: Path, launcher: str, seed: int | None, samples: bool,
               all_cases: bool, on_case=None) -> dict:
    """The verdict JSON for the learner's file at ``path`` on real torch."""
    from ..judge import judge_code

    runtime = "torch" if launcher == "fork" else "torch-torchrun"
    return judge_code(ex, path.read_text(encoding="utf-8"), path.name, _run_case_for(launcher),
                      runtime, seed=seed, only_samples=samples, all_cases=all_cases,
                      on_case=on_case)


def cmd_test(ex: Exercise, file: Path | None, as_json: bool, lang: str, launcher: str,
             seed: int | None, samples: bool, all_cases: bool, trace: bool = False,
             svg: Path | None = None) -> int:
    """Grade a file (default: your workspace copy); exit 0 only on accepted."""
    path = file or workspace.file_for(ex.id)
    if not path.is_file():
        hint = "" if file else f" (run `python practice/judge.py start {ex.id}` first)"
        console.print(f"no such file: {path}{hint}", markup=False)
        return 2
    on_case = None if as_json else (lambda case: show_case(console, case, lang))
    if not as_json:
        console.print(f"grading {path} on {ex.id} …", markup=False)
    result = grade_file(ex, path, launcher, seed, samples, all_cases, on_case)
    if file is None or path.resolve() == workspace.file_for(ex.id).resolve():
        workspace.remember(ex.id, result["verdict"])
    if as_json:
        sys.stdout.write(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    else:
        show_result(console, result, lang)
    if trace or svg:
        from .trace_view import show_trace

        show_trace(Console(stderr=True) if as_json else console, result, trace, svg, lang)
    return 0 if result["verdict"] == "accepted" else 1


def cmd_solution(ex: Exercise) -> int:
    """Print the reference solution."""
    sys.stdout.write(ex.solution)
    return 0


def _simulated(ex: Exercise, path: Path) -> str:
    """The verdict of ``path`` on the simulated runtime (the browser's)."""
    from ..judge import judge_code
    from ..sim.runtime import run_case

    return judge_code(ex, path.read_text(encoding="utf-8"), path.name, run_case,
                      "sim")["verdict"]


def check_rows(ex: Exercise, launcher: str) -> list[tuple[str, str, str, bool, str]]:
    """(file, wanted, got, ok, message) for the reference, the starter and each wrong solution,
    each graded on real torch and on the simulation: ok when both give what is wanted."""
    rows = []
    entries = [(ex.path / "solution.py", "accepted"), (ex.path / "starter.py", "not accepted")]
    entries += [(w.path, w.expect.value) for w in ex.wrong]
    for path, want in entries:
        result = grade_file(ex, path, launcher, None, False, False)
        got, sim = result["verdict"], _simulated(ex, path)
        ok = all(v != "accepted" if want == "not accepted" else v == want for v in (got, sim))
        if sim != got:
            got = f"{got} (sim: {sim})"
        rows.append((str(path.relative_to(ex.path)), want, got, ok, result["message"]))
    return rows


def check_exercise(ex: Exercise, launcher: str) -> int:
    """Prove one exercise on both runtimes: reference accepted, starter not, each wrong file
    its declared verdict; print the table; the number of mismatches."""
    failures = 0
    table = Table(title=f"check {ex.id}")
    for col in ("file", "expected", "got", "ok", "message"):
        table.add_column(col, overflow="fold")
    for file, want, got, ok, msg in check_rows(ex, launcher):
        failures += not ok
        if console.is_terminal:
            table.add_row(file, want, got, "[green]yes[/]" if ok else "[red]NO[/]", msg[:160])
        else:
            console.print(f"{ex.id}/{file}: expected {want}, got {got}: "
                          f"{'ok' if ok else 'MISMATCH'}", markup=False)
    if console.is_terminal:
        console.print(table)
    return failures
