"""``judge.py`` at an 80-column terminal: mistyped ids, help that teaches, output that fits."""

from __future__ import annotations

import argparse
import re
import subprocess

import pytest
from rich.cells import cell_len

from cjudge.cli.main import parser
from tests.cli.test_cli import judge_cli


@pytest.mark.parametrize("command", ["start", "model", "check"])
def test_a_mistyped_id_gets_did_you_mean_not_the_whole_catalog(tmp_path, command):
    run = judge_cli(command, "ring-alreduce", workspace=tmp_path, CJUDGE_WARM="0")
    assert run.returncode == 2 and run.stdout == ""
    assert "unknown exercise 'ring-alreduce'; did you mean ring-allreduce" in run.stderr
    assert "ulysses" not in run.stderr  # not every id there is


def test_an_id_close_to_none_points_to_list(tmp_path):
    run = judge_cli("solution", "no-such-exercise", workspace=tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith("judge.py: error: unknown exercise 'no-such-exercise'; "
                                 "`python practice/judge.py list` shows the exercises")
    assert "ring-allreduce" not in run.stderr


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser but bench's (bench --help is bench's own parser)."""
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {name: p for name, p in sub.choices.items() if name != "bench"}


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_help_opens_with_what_it_does_and_ends_with_examples_in_80_columns(command):
    run = judge_cli(command, "--help", COLUMNS="80")
    assert run.returncode == 0, run.stderr
    blocks = run.stdout.strip().split("\n\n")
    assert blocks[0].startswith(f"usage: judge.py {command} ")
    assert blocks[1][0].isupper() and blocks[1].endswith(".")  # a sentence, not a section
    assert blocks[-1].startswith(f"examples:\n  python practice/judge.py {command}")
    assert max(cell_len(line) for line in run.stdout.splitlines()) <= 80
    assert not re.search(r"\w-\n", run.stdout)  # ids and paths never broken at a hyphen


def test_the_commands_help_fits_80_columns():
    run = judge_cli("--help", COLUMNS="80")
    assert "\nexamples:\n  python practice/judge.py list\n" in run.stdout
    assert max(cell_len(line) for line in run.stdout.splitlines()) <= 80


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_every_argument_has_help(command):
    unhelped = [a.dest for a in subcommands()[command]._actions if not a.help]
    assert unhelped == []


def fitted(run: subprocess.CompletedProcess[str], columns: int) -> list[str]:
    """The run's stdout lines, colour removed, after checking none is wider than ``columns``."""
    assert run.returncode == 0, run.stderr
    lines = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout).splitlines()
    assert lines and max(cell_len(line) for line in lines) <= columns
    return lines


#: a terminal for rich although the output is piped
TERMINAL = {"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}


@pytest.mark.parametrize("columns", [80, 100, 120])
@pytest.mark.parametrize("terminal", [False, True])
def test_model_fits_the_width_with_every_time_whole(tmp_path, columns, terminal):
    run = judge_cli("model", "ring-allreduce", "--no-chart", workspace=tmp_path,
                    COLUMNS=str(columns), **(TERMINAL if terminal else {}))
    lines = fitted(run, columns)
    assert any("┃" in line for line in lines) == terminal
    times = re.findall(r"\d (?:µs|ms)\b", run.stdout)
    assert len(times) == 21 * 3  # 1 KiB..1 GiB, ring, recursive doubling and Rabenseifner
    assert "ring and recursive doubling cross at 19.8 MB." in lines


def test_model_at_80_columns_is_a_block_per_size(tmp_path):
    lines = fitted(judge_cli("model", "ring-allreduce", "--no-chart", "--sizes", "1K,1G",
                             workspace=tmp_path, COLUMNS="80"), 80)
    assert all(line == line.rstrip() for line in lines)  # piped: plain lines, never padded
    rows = [line.split() for line in lines if re.search(r" [µm]s .* (\d\.\d\dx|fastest)$", line)]
    assert [(r[-6], r[-1]) for r in rows] == [  # algorithm's last word, time over the fastest's
        ("ring", "4.66x"), ("doubling", "fastest"), ("Rabenseifner", "2.00x"),
        ("ring", "1.01x"), ("doubling", "1.71x"), ("Rabenseifner", "fastest")]


def test_list_fits_80_columns_on_a_terminal(tmp_path):
    lines = fitted(judge_cli("list", workspace=tmp_path, COLUMNS="80", **TERMINAL), 80)
    assert any(line.startswith("┃ #") for line in lines)
