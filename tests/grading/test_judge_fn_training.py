"""The judge's training functions (``switch.functions``): a layer given its parameters at the
call, a stage's backward given its stashed input, and a generator of gradients; each call is
applied by the switch and recorded (both inputs' digests), alike on real and simulated ranks."""

from __future__ import annotations

import textwrap

import pytest

from cjudge.contract.protocol import CaseSpec, JobSpec
from cjudge.real import runtime as runtime_real
from cjudge.sim import runtime as runtime_sim
from cjudge.switch import functions

RUNTIMES = [pytest.param(runtime_real.run_case, id="real"),
            pytest.param(runtime_sim.run_case, id="sim")]


def _t(data: list[float], shape: list[int] | None = None) -> dict:
    return {"shape": shape or [len(data)], "dtype": "float32", "data": data}


def _run(run_case, code: str, call: list) -> dict:
    job = JobSpec(function="f", output="return", allowed=["all_reduce"],  # type: ignore
                  code=textwrap.dedent(code), filename="learner.py", time_limit_s=10.0,
                  output_limit_bytes=65536)
    return run_case(job, CaseSpec(name="c", world_size=1, sample=False, params={},
                                  inputs=[{"call": call}]))


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_a_layer_adds_its_weighted_parameters(run_case):
    raw = _run(run_case, "def f(layer, w, x):\n    return layer(w, x)\n",
               [{"fn": "layer", "params": {"unit": 2}}, _t([1.0, 0.5]),
                _t([1.0, 2.0, 3.0, 4.0], [2, 2])])
    assert raw["ranks"][0]["output"] == _t([3.0, 4.0, 5.0, 6.0], [2, 2])  # + 1·1 + 2·0.5
    call, = raw["trace"]["computes"]
    assert call["inputs"] == [functions.digest(functions.pack([1.0, 0.5], "float32")),
                              call["input"]]
    assert (call["elements"], call["units"]) == (4, 2)


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_a_backward_takes_the_stashed_input_and_the_gradient(run_case):
    raw = _run(run_case, "def f(bwd, x, g):\n    return bwd(x, grad=g)\n",
               [{"fn": "backward", "params": {"shift": 8}}, _t([1.0, 2.0]), _t([0.5, 0.25])])
    assert raw["ranks"][0]["output"] == _t([9.5, 10.25])
    raw = _run(run_case, "def f(bwd, x, g):\n    return bwd(x, g)\n",
               [{"fn": "backward", "params": {}}, _t([1.0, 2.0]), _t([0.5])])
    assert "x has 2 elements, grad 1" in raw["ranks"][0]["error"]["message"]


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_the_gradients_come_one_call_each_and_stop(run_case):
    code = """
    def f(backward):
        got = [g for g in backward()]
        extra = list(backward())
        return got + extra
    """
    items = [_t([1.0, 2.0]), _t([3.0, 4.0, 5.0])]
    raw = _run(run_case, code, [{"fn": "gradients", "params": {
        "items": items, "count": 2, "dtype": "float32", "unit": 2}}])
    report = raw["ranks"][0]
    assert "has yielded all its 2 items" in report["error"]["message"]
    calls = raw["trace"]["computes"]
    assert [(c["elements"], c["units"]) for c in calls] == [(2, 1), (3, 2)]
    code = "def f(backward):\n    return list(backward())\n"
    raw = _run(run_case, code, [{"fn": "gradients", "params": {
        "items": items, "count": 2, "dtype": "float32"}}])
    assert raw["ranks"][0]["output"] == items


def test_a_training_step_answers_the_next_gradient_for_a_result_of_its_size():
    code = """
    def f(step, result):
        step(result)
        step(result.double())
    """
    items = [_t([3.0, 4.0]), _t([5.0, 6.0])]
    raw = _run(runtime_sim.run_case, code, [{"fn": "train_step", "params": {"items": items}},
                                            _t([1.0, 2.0])])
    assert "takes a float32 tensor of 2 elements, not a float64 tensor of 2" in \
        raw["ranks"][0]["error"]["message"]
    call, = raw["trace"]["computes"]  # the refused call is not recorded; the first is
    assert call["input"] == functions.digest(functions.pack([1.0, 2.0], "float32"))
    assert call["output"] == functions.digest(functions.pack([3.0, 4.0], "float32"))


def test_the_rank_sees_no_gradient_only_how_many():
    value, table = functions.split({"fn": "gradients", "params": {
        "items": [_t([1.0])], "count": 1, "dtype": "float64", "label": "backward"}})
    assert value == {"fn": "gradients", "handle": 0, "label": "backward", "count": 1,
                     "dtype": "float64"}
    assert table[0][1]["items"] == [_t([1.0])]


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_scores_answer_a_block_of_attention_scores(run_case):
    q = _t([1.0, 2.0, 0.5, -1.0], [2, 2])
    k = _t([1.0, 0.0, 0.0, 1.0, 2.0, 2.0], [3, 2])
    scores = {"fn": "scores", "params": {"dim": 2, "scale": 0.5, "unit": 6}}
    raw = _run(run_case, "def f(scores, q, k):\n    return scores(q, k)\n", [scores, q, k])
    assert raw["ranks"][0]["output"] == _t([0.5, 1.0, 3.0, 0.25, -0.5, -0.5], [2, 3])
    call, = raw["trace"]["computes"]
    assert (call["name"], call["elements"], call["units"]) == ("scores", 6, 1)
    raw = _run(run_case, "def f(scores, q, k):\n    return scores(q, k.t())\n", [scores, q, k])
    assert "same number of columns" in raw["ranks"][0]["error"]["message"]
