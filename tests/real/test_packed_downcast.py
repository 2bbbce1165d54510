"""Bit-packing a down-cast into the case's width (issue 35): on real torch, float64 data cast to
float32 and sent two to a float64 word (``.view(torch.float64)``) is charged as sent, at half
the bytes; the drawn inputs carry more significant bits than float32 keeps, so it is wrong."""

from __future__ import annotations

import textwrap

from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.real.runtime import run_case
from tests.grading.helpers import exercise

VIEW_PACKED = """
import torch
import torch.distributed as dist


def _exchange(chunk, into, right, left):
    numel = chunk.numel()
    narrow = torch.cat([chunk.float(), torch.zeros(numel % 2)])  # an even count of float32
    buf = torch.empty((into.numel() + 1) // 2, dtype=torch.float64)
    reqs = [dist.isend(narrow.view(torch.float64), right), dist.irecv(buf, left)]
    for req in reqs:
        req.wait()
    return buf.view(torch.float32)[:into.numel()].double()


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        chunks[recv_idx] += _exchange(chunks[send_idx], chunks[recv_idx], right, left)
    for step in range(n - 1):
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        chunks[recv_idx].copy_(_exchange(chunks[send_idx], chunks[recv_idx], right, left))
"""


def test_float32_pairs_viewed_as_float64_are_a_wrong_answer() -> None:
    ex = exercise("ring-allreduce")
    spec = next(s for s in plan_cases(ex) if s["name"] == "3-ranks-float64")
    case = grade_case(CaseFacts.of(ex, spec, run_case(ex.job_spec(textwrap.dedent(VIEW_PACKED), "packed.py"),
                                         spec)))
    assert case["verdict"] == "wrong_answer", case["message"]
