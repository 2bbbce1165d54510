"""Shared helpers for the simulated runtime's tests: the sim's torch, and running snippets."""

from __future__ import annotations

import textwrap

from cjudge.contract.primitives import CANONICAL
from cjudge.contract.protocol import CaseSpec, JobSpec, RawCase, TensorData
from cjudge.sim.modules import modules
from cjudge.sim.runtime import run_case
from cjudge.switch.accounting import graded_calls

#: the simulated ``torch`` and ``torch.distributed`` modules, for direct use in tests
torch = modules()["torch"]
dist = torch.distributed

ALL_OPS = sorted(set(CANONICAL.values()))
FILENAME = "learner.py"


def data(values: list, dtype: str = "float32", shape: list[int] | None = None) -> TensorData:
    """A TensorData of flat ``values``."""
    return TensorData(shape=shape if shape is not None else [len(values)], dtype=dtype,
                      data=values)


def run(code: str, inputs: list[TensorData], function: str = "f", output: str = "return",
        allowed: list[str] | None = None, time_limit_s: float = 5.0,
        output_limit_bytes: int = 65536) -> RawCase:
    """Run ``code`` (dedented) on ``len(inputs)`` simulated ranks: rank r calls
    ``function(inputs[r])``."""
    job = JobSpec(function=function, output=output,  # type: ignore[typeddict-item]
                  allowed=ALL_OPS if allowed is None else allowed,
                  code=textwrap.dedent(code), filename=FILENAME, time_limit_s=time_limit_s,
                  output_limit_bytes=output_limit_bytes)
    case = CaseSpec(name="test", world_size=len(inputs), sample=True, params={}, inputs=inputs)
    return run_case(job, case)


def outputs(raw: RawCase) -> list:
    """Every rank's output values (nested by shape), failing loudly if a rank did not return."""
    result = []
    for report in raw["ranks"]:
        assert report["state"] == "returned", report
        out = report["output"]
        assert out is not None
        result.append(out["data"])
    return result


def calls(raw: RawCase) -> list:
    """The graded calls the switch recorded, one event each (rank, seq, op, peer, bytes, ...)."""
    return graded_calls(raw["trace"])
