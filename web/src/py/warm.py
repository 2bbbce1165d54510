"""Warming the judge's interpreter up once it is ready, before the learner's first run.

Chromium first runs WebAssembly through its baseline compiler and compiles a function to
optimized code only once it has run a while, on a background thread: the first "Run all" on a
page took two to four times as long as the later ones, the same cases on the same code (issue 37).
So the worker simulates a few cases of a small program of its own as soon as Python is ready,
while the learner reads the statement: the interpreter's loop, the simulated ranks, the switch
and the stack switches get hot through the same code as a learner's run. Nothing of the
learner's is run and nothing is kept: the next run compiles its own code and makes its own cases.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from cjudge.contract.protocol import CaseSpec, JobSpec

from .judge import run_case

#: every rank passes its tensor around the ring in slices, adding what it receives
PROGRAM = """
import torch
import torch.distributed as dist

def warm(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    parts = list(t.chunk(n))
    got = torch.zeros_like(parts[0])
    for step in range(2 * n):
        sent = dist.isend(parts[(rank + step) % n], (rank + 1) % n)
        dist.recv(got, (rank - 1) % n)
        sent.wait()
        parts[(rank + step + 1) % n].add_(got)
    return t
"""
WORLD, SIZE = 8, 4096
#: how long the warm-up may take at most (it stops after the case that passes it, or after the
#: case during which a request came), and how many cases it runs at most
BUDGET_S, CASES = 1.5, 6


def warm_case() -> tuple[JobSpec, CaseSpec]:
    """The warm-up program's job and its one case."""
    job = JobSpec(function="warm", output="return", allowed=["recv", "send"],
                  code=PROGRAM, filename="warm_up.py", time_limit_s=10.0,
                  output_limit_bytes=4000)
    spec = CaseSpec(name="warm-up", world_size=WORLD, sample=False, params={},
                    inputs=[{"shape": [SIZE], "dtype": "float32", "data": [float(r)] * SIZE}
                            for r in range(WORLD)])
    return job, spec


def warm_up(wanted: Callable[[], bool], hub: Any) -> int:
    """Simulate the warm-up program's case on ``hub`` (one whose messages go nowhere) until it
    ran :data:`CASES` times, :data:`BUDGET_S` passed or ``wanted()`` says a request waits for
    the worker; the number of times it ran."""
    job, spec = warm_case()
    start = time.monotonic()
    for done in range(1, CASES + 1):
        run_case(hub, job, spec)
        if time.monotonic() - start > BUDGET_S or wanted():
            return done
    return CASES
