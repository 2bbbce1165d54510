"""Graded calls beyond one tensor: lists, tuples, numbers, the judge's functions and their charge,
on real ranks and simulated ones alike; how such results are compared and checked."""

from __future__ import annotations

import textwrap

import pytest

from cjudge.contract import values
from cjudge.contract.protocol import CaseSpec, JobSpec
from cjudge.grading.compare import compare
from cjudge.model.case import ModelSpec, model_case
from cjudge.real import runtime as runtime_real
from cjudge.sim import runtime as runtime_sim

from .helpers import exercise

RUNTIMES = [pytest.param(runtime_real.run_case, id="real"),
            pytest.param(runtime_sim.run_case, id="sim")]


def tensor(data: list, dtype: str = "float32") -> dict:
    return {"shape": [len(data)], "dtype": dtype, "data": data}


def job(code: str, function: str = "f", output: str = "return") -> JobSpec:
    return JobSpec(function=function, output=output, allowed=["send", "recv"],  # type: ignore
                   code=textwrap.dedent(code), filename="learner.py", time_limit_s=10.0,
                   output_limit_bytes=65536)


def case(inputs: list) -> CaseSpec:
    return CaseSpec(name="c", world_size=len(inputs), sample=False, params={}, inputs=inputs)


PIPE = """
import torch
import torch.distributed as dist

def f(grads, scale, stage):
    rank, world = dist.get_rank(), dist.get_world_size()
    out = []
    for g in grads:
        if rank > 0:
            dist.recv(g, rank - 1)
        g = stage(g)
        if rank < world - 1:
            dist.send(g, rank + 1)
        out.append(g * scale)
    return out, (len(grads), "done")
"""


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_lists_numbers_and_a_judge_function_reach_the_call_and_come_back(run_case):
    stage = {"fn": "affine", "params": {"scale": 2, "shift": 1}}
    inputs = [{"call": [[tensor([1.0, 2.0]), tensor([3.0])], 10, stage]} for _ in range(2)]
    raw = run_case(job(PIPE), case(inputs))
    assert [r["state"] for r in raw["ranks"]] == ["returned", "returned"], raw["ranks"]
    # rank 0 applies 2x+1 to its own; rank 1 to what rank 0 sent: 2(2x+1)+1
    assert raw["ranks"][0]["output"] == {"tuple": [[tensor([30.0, 50.0]), tensor([70.0])],
                                                   {"tuple": [2, "done"]}]}
    assert raw["ranks"][1]["output"]["tuple"][0] == [tensor([70.0, 110.0]), tensor([150.0])]
    computes = raw["trace"]["computes"]
    assert [(c["rank"], c["name"], c["line"]) for c in computes].count((1, "affine", 11)) == 2
    assert len(computes) == 4


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_functions_in_turn_make_a_round_trip(run_case):
    code = """
    def double(t):
        return t * 2

    def halve_and_count(t):
        return t / 2, t.numel()
    """
    inputs = [{"call": [tensor([1.5, -2.0])], "functions": ["double", "halve_and_count"]}]
    raw = run_case(job(code, function="double"), case(inputs))
    assert raw["ranks"][0]["output"] == {"tuple": [tensor([1.5, -2.0]), 2]}


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_a_missing_function_in_the_chain_is_named(run_case):
    inputs = [{"call": [tensor([1.0])], "functions": ["f", "inverse"]}]
    raw = run_case(job("def f(t):\n    return t\n"), case(inputs))
    error = raw["ranks"][0]["error"]
    assert error["type"] == "NameError" and "`inverse`" in error["message"]


def test_results_from_a_rank_are_checked():
    good = {"tuple": [[tensor([1.0]), 2.5, None, "x"], {"object": "dict"}]}
    assert values.checked(good) is good
    for bad in ({"shape": [2], "dtype": "float32", "data": [1.0]},  # size mismatch
                {"shape": [1], "dtype": "complex", "data": [1.0]},
                {"tuple": [1], "extra": 2}, {"fn": "affine", "params": {}},
                [[[[[[[[[[1]]]]]]]]]], "x" * 20_000):
        with pytest.raises(ValueError):
            values.checked(bad)


def test_unknown_objects_are_named_not_raised():
    assert values.encode({"a": 1}, lambda o: None) == {"object": "dict"}
    assert values.describe(values.encode(object(), lambda o: None)) == ("a object", "一个 object")


def _message(got, want) -> str | None:
    ex = exercise("ring-allreduce")
    spec = case([tensor([0.0])])
    wrong = compare(ex, spec, 0, got, want)
    return wrong.message()[0] if wrong else None


def test_comparison_walks_the_structure_and_names_the_place():
    want = {"tuple": [[tensor([1.0, 2.0]), tensor([3.0])], {"any": True}]}
    assert _message({"tuple": [[tensor([1.0, 2.0]), tensor([3.0])], "meta"]}, want) is None
    wrong = _message({"tuple": [[tensor([1.0, 2.0]), tensor([4.0])], 7]}, want)
    # the parameter's own name, not "the argument[0][1]"
    assert wrong.startswith("case c, rank 0, t[0][1]: first wrong element at index 0")
    assert "is a list of 1, expected a list of 2" in _message(
        {"tuple": [[tensor([1.0, 2.0])], 0]}, want)
    assert "is a dict, expected a tuple of 2" in _message({"object": "dict"}, want)
    assert _message(3.0000001, 3.0) is None and "expected 3, got 3.1" in _message(3.1, 3.0)
    assert "is a tensor, expected a float" in _message(tensor([3.0]), 3.0)


def test_compute_is_charged_where_the_rank_made_the_call():
    """Two stages, each calling the judge's function on three microbatches: the model charges
    c per call in program order, so the pipeline takes (M + n − 1) c plus its messages."""
    raw = runtime_sim.run_case(job(PIPE), case(
        [{"call": [[tensor([1.0] * 4)] * 3, 1, {"fn": "affine", "params": {}}]}] * 2))
    spec = ModelSpec.from_table({"topology": "h100x8", "sizes": ["1MB"], "compute": "1e-3",
                                 "time_bound": "(3 + n - 1) * (c + alpha + S/3/beta)"})
    free = ModelSpec.from_table({"topology": "h100x8", "sizes": ["1MB"]})
    run_size = values.nbytes(raw["ranks"][0]["output"]["tuple"][0])
    charged = model_case(raw["trace"], run_size, spec).model["sizes"][0]
    uncharged = model_case(raw["trace"], run_size, free).model["sizes"][0]
    assert charged["compute_s"] == pytest.approx(4e-3)  # rank 0's first, then rank 1's three
    assert charged["time_s"] - uncharged["time_s"] == pytest.approx(4e-3, rel=1e-3)
    assert charged["bound_s"] == pytest.approx(4 * (1e-3 + 5e-6 + 1e6 / 3 / 450e9))


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_all_to_all_single_with_an_empty_side_keeps_each_tensors_row_width(run_case):
    """A rank that sends no rows but receives some (an MoE rank whose experts got no tokens)."""
    code = """
    import torch
    import torch.distributed as dist

    def f(x):
        if dist.get_rank() == 0:
            out = torch.zeros(2, 3)
            dist.all_to_all_single(out, torch.zeros(0, 3), [0, 2], [0, 0])
        else:
            out = torch.zeros(0, 3)
            dist.all_to_all_single(out, x.view(2, 3), [0, 0], [2, 0])
        return out
    """
    inputs = [{"call": [tensor([0.0] * 6)]}, {"call": [tensor([1.0, 2, 3, 4, 5, 6])]}]
    allowed = job(code)
    allowed["allowed"] = ["all_to_all"]
    raw = run_case(allowed, case(inputs))
    assert [r["error"] for r in raw["ranks"]] == [None, None]
    assert raw["ranks"][0]["output"] == {"shape": [2, 3], "dtype": "float32",
                                         "data": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}


def test_a_list_that_holds_itself_is_encoded_within_the_element_budget(monkeypatch):
    monkeypatch.setattr(values, "MAX_ELEMENTS", 1000)
    loop: list = []
    loop.extend([loop] * 100)
    calls = []
    encoded = values.encode(loop, lambda o: calls.append(o))  # to_data sees every item once
    assert len(calls) <= 1000 + values.MAX_DEPTH
    assert isinstance(encoded, list) and len(encoded) < 100  # cut off: reads as too short
