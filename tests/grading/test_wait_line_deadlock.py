"""A rank stuck in ``req.wait()`` on a request posted earlier is named at the line it waits on
(where it is stuck), beside the line that posted the request; a blocking call's sentence, posted
and waited at one line, keeps its single line. Both runtimes pass the wait's line to the switch."""

from __future__ import annotations

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
    got = t.clone()
    if rank == 1:
        req = dist.irecv(got, 0)
        t.mul_(1)
        req.wait()
    else:
        dist.recv(got, 1)
    dist.send(t, 1 - rank)
"""


@pytest.mark.parametrize("run_case", [run_sim_case, run_real_case], ids=["sim", "torch"])
def test_a_deadlock_names_the_line_a_rank_waits_on_its_request(run_case):
    ex = exercise("ring-allreduce")
    spec = next(s for s in plan_cases(ex) if s["world_size"] == 2)
    job = ex.job_spec(textwrap.dedent(CODE), "learner.py")
    case = grade_case(CaseFacts.of(ex, spec, run_case(job, spec)))
    assert case["verdict"] == "deadlock"
    blocked = {b["rank"]: (b["line"], b["waited"]) for b in case["deadlock"]["blocked"]}
    assert blocked == {0: (12, 12), 1: (8, 10)}
    assert case["message"] == (
        "cycle 0 → 1 → 0 (each rank waits on the next); "
        "rank 1 waits (line 10) for its irecv from rank 0 (posted at line 8); "
        "rank 0 is itself blocked in recv (line 12); "
        "rank 0 waits in recv from rank 1 (line 12); rank 1 is itself blocked (line 10) waiting "
        "for its irecv (posted at line 8)")
    assert case["message_zh"] == (
        "循环等待 0 → 1 → 0（每个 rank 都在等下一个）；"
        "rank 1 在第 10 行等待第 8 行挂出的 irecv 收到来自 rank 0 的数据；"
        "rank 0 自己也阻塞在 recv（第 12 行）；"
        "rank 0 在 recv 中等待来自 rank 1 的数据（第 12 行）；rank 1 自己也阻塞在第 10 行，"
        "等待第 8 行挂出的 irecv")
