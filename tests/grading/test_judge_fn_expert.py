"""The judge's ``expert`` function (``switch.functions``, applied by the switch): each local
expert's rows times its factor, alike on real ranks and simulated ones; counts that do not fit
the rows are the caller's error, said in words."""

from __future__ import annotations

import textwrap

import pytest

from cjudge.contract.protocol import CaseSpec, JobSpec
from cjudge.real import runtime as runtime_real
from cjudge.sim import runtime as runtime_sim

RUNTIMES = [pytest.param(runtime_real.run_case, id="real"),
            pytest.param(runtime_sim.run_case, id="sim")]

CODE = """
def f(tokens, counts, expert):
    return expert(tokens, counts)
"""


def _run(run_case, rows: list[list[float]], counts: list, params: dict) -> dict:
    tokens = {"shape": [len(rows), 2], "dtype": "float32", "data": [v for r in rows for v in r]}
    job = JobSpec(function="f", output="return", allowed=["all_to_all_single"],  # type: ignore
                  code=textwrap.dedent(CODE), filename="learner.py", time_limit_s=10.0,
                  output_limit_bytes=65536)
    inputs = [{"call": [tokens, counts, {"fn": "expert", "params": params}]}]
    return run_case(job, CaseSpec(name="c", world_size=1, sample=False, params={},
                                  inputs=inputs))["ranks"][0]


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_each_local_experts_rows_are_scaled_by_its_factor(run_case):
    rows = [[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]]
    report = _run(run_case, rows, [1, 0, 2], {"factors": [5, 6, 7]})
    assert report["output"] == {"shape": [3, 2], "dtype": "float32",
                                "data": [5.0, 10.0, 3.5, -7.0, 21.0, 1.75]}


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_no_rows_at_all(run_case):
    report = _run(run_case, [], [0, 0], {"factors": [3, 4]})
    assert report["output"] == {"shape": [0, 2], "dtype": "float32", "data": []}


@pytest.mark.parametrize("run_case", RUNTIMES)
def test_counts_that_do_not_fit_are_named(run_case):
    report = _run(run_case, [[1.0, 2.0]], [2, 0], {"factors": [1, 2]})
    assert report["error"]["type"] == "ValueError"
    assert "do not add up to the 1 rows" in report["error"]["message"]
    report = _run(run_case, [[1.0, 2.0]], [1], {"factors": [1, 2]})
    assert "this rank has 2 experts" in report["error"]["message"]
