"""Real code's CUDA habits on the real runtime without a GPU (the CPU lane): no-ops noted once
on rank 0, where torch itself would raise "Torch not compiled with CUDA enabled"."""

from __future__ import annotations

import pytest
import torch

from cjudge.rank.cuda_note import note_line
from tests.grading.helpers import judge_first_case

CUDA_RING = """
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(t.cuda().chunk(n))
    torch.cuda.synchronize()
    right, left = (rank + 1) % n, (rank - 1) % n
    for phase in range(2):
        for step in range(n - 1):
            send = chunks[(rank - step + phase) % n]
            recv = torch.empty_like(chunks[(rank - step - 1 + phase) % n]).to("cuda")
            for req in [dist.isend(send, right), dist.irecv(recv, left)]:
                req.wait()
            if phase == 0:
                chunks[(rank - step - 1) % n] += recv
            else:
                chunks[(rank - step) % n].copy_(recv)
    torch.cuda.synchronize()
"""


@pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU lane only: a GPU runs CUDA calls")
def test_cuda_calls_on_the_cpu_lane_are_no_ops_noted_once_on_rank_0():
    raw, case = judge_first_case("ring-allreduce", CUDA_RING)
    assert case["verdict"] == "accepted", case["message"]
    for call in ("torch.cuda.synchronize()", ".cuda()", '.to("cuda")'):
        assert raw["stdout"].count(note_line(call)) == 1, raw["stdout"]
    assert "[rank 1]" not in raw["stdout"]
