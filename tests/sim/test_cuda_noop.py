"""Real code's CUDA habits on the simulated runtime: ``torch.cuda.synchronize()``, ``.cuda()``
and ``.to("cuda")`` do nothing, and rank 0's output says so once per kind of call."""

from __future__ import annotations

from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.rank.cuda_note import note_line
from cjudge.sim.runtime import run_case
from tests.grading.helpers import exercise

CUDA_RING = '''
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    work = t.cuda()
    torch.cuda.synchronize()
    for _ in range(2):
        torch.cuda.synchronize()
    total = work.to("cuda").clone()
    dist.all_reduce(total)
    t.copy_(total.to(device="cuda:0", dtype=t.dtype))
'''


def _first_case(code: str) -> tuple[dict, dict]:
    ex = exercise("ring-allreduce")
    ex_job = ex.job_spec(code, "learner.py")
    ex_job["allowed"] = ["all_reduce"]
    spec = plan_cases(ex)[0]
    raw = run_case(ex_job, spec)
    return raw, grade_case(CaseFacts.of(ex, spec, raw))


def test_cuda_calls_are_no_ops_noted_once_on_rank_0():
    raw, case = _first_case(CUDA_RING)
    assert case["verdict"] in ("accepted", "over_budget", "too_slow"), case["message"]
    assert all(r["state"] == "returned" for r in raw["ranks"])
    for call in ("torch.cuda.synchronize()", ".cuda()", '.to("cuda")'):
        assert raw["stdout"].count(note_line(call)) == 1, raw["stdout"]
    assert "[rank 1]" not in raw["stdout"]
    assert "在这里不做任何事" in raw["stdout"]


def test_torch_cuda_says_there_is_no_gpu_and_names_what_it_lacks():
    raw, case = _first_case(CUDA_RING.replace("torch.cuda.synchronize()\n    for",
                                              "torch.cuda.Stream()\n    for"))
    assert case["verdict"] == "runtime_error"
    assert "torch.cuda.Stream" in case["message"]
