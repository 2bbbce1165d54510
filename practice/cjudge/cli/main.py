"""Argument parsing for ``cjudge`` (``python practice/judge.py``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from .. import __version__
from ..courses.results import PLATFORMS
from ..exercise.draws import DRAWS
from . import commands, workspace
from .exits import PROG_ENV
from .helptext import ID_HELP, Formatter, add_command

EPILOG = """examples:
  python practice/judge.py list
      the exercises, a table per track
  python practice/judge.py start ring-allreduce
      copies the starter to your workspace and prints the statement
  python practice/judge.py test ring-allreduce
      grades your workspace copy (my.py --json: another file, as JSON)
  python practice/judge.py check
      proves every exercise's reference, starter and wrong files
  python practice/judge.py new tree-broadcast
      a new exercise (a draft); then: check tree-broadcast
  python practice/judge.py bench -b 1K -e 64M -f 4
      an nccl-tests-style sweep of torch's collectives
  python practice/judge.py bench ring-allreduce
      your implementation against dist.all_reduce
  python practice/judge.py model ring-allreduce
      modelled time (α-β) of ring, recursive doubling, … by size
  python practice/judge.py export gradescope ring-allreduce autograder/
      a course's autograder bundle (docs/courses.md)
  python practice/judge.py warm stop
      stop the warm judge (it keeps torch imported between runs)

`judge.py COMMAND --help` says what a command does, with examples.

the workspace: --workspace DIR, else $CJUDGE_WORKSPACE, else practice/workspace/ in a source \
checkout, else the user's data directory (installed: ~/.local/share/collective-judge/workspace).

test and check run in a warm judge that keeps torch imported between runs (the first run \
starts it; CJUDGE_WARM=0 runs in this process instead). Installed (pip install -e .), the \
same command is `cjudge`, e.g. `cjudge test ring-allreduce my.py`.

exit status: 0 accepted (or done), 1 not accepted (or check failed), 2 a usage error \
(unknown exercise, missing file, bad argument), 3 the judge's own failure. Results go to \
stdout, errors and warnings to stderr; --json prints results as JSON.
"""


def _options() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The parents of the commands: the options every one takes, and ``--json``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--exercises", type=Path, help="exercises folder (default: the repo's)")
    common.add_argument("--workspace", type=Path, metavar="DIR",
                        help=f"where your copies of the starters go (default: ${workspace.ENV}, "
                             "else practice/workspace/ in a checkout, else your data directory)")
    common.add_argument("--lang", choices=("en", "zh"), default="en",
                        help="language of statements and messages (English or Chinese)")
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print the results as JSON")
    return common, as_json


def _add_launcher(p: argparse.ArgumentParser) -> None:
    """``--launcher``, for the commands that run ranks (test, check)."""
    p.add_argument("--launcher", choices=("fork", "torchrun"), default="fork",
                   help="fork ranks from this process (fast) or start them with torchrun")


def _add_test(test: argparse.ArgumentParser) -> None:
    """``test``'s arguments."""
    test.add_argument("id", help=ID_HELP)
    test.add_argument("file", nargs="?", type=Path,
                      help="the file to grade (default: your workspace copy)")
    _add_launcher(test)
    test.add_argument("--seed", type=int, help="inputs from another seed")
    test.add_argument("--samples", action="store_true", help="run only the sample case")
    test.add_argument("--all", action="store_true", help="run every case even after a failure")
    test.add_argument("--trace", action="store_true",
                      help="print the run as a rank × step table (the failing case, else the largest)")
    test.add_argument("--svg", type=Path, metavar="FILE", help="write that case's diagram as SVG")
    test.add_argument("--perfetto", type=Path, metavar="FILE",
                      help="write that case's run as Chrome trace-event JSON (ui.perfetto.dev)")
    test.add_argument("--report", nargs=2, metavar=("PLATFORM", "FILE"),
                      help="also write a course platform's result file (gradescope, "
                           "prairielearn or github), one test per case: every case is run")


def _add_check(check: argparse.ArgumentParser) -> None:
    """``check``'s arguments."""
    check.add_argument("ids", nargs="*", metavar="ID",
                       help="exercises (drafts included) to check; default: every one")
    _add_launcher(check)
    check.add_argument("--draws", type=int, default=DRAWS, metavar="N",
                       help=f"also judge every file on the simulation under N more seeds "
                            f"(default {DRAWS}): a verdict must not depend on the draw")


def _add_export(export: argparse.ArgumentParser) -> None:
    """``export``'s arguments."""
    export.add_argument("platform", choices=PLATFORMS, help="the course platform")
    export.add_argument("ids", nargs="+", metavar="ID", help="the exercises it grades")
    export.add_argument("out", type=Path, metavar="DIR", help="the folder to write it into")
    export.add_argument("--course", metavar="NAME",
                        help="prairielearn: your course's name or ID (any text, the same on every "
                             "export), which keys the questions' UUIDs so that two courses never "
                             "share one; default: none, the UUIDs exports had before this option")


def parser() -> argparse.ArgumentParser:
    """The CLI's parser, with help that teaches the workflow."""
    p = argparse.ArgumentParser(
        prog=os.environ.get(PROG_ENV) or "judge.py", epilog=EPILOG,
        formatter_class=Formatter,
        description="Judge collective-communication exercises on real torch.distributed ranks "
                    "(gloo, several processes on this machine).")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    common, as_json = _options()
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, *more: argparse.ArgumentParser) -> argparse.ArgumentParser:
        return add_command(sub, name, [common, *more])

    command("list", as_json)
    start = command("start")
    start.add_argument("id", help=ID_HELP)
    start.add_argument("--force", action="store_true", help="overwrite your workspace copy")
    _add_test(command("test", as_json))
    command("solution").add_argument("id", help=ID_HELP)
    command("new").add_argument("id", help="the new exercise's id, kebab-case (e.g. tree-broadcast)")
    _add_check(command("check", as_json))
    sub.add_parser("bench", help="bandwidth sweep (see: judge.py bench --help)", add_help=False)
    command("doctor", as_json)
    _add_export(command("export"))
    add_command(sub, "warm", []).add_argument(
        "action", nargs="?", choices=("status", "stop"), default="status",
        help="status: list the warm judges (the default); stop: stop them all")
    from .model import add_parser as add_model

    add_model(sub, [common])
    return p


def _parse(argv: list[str]) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """The parser and ``argv`` parsed by it, ``--workspace`` exported and ``--report`` checked."""
    p = parser()
    args = p.parse_args(argv)
    if getattr(args, "workspace", None) is not None:  # read by cli.workspace, and by any child
        os.environ[workspace.ENV] = str(args.workspace.resolve())
    if getattr(args, "report", None) and args.report[0] not in PLATFORMS:
        p.error(f"--report: unknown platform {args.report[0]!r} (choose from {', '.join(PLATFORMS)})")
    return p, args


def _run_authoring(args: argparse.Namespace) -> int:
    """``new`` and ``check``: on drafts too, even those that do not load yet."""
    from ..exercise.exercises import default_root
    from . import authoring

    root = args.exercises or default_root()
    if args.command == "new":
        return authoring.cmd_new(commands.console, root, args.id)
    return authoring.cmd_check(commands.console, root, args.ids, args.launcher, args.json,
                               args.draws)


def _run_export(p: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``export``, its ``--course`` checked first."""
    if args.course is not None and (args.platform != "prairielearn" or not args.course.strip()):
        p.error("--course: a non-empty name, for prairielearn only (it keys question UUIDs)")
    return commands.cmd_export(args.platform, [commands.exercise_or_exit(args.exercises, i)
                                               for i in args.ids], args.out, args.course)


def _run_catalogue(args: argparse.Namespace) -> int:
    """``list`` and ``doctor``: about every exercise."""
    exercises = commands.exercises_or_exit(args.exercises)
    if args.command == "list":
        return commands.cmd_list(exercises, args.lang, args.json)
    from .doctor import doctor

    return doctor(commands.console, exercises, args.json)


def _run_exercise(args: argparse.Namespace) -> int:
    """``start``, ``solution``, ``model`` and ``test``: about one exercise."""
    ex = commands.exercise_or_exit(args.exercises, args.id)
    if args.command == "start":
        return commands.cmd_start(ex, args.lang, args.force)
    if args.command == "solution":
        return commands.cmd_solution(ex)
    if args.command == "model":
        from .model import cmd_model

        return cmd_model(ex, args, commands.console)
    return commands.cmd_test(ex, args.file, args.json, args.lang, args.launcher, args.seed,
                             args.samples, args.all, args.trace, args.svg, args.perfetto,
                             args.report)


def main(argv: list[str]) -> int:
    """Run the CLI; the exit status."""
    if argv[:1] == ["bench"] or (len(argv) > 2 and argv[2:3] == ["bench"]):
        from ..bench.cli import main as bench_main

        return bench_main(argv[argv.index("bench") + 1:])
    p, args = _parse(argv)
    if args.command == "warm":
        from .warm import cmd_warm

        return cmd_warm(args.action)
    if getattr(args, "launcher", None) == "fork":
        from ..real.zygote import start_zygote

        start_zygote()  # before any exercise (samples included) is in this process's memory
    if args.command in ("new", "check"):
        return _run_authoring(args)
    if args.command == "export":
        return _run_export(p, args)
    if args.command in ("list", "doctor"):
        return _run_catalogue(args)
    return _run_exercise(args)
