"""exercise.toml's ``arguments``: case parameters passed to the graded function after the tensor,
on real ranks and simulated ones alike."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cjudge.exercise.exercises import ExerciseError, default_root, load_exercise
from cjudge.grading.grade import plan_cases
from cjudge.grading.submission import judge_code
from cjudge.real import runtime as runtime_real
from cjudge.sim import runtime as runtime_sim

RING = (default_root() / "ring-allreduce" / "solution.py").read_text(encoding="utf-8")
#: the reference ring, graded through a function that also takes the case's numel
TAKES_NUMEL = RING.replace("def ring_all_reduce(t):", "def _ring(t):") + '''

def ring_all_reduce(t, numel):
    if numel != t.numel():
        raise ValueError(f"got numel={numel!r} for a tensor of {t.numel()}")
    _ring(t)
'''
RUNTIMES = [pytest.param(runtime_real.run_case, "torch", id="real"),
            pytest.param(runtime_sim.run_case, "sim", id="sim")]


def _with_arguments(tmp_path: Path, line: str) -> Path:
    target = tmp_path / "ring-allreduce"
    shutil.copytree(default_root() / "ring-allreduce", target,
                    ignore=shutil.ignore_patterns("__pycache__"))
    toml = target / "exercise.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace("seed = ", f"{line}\nseed = ", 1), encoding="utf-8")
    return target


def test_each_rank_input_carries_the_arguments(tmp_path):
    ex = load_exercise(_with_arguments(tmp_path, 'arguments = ["numel", "dtype"]'))
    assert ex.arguments == ("numel", "dtype")
    for spec in plan_cases(ex):
        assert all(i["args"] == [spec["params"]["numel"], spec["params"]["dtype"]]
                   for i in spec["inputs"])


def test_no_arguments_no_args():
    ex = load_exercise(default_root() / "ring-allreduce")
    assert ex.arguments == () and "args" not in plan_cases(ex)[0]["inputs"][0]


@pytest.mark.parametrize("line, message", [
    ('arguments = "numel"', "field `arguments`"),
    ('arguments = ["src"]', "every case needs a parameter `src`"),
    ('arguments = ["world_size"]', "every case needs a parameter `world_size`"),
])
def test_malformed_arguments_are_named(tmp_path, line, message):
    with pytest.raises(ExerciseError, match=message):
        load_exercise(_with_arguments(tmp_path, line))


@pytest.mark.parametrize("run_case, runtime", RUNTIMES)
def test_the_graded_call_gets_the_arguments(tmp_path, run_case, runtime):
    ex = load_exercise(_with_arguments(tmp_path, 'arguments = ["numel"]'))
    result = judge_code(ex, TAKES_NUMEL, "learner.py", run_case, runtime, only_samples=True)
    assert result["verdict"] == "accepted", result["message"]


@pytest.mark.parametrize("run_case, runtime", RUNTIMES)
def test_a_function_without_the_parameter_is_a_runtime_error(tmp_path, run_case, runtime):
    ex = load_exercise(_with_arguments(tmp_path, 'arguments = ["numel"]'))
    result = judge_code(ex, RING, "learner.py", run_case, runtime, only_samples=True)
    assert result["verdict"] == "runtime_error"
    assert "TypeError" in result["message"] and "positional argument" in result["message"]
