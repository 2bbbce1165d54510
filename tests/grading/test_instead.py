"""A refused idiom says what to write instead, in the exercise's allowed calls (simulated
runtime): sizes exchanged with a small collective before an all-to-all, a whole tensor gathered
where an all-to-all sends each rank its block, an all_reduce where the exercise composes one, a
barrier."""

from __future__ import annotations

import textwrap

import pytest

from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case

from .helpers import exercise

SIZES_FIRST = """
import torch
import torch.distributed as dist

def dispatch(x, topk_idx, num_experts):
    counts = torch.bincount(topk_idx.flatten(), minlength=num_experts)
    sizes = [torch.zeros_like(counts) for _ in range(dist.get_world_size())]
    dist.all_gather(sizes, counts)
    return x, ([0], None)


def combine(y, meta, topk_w):
    return y


def moe_layer(x, topk_idx, topk_w, num_experts, expert):
    tokens, meta = dispatch(x, topk_idx, num_experts)
    return combine(expert(tokens, meta[0]), meta, topk_w)
"""

ALL_REDUCE = """
import torch.distributed as dist

def zero1_step(param, grad, momentum, lr, beta):
    dist.all_reduce(grad)
"""

GATHER_ALL = """
import torch
import torch.distributed as dist

def seq_to_heads(x):
    n = dist.get_world_size()
    whole = torch.empty(n * x.shape[0], *x.shape[1:], dtype=x.dtype)
    dist.all_gather_into_tensor(whole, x.contiguous())
    mine = x.shape[1] // n
    return whole[:, dist.get_rank() * mine:(dist.get_rank() + 1) * mine].contiguous()


def heads_to_seq(y):
    return y
"""

BARRIER = """
import torch.distributed as dist

def ring_all_reduce(t):
    dist.barrier()
"""

CASES = [
    ("moe-dispatch-combine", SIZES_FIRST, "calls all_gather",
     "use all_to_all_single itself: an int64 tensor with one count per rank",
     "交换大小或计数也用 all_to_all_single"),
    ("ulysses", GATHER_ALL, "calls all_gather_into_tensor",
     "all_to_all_single sends each rank only the block it needs",
     "只把每个 rank 需要的那一块发给它"),
    ("zero1-step", ALL_REDUCE, "calls all_reduce",
     "an all-reduce is a reduce_scatter_tensor followed by an all_gather_into_tensor",
     "先 reduce_scatter_tensor，再对归约后的分片做 all_gather_into_tensor"),
    ("ring-allreduce", BARRIER, "calls barrier", "no barrier is needed", "不需要 barrier"),
]


@pytest.mark.parametrize(("exercise_id", "code", "refused", "en", "zh"), CASES,
                         ids=[c[0] for c in CASES])
def test_a_refused_idiom_says_what_to_write_instead(exercise_id, code, refused, en, zh):
    result = judge_code(exercise(exercise_id), textwrap.dedent(code), "learner.py", run_case, "sim")
    case = next(c for c in result["cases"] if c["verdict"] != "accepted")
    assert case["verdict"] == "forbidden_primitive"
    assert refused in case["message"] and en in case["message"].split("); ")[1], case["message"]
    assert zh in case["message_zh"], case["message_zh"]


def test_a_refusal_without_a_known_replacement_says_only_what_is_allowed():
    code = "import torch.distributed as dist\n\ndef ring_all_reduce(t):\n    dist.all_reduce(t)\n"
    result = judge_code(exercise("ring-allreduce"), code, "learner.py", run_case, "sim")
    case = next(c for c in result["cases"] if c["verdict"] != "accepted")
    assert case["message"].endswith("(allowed: send, recv, isend, irecv, batch_isend_irecv)")
