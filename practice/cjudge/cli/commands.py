"""What each subcommand does; ``main`` parses arguments and routes here."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict

from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.table import Table

from ..contract.protocol import CaseSpec, JobSpec, RawCase
from ..contract.verdict_json import CaseResult, VerdictJSON, dumps
from ..contract.verdicts import title
from ..exercise.draws import DRAWS, draw_seeds, meets, other_draws
from ..exercise.exercises import (
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
from . import workspace
from .exits import JUDGE, OK, REJECTED, USAGE, error, invocation, warn
from .mathtext import render_math
from .render import show_case, show_result
from .suggest import unknown_exercise

console = Console()
if not console.is_terminal:
    console = Console(soft_wrap=True)  # piped: plain lines, never wrapped


def exercises_or_exit(root: Path | None) -> dict[str, Exercise]:
    """Every exercise, or a clear message and exit status 2 for a malformed folder."""
    try:
        return load_exercises(root or default_root())
    except ExerciseError as exc:
        error(f"malformed exercise: {exc}")
        raise SystemExit(USAGE) from None


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
    """The exercise named ``exercise_id``, or exit 2 naming the ids it is close to."""
    if exercise_id not in exercises:
        error(unknown_exercise(exercise_id, exercises))
        raise SystemExit(USAGE)
    return exercises[exercise_id]


#: the ``list`` table's columns (en, zh): the exercise's cell holds its id, title, chapter
#: section and prerequisites on lines of their own, so the table fits 80 columns
LIST_COLUMNS = (("#", "#"), ("exercise", "练习"), ("level", "难度"), ("ranks", "进程数"),
                ("cases", "用例"), ("yours", "你的结果"))


class ListRow(TypedDict):
    """An exercise as ``list`` shows it (and ``list --json`` writes it)."""

    track: str | None
    number: int  # within its track, from 1
    id: str
    title: str
    chapter: list[str]  # keys of ``CHAPTER``
    level: str | None  # a key of ``DIFFICULTIES``
    ranks: list[int]  # its cases' world sizes
    cases: int
    after: list[str]  # its prerequisites
    yours: str | None  # your last verdict, "started", or None


def list_rows(exercises: dict[str, Exercise], lang: str) -> list[ListRow]:
    """The catalog as ``list`` shows it: by track, numbered 1, 2, … within each track (the
    ``order`` fields sort, the numbers never skip), with your last verdict; the title in
    ``lang``, the chapter's sections and the level as their keys."""
    state = workspace.load_state()
    rows: list[ListRow] = []
    number: dict[str | None, int] = {}
    for ex in catalog_order(exercises):
        number[ex.track] = number.get(ex.track, 0) + 1
        mine = state.get(ex.id)
        rows.append({
            "track": ex.track, "number": number[ex.track], "id": ex.id, "title": ex.title[lang],
            "chapter": list(ex.chapter), "level": ex.difficulty,
            "ranks": sorted({c.world_size for c in ex.cases}), "cases": len(ex.cases),
            "after": list(ex.prerequisites),
            "yours": mine or ("started" if workspace.file_for(ex.id).exists() else None)})
    return rows


def cmd_list(exercises: dict[str, Exercise], lang: str, as_json: bool = False) -> int:
    """The exercises by track, in the catalog's order: world sizes, prerequisites, your last
    verdict; a table per track that fits the terminal (80 columns and up)."""
    rows = list_rows(exercises, lang)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
        return 0
    zh = lang == "zh"
    widest = max((len(i) for i in exercises), default=2)  # ids stay whole, to be copied
    tables: dict[str | None, Table] = {}
    for row in rows:
        if row["track"] not in tables:
            heading = TRACKS[row["track"]][zh] if row["track"] else ("其他练习" if zh else
                                                                     "other exercises")
            tables[row["track"]] = table = Table(title=heading)
            for (en, cn), width in zip(LIST_COLUMNS, (2, widest, 8, 9, 5, 11), strict=True):
                table.add_column(cn if zh else en, min_width=width, overflow="fold",
                                 ratio=1 if en == "exercise" else None)
        cell = [f"[bold]{escape(row['id'])}[/]", escape(row["title"])]
        cell += [f"§ {escape(CHAPTER[c][zh])}" for c in row["chapter"]]
        if row["after"]:
            cell.append(("先做：" if zh else "after: ") + ", ".join(row["after"]))
        yours = row["yours"]
        tables[row["track"]].add_row(
            str(row["number"]), "\n".join(cell),
            DIFFICULTIES[row["level"]][zh] if row["level"] else "-",
            ",".join(map(str, row["ranks"])), str(row["cases"]),
            ("已开始" if zh else "started") if yours == "started" else
            title(yours, lang) if yours else "-")
    for table in tables.values():
        console.print(table, soft_wrap=False)  # at the terminal's width, piped too
    return 0


def cmd_start(ex: Exercise, lang: str, force: bool) -> int:
    """Copy the starter into the workspace and show the statement."""
    target = workspace.file_for(ex.id)
    if target.exists() and not force:
        warn(f"{target} exists already: keeping your work (use --force to reset it)")
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ex.path / "starter.py", target)
        console.print(f"wrote {target}", markup=False)
    statement = ex.statement(lang)
    console.print(Markdown(render_math(statement)) if console.is_terminal
                  else render_math(statement, for_markdown=False), markup=False)
    console.print(f"\nedit {target}, then: {invocation()} test {ex.id}", markup=False)
    return 0


def _run_case_for(launcher: str) -> Callable[[JobSpec, CaseSpec], RawCase]:
    from ..real.runtime import run_case

    return lambda job, spec: run_case(job, spec, launcher=launcher)


def grade_file(ex: Exercise, path: Path, launcher: str, seed: int | None, samples: bool,
               all_cases: bool, on_case: Callable[[CaseResult], None] | None = None) -> VerdictJSON:
    """The verdict JSON for the learner's file at ``path`` on real torch; the simulated
    runtime explores a failure (the reference's run, the smallest failing case)."""
    from ..grading.submission import judge_code
    from ..sim.runtime import run_case as simulated

    runtime = "torch" if launcher == "fork" else "torch-torchrun"
    return judge_code(ex, path.read_text(encoding="utf-8"), path.name, _run_case_for(launcher),
                      runtime, seed=seed, only_samples=samples, all_cases=all_cases,
                      on_case=on_case, explore=simulated)


def cmd_test(ex: Exercise, file: Path | None, as_json: bool, lang: str, launcher: str,
             seed: int | None, samples: bool, all_cases: bool, trace: bool = False,
             svg: Path | None = None, perfetto: Path | None = None,
             report: tuple[str, str] | None = None) -> int:
    """Grade a file (default: your workspace copy); exit 0 only on accepted. With ``report``
    (platform, file), every case runs and that course platform's result file is written too."""
    path = file or workspace.file_for(ex.id)
    if not path.is_file():
        hint = "" if file else f" (run `{invocation()} start {ex.id}` first)"
        error(f"no such file: {path}{hint}")
        return USAGE
    on_case = None if as_json else (lambda case: show_case(console, case, lang))
    if not as_json:
        console.print(f"grading {path} on {ex.id} …", markup=False)
    result = grade_file(ex, path, launcher, seed, samples, all_cases or report is not None,
                        on_case)
    if report is not None:
        from ..courses.results import write_report

        write_report(report[0], [(ex, result, path.name)], Path(report[1]))
    if file is None or path.resolve() == workspace.file_for(ex.id).resolve():
        workspace.remember(ex.id, result["verdict"])
    if as_json:
        sys.stdout.write(dumps(result, indent=1, ensure_ascii=False) + "\n")
    else:
        show_result(console, result, lang)
    if trace or svg or perfetto:
        from .trace_view import show_trace

        show_trace(Console(stderr=True) if as_json else console, result, trace, svg, lang,
                   perfetto)
    return exit_status(result["verdict"])


def cmd_export(platform: str, exercises: list[Exercise], out: Path, course: str | None) -> int:
    """Write a course platform's autograder bundle for ``exercises`` into ``out`` (``course``
    keys PrairieLearn's question UUIDs)."""
    from ..courses.bundles import export

    export(platform, exercises, out, course)
    console.print(f"wrote the {platform} autograder for {', '.join(e.id for e in exercises)} "
                  f"into {out} (docs/courses.md)", markup=False)
    return OK


def exit_status(verdict: str) -> int:
    """``test``'s exit status for a verdict: 0 accepted, 3 the judge's own error, else 1."""
    return OK if verdict == "accepted" else JUDGE if verdict == "judge_error" else REJECTED


#: what ``solution`` asks at a terminal before it spoils an exercise not yet passed
SPOILER_QUESTION = ("You have not passed {id} yet; show its reference solution? / "
                    "你还没有通过 {id}，要显示参考解答吗？[y/N] ")


def cmd_solution(ex: Exercise) -> int:
    """Print the reference solution; at a terminal, first ask whether to spoil an exercise
    the workspace has not passed (piped, as scripts and tests run it, it prints)."""
    if sys.stdin.isatty() and sys.stderr.isatty() and workspace.load_state().get(ex.id) != "accepted":
        sys.stderr.write(SPOILER_QUESTION.format(id=ex.id))
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes", "是"):
            return OK
    sys.stdout.write(ex.solution)
    return OK


def _simulated(ex: Exercise, path: Path) -> str:
    """The verdict of ``path`` on the simulated runtime (the browser's)."""
    from ..grading.submission import judge_code
    from ..sim.runtime import run_case

    return judge_code(ex, path.read_text(encoding="utf-8"), path.name, run_case,
                      "sim")["verdict"]


def _draws_text(others: list[tuple[int, str]], count: int) -> str:
    """The draws that gave another verdict, for the ``got`` column: the first of each verdict."""
    firsts: dict[str, int] = {}
    for seed, verdict in others:
        firsts.setdefault(verdict, seed)
    return ", ".join(f"sim seed {seed}: {verdict}" for verdict, seed in firsts.items()) + \
        f"; {len(others)} of {count} draws"


def check_rows(ex: Exercise, launcher: str,
               draws: int = DRAWS) -> list[tuple[str, str, str, bool, str]]:
    """(file, wanted, got, ok, message) for the reference, the starter and each wrong solution,
    each graded at the exercise's seed on real torch and on the simulation, and on the
    simulation under ``draws`` more seeds (fresh inputs, as the server draws them for each
    submission): ok when every run gives what is wanted."""
    seeds, rows = draw_seeds(ex, draws), []
    entries = [(ex.path / "solution.py", "accepted"), (ex.path / "starter.py", "not accepted")]
    entries += [(w.path, w.expect.value) for w in ex.wrong]
    for path, want in entries:
        result = grade_file(ex, path, launcher, None, False, False)
        got: str = result["verdict"]
        sim = _simulated(ex, path)
        others = other_draws(ex, path.read_text(encoding="utf-8"), path.name, want, seeds)
        ok = meets(want, got) and meets(want, sim) and not others
        if sim != got:
            got = f"{got} (sim: {sim})"
        if others:
            got = f"{got} ({_draws_text(others, len(seeds))})"
        rows.append((str(path.relative_to(ex.path)), want, got, ok, result["message"]))
    return rows


class CheckRow(TypedDict):
    """One file of an exercise's proof: the verdict it should get, the one it got, whether
    that is what was wanted, and its message."""

    file: str
    expected: str
    got: str
    ok: bool
    message: str


def check_exercise(ex: Exercise, launcher: str, console: Console | None,
                   draws: int = DRAWS) -> list[CheckRow]:
    """Prove one exercise on both runtimes, and under ``draws`` more seeds on the simulation:
    reference accepted, starter not, each wrong file its declared verdict; each file's
    ``{"file", "expected", "got", "ok", "message"}``, shown on ``console`` unless that is
    None."""
    rows = [CheckRow(file=file, expected=want, got=got, ok=ok, message=message)
            for file, want, got, ok, message in check_rows(ex, launcher, draws)]
    if console is None:
        return rows
    seeds = draw_seeds(ex, draws)
    where = f"real torch and the simulation at seed {ex.seed}" + (
        f"; the simulation at {len(seeds)} more draws, seeds {seeds[0]}–{seeds[-1]}"
        if seeds else "")
    if not console.is_terminal:
        console.print(f"{ex.id}: {where}", markup=False)
        for row in rows:
            console.print(f"{ex.id}/{row['file']}: expected {row['expected']}, got {row['got']}: "
                          f"{'ok' if row['ok'] else 'MISMATCH'}", markup=False)
        return rows
    table = Table(title=f"check {ex.id}", caption=where)
    for col in ("file", "expected", "got", "ok", "message"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(row["file"], row["expected"], row["got"],
                      "[green]yes[/]" if row["ok"] else "[red]NO[/]", escape(row["message"][:160]))
    console.print(table)
    return rows
