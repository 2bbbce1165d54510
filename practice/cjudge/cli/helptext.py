"""What each subcommand's ``--help`` says: what the command does first, examples last."""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass
from typing import Any

from .exits import invocation

#: the help of every exercise-id argument
ID_HELP = "an exercise's id, as `list` shows it (e.g. ring-allreduce)"


class Formatter(argparse.HelpFormatter):
    """Fills each line of a description to the width, keeps indented lines (examples) as
    written, and never breaks a word at a hyphen (ids stay whole)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(line if not line.strip() or line.startswith(" ") else
                         textwrap.fill(line, width, initial_indent=indent,
                                       subsequent_indent=indent, break_on_hyphens=False)
                         for line in text.splitlines())

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


@dataclass(frozen=True)
class Command:
    """A subcommand's help: its line in ``judge.py --help``, what it does, (arguments, effect)."""

    summary: str
    about: str
    examples: tuple[tuple[str, str], ...]

    def epilog(self) -> str:
        """The examples, each command line followed by what it does."""
        return "examples:\n" + "\n".join(f"  {invocation()} {args}\n      {effect}"
                                         for args, effect in self.examples)


COMMANDS = {
    "list": Command(
        "list the exercises and your last verdicts",
        "List the exercises, a table per track in the order to do them: each one's id (what the "
        "other commands take), title, chapter section, the exercises to do first, level, world "
        "sizes, number of cases and your last verdict.",
        (("list", "every exercise, drawn at your terminal's width"),
         ("list --lang zh", "the titles and headings in Chinese"),
         ("list --json", "one JSON object per exercise"))),
    "start": Command(
        "copy an exercise's starter to your workspace",
        "Start an exercise: copy its starter file into your workspace (--workspace DIR; "
        "practice/workspace/ in a source checkout, git-ignored; else your data directory) "
        "and print its statement. A copy you already have is kept unless --force.",
        (("start ring-allreduce", "writes ring_allreduce.py in your workspace"),
         ("start ring-allreduce --lang zh", "the statement in Chinese"),
         ("start ring-allreduce --force", "start over from the starter"))),
    "test": Command(
        "grade a file; exit status 0 only when accepted",
        "Grade your solution: run it on real torch.distributed ranks (gloo, several processes "
        "on this machine) against every case, and print each case's verdict, the bytes each "
        "rank sent against the bound, and the first failure explained. Exit status 0 only when "
        "accepted.",
        (("test ring-allreduce", "grades your workspace copy (from `start`)"),
         ("test ring-allreduce my.py --all", "another file; every case, even after a failure"),
         ("test ring-allreduce --trace", "the run as a rank × step table"),
         ("test ring-allreduce --perfetto run.json", "a case's run for ui.perfetto.dev"),
         ("test ring-allreduce my.py --report github out.json",
          "also a course platform's result file (docs/courses.md)"))),
    "solution": Command(
        "print the reference solution",
        "Print an exercise's reference solution (exercises/ID/solution.py) on stdout. At a "
        "terminal it first asks before spoiling an exercise your workspace has not passed.",
        (("solution ring-allreduce", "the reference ring all-reduce"),
         ("solution ring-allreduce > ref.py", "saved, e.g. to `test` it or `model` it"))),
    "new": Command(
        "scaffold a new exercise (a draft) for you to write",
        "Create a draft exercise folder (exercises/ID/) whose files say what to write in "
        "placeholders; `check ID` then lists what is left. The guide is docs/authoring.md.",
        (("new tree-broadcast", "writes exercises/tree-broadcast/"),
         ("check tree-broadcast", "then: what is left to write"))),
    "check": Command(
        "what is left to write; reference accepted, starter not, wrong files as declared",
        "Prove exercises (all, or those named): each reference solution accepted, each starter "
        "not, each known-wrong file given its declared verdict, on real torch and on the "
        "simulated runtime; for a draft, what is left to write. Exit status 0 only when "
        "everything is as declared.",
        (("check", "every exercise, drafts included"),
         ("check ring-allreduce tree-reduce", "only those"),
         ("check ring-allreduce --draws 100", "each file under 100 more seeds on the simulation"),
         ("check --json", "one JSON document of every report"))),
    "model": Command(
        "modelled time (α-β) of the reference algorithms and a file, by size",
        "Model the time of an exercise's reference algorithms (and of your file) with the α-β "
        "cost model over a range of sizes on a topology: time and bus bandwidth per size, the "
        "fastest, where two algorithms cross, and a chart. The table has a column per "
        "algorithm where the width allows, else a block of rows per size.",
        (("model ring-allreduce", "ring, recursive doubling, … at 8 ranks, 1 KiB to 1 GiB"),
         ("model ring-allreduce my.py --sizes 4KiB,1MB,1GB", "your file beside them"),
         ("model ring-allreduce --topology h100x8x2 --ranks 16", "two nodes of 8 GPUs"),
         ("model ring-allreduce --json --no-chart", "the sweep as JSON, no chart"))),
    "doctor": Command(
        "what this machine can run",
        "Check what this machine can run: torch and its gloo backend, torchrun, GPUs and "
        "NCCL, the sandbox, and whether local judging works (exit status 0 when it does).",
        (("doctor", "a table of checks"),
         ("doctor --json", "the same as JSON"))),
    "export": Command(
        "write a course platform's autograder bundle (gradescope, prairielearn or github) "
        "for exercises",
        "Write a ready autograder bundle for a course platform (Gradescope, PrairieLearn or "
        "GitHub Classroom) grading the exercises named, into a folder. For course staff: "
        "docs/courses.md.",
        (("export gradescope ring-allreduce autograder/", "a Gradescope autograder"),
         ("export prairielearn ring-allreduce pl/ --course cs101", "PrairieLearn "
          "questions, their UUIDs this course's own"),
         ("export github ring-allreduce tree-reduce classroom/", "GitHub Classroom, two "
          "exercises"))),
    "warm": Command(
        "the warm judge that keeps torch imported between runs: list (status) or stop",
        "List this user's warm judges, or stop them all. `test` and `check` run in a warm "
        "judge, a background process that keeps torch imported between runs (the first run "
        "starts it; CJUDGE_WARM=0 runs in the command's own process instead).",
        (("warm", "the warm judges running"),
         ("warm stop", "stop them (torch is imported again by the next run)"))),
}


def add_command(sub: Any, name: str, parents: list[argparse.ArgumentParser]
                ) -> argparse.ArgumentParser:
    """The subcommand ``name``'s parser, its help from :data:`COMMANDS`."""
    command = COMMANDS[name]
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=command.summary, description=command.about, epilog=command.epilog(),
        formatter_class=Formatter, parents=parents)
    return parser
