"""Writing an exercise: ``judge.py new`` scaffolds a draft, ``judge.py check`` says what is left
step by step until it passes, drafts stay out of every front door, and the server serves the
finished exercise after a restart."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cjudge.exercise.exercises import load_exercises

REPO = Path(__file__).resolve().parents[2]

TOML_FIELDS = {
    "title": 'title = { en = "Broadcast from rank 0", zh = "从 rank 0 广播" }',
    "function": 'function = "broadcast0"',
    "signature": 'signature = "broadcast0(t)"',
    "output": 'output = "inplace"',
    "allowed": 'allowed = ["send", "recv", "isend", "irecv"]',
    "builtin": 'builtin = "broadcast"',
}
STATEMENT = "Copy rank 0's `t` into `t` on every rank, with send and recv only.\n"
STATEMENT_ZH = "只用 send 和 recv，把 rank 0 的 `t` 复制到每个 rank 的 `t` 中。\n"
GRADER = '''"""Trusted grading code for demo-exercise."""

import random


def make_inputs(case, rng: random.Random):
    n = case["numel"]
    return [{"shape": [n], "dtype": case.dtype,
             "data": [rng.randint(-4096, 4096) / 16 for _ in range(n)]} for _ in range(case.world)]


def expected(case, inputs):
    return [dict(inputs[0]) for _ in range(case.world)]


def bytes_bound(case):
    return (case.world - 1) * case["numel"] * case.itemsize


def diagnose(case, inputs, rank, index, got):
    return None
'''
STARTER = '''"""Broadcast rank 0's t to every rank with send/recv (用 send/recv 广播 rank 0 的 t)."""

import torch.distributed as dist


def broadcast0(t):
    """Afterwards t on every rank equals rank 0's t."""
    # TODO: rank 0 sends t to every other rank; the others receive into t.
'''
SOLUTION = '''import torch.distributed as dist


def broadcast0(t):
    if dist.get_rank() == 0:
        for peer in range(1, dist.get_world_size()):
            dist.send(t, peer)
    else:
        dist.recv(t, 0)
'''
WRONG = '''# expect: wrong_answer
# Mistake: receives into a new tensor and never copies it into t.
import torch
import torch.distributed as dist


def broadcast0(t):
    if dist.get_rank() == 0:
        for peer in range(1, dist.get_world_size()):
            dist.send(t, peer)
    else:
        dist.recv(torch.empty_like(t), 0)
'''


def judge(*args: str, root: Path) -> subprocess.CompletedProcess:
    """``practice/judge.py ARGS --exercises root``, piped (plain lines)."""
    return subprocess.run([sys.executable, "practice/judge.py", *args, "--exercises", str(root)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def left(run: subprocess.CompletedProcess) -> list[str]:
    """The steps ``check`` says are left (their lines)."""
    return [line.strip() for line in run.stdout.splitlines() if ": TODO: " in line]


def test_new_then_check_says_what_is_left_until_it_passes(tmp_path: Path) -> None:
    root = tmp_path / "exercises"
    root.mkdir()
    made = judge("new", "demo-exercise", root=root)
    assert made.returncode == 0, made.stdout + made.stderr
    folder = root / "demo-exercise"
    names = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert names == ["exercise.toml", "grader.py", "solution.py", "starter.py", "statement.md",
                     "statement.zh.md", "wrong/one.py"]
    toml_text = (folder / "exercise.toml").read_text()
    meta = tomllib.loads(toml_text)
    for key in ("id", "title", "function", "signature", "output", "allowed", "builtin",
                "time_limit_s", "output_limit_bytes", "seed", "draft", "cases"):
        assert key in meta
        # every field is explained by a comment just above it (or on its line)
        line = next(i for i, text in enumerate(toml_text.splitlines())
                    if re.match(rf"^(\[\[)?{key}\b", text))
        assert toml_text.splitlines()[line - 1].startswith("#") or "#" in toml_text.splitlines()[
            line], key
    assert judge("new", "demo-exercise", root=root).returncode == 2  # never overwrites
    assert judge("new", "Bad_Id", root=root).returncode == 2

    run = judge("check", "demo-exercise", root=root)
    assert run.returncode == 1
    steps = left(run)
    assert len(steps) == 9 and "check FAILED: 9 left to do" in run.stdout
    assert "fill in: title, function, signature, output, allowed, builtin" in steps[0]
    assert "make_inputs" in steps[3] and "expected" in steps[3] and "bytes_bound" in steps[3]
    assert "delete the line `draft = true`" in steps[8]
    assert load_exercises(root) == {}  # a draft is served by no front door
    assert "demo-exercise" in load_exercises(root, drafts=True)

    # the author writes the files one at a time; check counts down
    lines = [line for line in toml_text.splitlines()]
    for field, value in TOML_FIELDS.items():
        i = next(i for i, text in enumerate(lines) if text.startswith(f"{field} ="))
        lines[i] = value
    (folder / "exercise.toml").write_text("\n".join(lines) + "\n")
    assert len(left(judge("check", "demo-exercise", root=root))) == 8
    for name, text in (("statement.md", STATEMENT), ("statement.zh.md", STATEMENT_ZH),
                       ("grader.py", GRADER), ("starter.py", STARTER),
                       ("solution.py", SOLUTION), ("wrong/one.py", WRONG)):
        (folder / name).write_text(text)
    run = judge("check", "demo-exercise", root=root)
    assert left(run) == [next(s for s in left(run) if "draft = true" in s)], run.stdout
    assert "demo-exercise/solution.py: expected accepted, got accepted: ok" in run.stdout
    assert "demo-exercise/wrong/one.py: expected wrong_answer, got wrong_answer: ok" in run.stdout

    (folder / "exercise.toml").write_text(
        (folder / "exercise.toml").read_text().replace("draft = true\n", ""))
    run = judge("check", "demo-exercise", root=root)
    assert run.returncode == 0 and "check passed" in run.stdout, run.stdout
    assert "demo-exercise" in load_exercises(root)


def test_a_broken_grader_is_named_in_its_step(tmp_path: Path) -> None:
    root = tmp_path / "exercises"
    root.mkdir()
    judge("new", "broken-one", root=root)
    (root / "broken-one" / "grader.py").write_text("def make_inputs(:\n")
    steps = left(judge("check", "broken-one", root=root))
    assert any(s.startswith("4. grader.py") and "SyntaxError" in s for s in steps), steps


def test_check_of_an_unknown_id_suggests_new(tmp_path: Path) -> None:
    run = judge("check", "nope", root=tmp_path)
    assert run.returncode == 2 and "judge.py new nope" in run.stderr and not run.stdout


@pytest.mark.parametrize("draft", [True, False])
def test_a_draft_never_stops_the_others_from_loading(tmp_path: Path, draft: bool) -> None:
    root = tmp_path / "exercises"
    root.mkdir()
    judge("new", "half-done", root=root)
    toml = root / "half-done" / "exercise.toml"
    toml.write_text(toml.read_text().replace('function = "solve"', 'function = "not valid"')
                    .replace("draft = true", f"draft = {str(draft).lower()}"))
    if draft:
        assert load_exercises(root) == {}
    else:
        with pytest.raises(ValueError, match="function"):
            load_exercises(root)
