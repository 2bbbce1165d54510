"""A time_limit verdict says where the ranks were when the limit hit: the ranks still computing
with the call each made last, and the ranks waiting in a call, with its line and on whom."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.real.runtime import run_case as run_real_case
from cjudge.sim.runtime import run_case as run_sim_case
from tests.grading.helpers import exercise

CODE = """
import torch.distributed as dist

def ring_all_reduce(t):
    rank = dist.get_rank()
    if rank == 2:
        dist.isend(t, 3)
        while True:
            pass
    if rank == 3:
        dist.recv(t, 2)
    else:
        dist.recv(t, 2)
"""


@pytest.mark.parametrize("run_case", [run_sim_case, run_real_case], ids=["sim", "torch"])
def test_a_time_limit_says_where_each_rank_is(run_case):
    ex = dataclasses.replace(exercise("ring-allreduce"), time_limit_s=1.5)
    spec = next(s for s in plan_cases(ex) if s["world_size"] == 4)
    job = ex.job_spec(textwrap.dedent(CODE), "learner.py")
    case = grade_case(CaseFacts.of(ex, spec, run_case(job, spec)))
    assert case["verdict"] == "time_limit"
    assert case["message"] == (
        "rank 2 still computing after the 1.5 s limit; rank 2 last called isend (line 7); "
        "ranks 0, 1 wait in recv from rank 2 (line 13); rank 2 is still computing")
    assert case["message_zh"] == (
        "rank 2 在 1.5 秒限制后仍在计算；rank 2 最后一次调用的是 isend（第 7 行）；"
        "rank 0, 1 在 recv 中等待来自 rank 2 的数据（第 13 行）；rank 2 仍在计算")
