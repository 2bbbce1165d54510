"""``judge.py bench [ID [FILE]] [options]``: parse nccl-tests' flags, run, print and save the results.

Exit status: 0 all results right, 1 some ``#wrong`` > 0, 2 bad arguments, 3 a rank failed or hung.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

import torch
from rich.console import Console

from ..cli import workspace
from ..contract import values
from ..contract.primitives import CANONICAL
from ..contract.units import parse_size
from ..exercise.exercises import Exercise, default_root, load_exercises
from ..grading.grade import plan_cases
from . import chart, report
from .config import AGGREGATIONS, BUILTINS, DTYPE_ALIASES, DTYPES, BenchConfig, LearnerSpec, runnable
from .launch import run, under_torchrun, world_size
from .learners import ARGUMENTS
from .monitor import Outcome
from .status_line import make_display
from .sweep import sweep
from .table import render_plain, render_rich

OK, WRONG, USAGE, FAILED = 0, 1, 2, 3


def parser() -> argparse.ArgumentParser:
    """nccl-tests' flags where they apply, and the launcher's own."""
    p = argparse.ArgumentParser(
        prog="judge.py bench",
        description="Bandwidth sweeps as nccl-tests measures them: torch's built-in collectives, "
                    "or a learner's implementation of exercise ID beside the built-in it replaces.",
        epilog="Runs its own ranks (--nproc), or is one rank under torchrun "
               "(torchrun --nproc-per-node N practice/judge.py bench ...).")
    p.add_argument("exercise", nargs="?", metavar="ID",
                   help="an exercise to benchmark: any whose graded call takes the tensor of a "
                        "built-in bench measures (ring-allreduce, alltoall-transpose, …)")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="the learner's file (default: your workspace copy from `judge.py start`, "
                        "else the exercise's reference solution)")
    p.add_argument("-b", "--minbytes", default="1K", help="smallest size (K/M/G suffixes; 1K)")
    p.add_argument("-e", "--maxbytes", default="64M", help="largest size (64M)")
    p.add_argument("-f", "--stepfactor", type=int, default=2, help="multiply sizes by this (2)")
    p.add_argument("-i", "--stepbytes", default="1M", help="add this instead when -f is 1 (1M)")
    p.add_argument("-n", "--iters", type=int, default=20, help="timed iterations per size (20)")
    p.add_argument("-w", "--warmup_iters", type=int, default=1, help="untimed warm-up calls (1)")
    p.add_argument("-c", "--check", type=int, choices=(0, 1), default=1,
                   help="check results on exact inputs, in a separate untimed call (1)")
    p.add_argument("-a", "--average", default="1",
                   help="time over ranks: 0 rank0, 1 avg, 2 min, 3 max (or the names; 1)")
    p.add_argument("-d", "--datatype", default="float", help=f"one of {', '.join(DTYPES)} (float)")
    p.add_argument("-r", "--root", type=int, default=0, help="root of rooted collectives (0)")
    p.add_argument("-T", "--timeout", type=float, default=300.0,
                   help="seconds without progress before the run is declared hung (0: never; 300)")
    p.add_argument("--collectives", default=",".join(BUILTINS),
                   help="built-ins to sweep, comma-separated (all)")
    p.add_argument("--nproc", type=int, help="ranks to launch (gloo: 2; nccl: one per GPU)")
    p.add_argument("--backend", choices=("auto", "gloo", "nccl"), default="auto",
                   help="auto: nccl if there is a GPU, else gloo")
    p.add_argument("-J", "--output_file", type=Path, help="JSON path (default: in --out)")
    p.add_argument("--chart", type=Path, help="chart path, .svg or .png (default: in --out)")
    p.add_argument("--no-chart", action="store_true", help="do not draw the chart")
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder")
    return p


def _choice(value: str, names: tuple[str, ...], aliases: dict[str, str], what: str) -> str:
    value = aliases.get(value, value)
    if value not in names:
        raise ValueError(f"unknown {what} {value!r}: one of {', '.join(names)}")
    return value


#: bench's name for a canonical op it measures under another (point-to-point: both ways)
BENCHED = {"send": "sendrecv", "recv": "sendrecv"}


def builtin_of(exercise: Exercise) -> str:
    """The built-in bench times beside ``exercise`` (a name in ``BUILTINS`` when it can)."""
    op = CANONICAL.get(exercise.builtin, exercise.builtin)
    return BENCHED.get(op, op)


def unbenchable(exercise: Exercise) -> str | None:
    """Why ``bench`` cannot time ``exercise`` beside its built-in, or None when it can: its call
    takes the built-in's tensor, or it names the case parameters that scale its inputs."""
    if builtin_of(exercise) not in BUILTINS:
        return f"its built-in {exercise.builtin} is not one bench measures ({', '.join(BUILTINS)})"
    sample = plan_cases(exercise, only_samples=True)[0]["inputs"][0]
    if not values.is_tensor(sample) and not exercise.bench_scale:
        if not exercise.allowed:
            return "its graded calls communicate nothing (exercise.toml allows no primitive)"
        return ("its graded call does not take the built-in's tensor, and exercise.toml names no "
                "bench_scale")
    missing = [name for name in exercise.arguments if name not in ARGUMENTS
               and not exercise.bench_scale]  # scaled cases give their own arguments
    if missing:
        return f"its argument {missing[0]!r} has no value in a sweep"
    return None


def learner_spec(exercise_id: str, file: str | None) -> LearnerSpec:
    """The exercise's function, call and built-in, and the learner's file.

    The default file is the learner's workspace copy (``judge.py start``), else the reference.
    """
    exercises = load_exercises(default_root())

    def timed() -> str:  # only for an error: it plans every exercise's sample
        return ", ".join(i for i, ex in sorted(exercises.items()) if not unbenchable(ex))

    if exercise_id not in exercises:
        raise ValueError(f"bench knows no exercise {exercise_id!r}: one of {timed()}")
    exercise = exercises[exercise_id]
    why = unbenchable(exercise)
    if why:
        raise ValueError(f"bench cannot time {exercise_id}: {why}; it can time {timed()}")
    mine = workspace.file_for(exercise.id)
    path = Path(file) if file else mine if mine.is_file() else exercise.path / "solution.py"
    if not path.is_file():
        raise ValueError(f"no such file: {path}")
    return LearnerSpec(exercise.id, exercise.function, str(path.resolve()), builtin_of(exercise),
                       exercise.output, exercise.arguments, exercise.bench_result,
                       exercise.bench_scale)


def backend(choice: str) -> str:
    """``gloo`` or ``nccl``."""
    if choice == "auto":
        return "nccl" if torch.cuda.is_available() else "gloo"
    if choice == "nccl" and not torch.cuda.is_available():
        raise ValueError("--backend nccl needs a GPU, and torch sees none")
    return choice


def configure(args: argparse.Namespace) -> tuple[BenchConfig, int]:
    """The run's settings and how many ranks to launch; ValueError names a bad argument."""
    chosen = backend(args.backend)
    nproc = args.nproc or (torch.cuda.device_count() if chosen == "nccl" else 2)
    world = world_size(nproc)
    learner = learner_spec(args.exercise, args.file) if args.exercise else None
    names = tuple(n.strip() for n in args.collectives.split(",") if n.strip())
    for name in names:
        _choice(name, BUILTINS, {}, "collective")
    if args.iters < 1 or args.warmup_iters < 0 or nproc < 1:
        raise ValueError("need -n >= 1, -w >= 0 and --nproc >= 1")
    if not 0 <= args.root < world:
        raise ValueError(f"-r {args.root}: the root must be a rank, 0 to {world - 1}")
    aggregate = dict(zip("0123", AGGREGATIONS, strict=True)).get(args.average, args.average)
    cfg = BenchConfig(
        collectives=(learner.collective,) if learner else names, learner=learner,
        sizes=tuple(sweep(parse_size(args.minbytes), parse_size(args.maxbytes), args.stepfactor,
                          parse_size(args.stepbytes))),
        iters=args.iters, warmup=args.warmup_iters, check=bool(args.check),
        aggregate=_choice(aggregate, AGGREGATIONS, {}, "-a aggregation"),
        dtype=_choice(args.datatype, DTYPES, DTYPE_ALIASES, "datatype"), root=args.root,
        timeout_s=args.timeout, backend=chosen)
    return cfg, nproc


def output_paths(args: argparse.Namespace, cfg: BenchConfig, world: int) -> tuple[Path, Path | None]:
    """Where the JSON and the chart go: ``--out/<what>-<backend>-<n>ranks`` unless given."""
    what = (cfg.learner.exercise if cfg.learner else
            cfg.collectives[0] if len(cfg.collectives) == 1 else "builtins")
    stem = args.out / f"{what}-{cfg.backend}-{world}ranks"
    chart_path = None if args.no_chart else (args.chart or stem.with_suffix(".svg"))
    return args.output_file or stem.with_suffix(".json"), chart_path


def say(console: Console, text: str, style: str | None = None) -> None:
    """Print ``text`` as it is: no markup, no highlighting, no wrapping."""
    console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)


def status(doc: report.BenchDoc) -> int:
    """The exit status for a finished document."""
    if doc["status"] != "ok":
        return FAILED
    return WRONG if doc["wrong_total"] else OK


def main(argv: list[str]) -> int:
    """Run ``bench`` with ``argv`` (the arguments after ``bench``); the exit status."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return USAGE if exc.code else OK
    out, err = Console(), Console(stderr=True)
    try:
        cfg, nproc = configure(args)
    except ValueError as exc:
        say(err, f"bench: {exc}", "red")
        return USAGE
    world = world_size(nproc)
    json_path, chart_path = output_paths(args, cfg, world)
    skipped = sorted(set(cfg.collectives) - set(runnable(cfg, world)))
    if skipped:
        say(err, f"bench: skipping {', '.join(skipped)}: needs 2 ranks or more", "yellow")
    meta = report.Started(
        command=["bench", *argv], started=datetime.now(UTC).isoformat(timespec="seconds"),
        launcher="torchrun" if under_torchrun() else
        f"bench ({'spawn' if cfg.backend == 'nccl' else 'fork'})")

    def finish(outcome: Outcome) -> int:
        doc = report.build(cfg, outcome, {**meta, "finished": datetime.now(UTC).isoformat(
            timespec="seconds")})
        report.write(doc, json_path)
        written = [str(json_path)]
        if chart_path is not None and doc["series"]:
            chart.draw(doc, chart_path)
            written.append(str(chart_path))
        if out.is_terminal:
            render_rich(doc, out)
        else:
            sys.stdout.write(render_plain(doc))
            sys.stdout.flush()
        if doc["status"] != "ok":
            say(err, f"bench: {doc['status']}: {doc['message']}", "red")
        else:
            from ..cli.model import fitted
            from .fit import report as model_report

            model_report(doc, out, fitted())
        say(err, f"bench: wrote {', '.join(written)}")
        return status(doc)

    return run(cfg, nproc, lambda total: make_display(total, err, cfg.aggregate), finish)
