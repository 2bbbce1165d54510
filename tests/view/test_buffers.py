"""Chunk labels and buffers filling in: what each message of the learner's run carries."""

from __future__ import annotations

import random

from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.kit.pieces import chunk_reader, exact_inputs, torch_chunks
from cjudge.sim.runtime import run_case
from cjudge.view.present import present_case

from .helpers import exercise, graded


def test_the_reference_ring_fills_every_buffer_chunk_by_chunk():
    view = graded("ring-allreduce", "solution.py", 8)["timeline"]  # random exact inputs
    msgs = sorted(view["messages"], key=lambda m: (m["step"], m["src"]))
    # step 1: rank r sends its own chunk r; step 2: the chunk it received, now two ranks' sum
    assert [(m["chunk"], m["holds"]) for m in msgs[:8]] == [(r, [r]) for r in range(8)]
    assert [(m["chunk"], m["holds"]) for m in msgs[8:16]] == [
        ((r - 1) % 8, sorted({r, (r - 1) % 8})) for r in range(8)]
    # the all-gather half carries finished chunks only
    assert all(m["holds"] == list(range(8)) for m in msgs if m["step"] > 7)
    buffers = view["buffers"]
    assert buffers["chunks"] == 8 and len(buffers["updates"]) == 8 * 14
    final = {(u["rank"], u["chunk"]): u["holds"] for u in buffers["updates"]}
    assert len(final) == 64 and all(h == list(range(8)) for h in final.values())


def test_a_wrong_ring_shows_where_chunks_stop_filling():
    view = graded("ring-allreduce", "wrong/allgather_one_step_short.py", 4)["timeline"]
    final: dict[tuple[int, int], list[int]] = {}
    for u in view["buffers"]["updates"]:
        final[(u["rank"], u["chunk"])] = u["holds"]
    full = sum(1 for h in final.values() if h == [0, 1, 2, 3])
    assert full == 12  # one step short: each rank misses one finished chunk


def test_the_reader_finds_the_fewest_ranks_and_refuses_what_no_sum_explains():
    inputs = [{"data": [1.0, 2.0, 3.0, 4.0]}, {"data": [10.0, 20.0, 30.0, 40.0]},
              {"data": [100.0, 200.0, 300.0, 400.0]}]
    read = chunk_reader(inputs, torch_chunks(4, 3))  # chunks [0, 2), [2, 4)
    assert read([110.0, 220.0]) == (0, [1, 2])
    assert read([333.0, 444.0]) == (1, [0, 1, 2])
    assert read([110.0, 221.0]) is None and read([1.0]) is None


def test_an_all_gather_fills_in_other_ranks_blocks():
    view = graded("all-gather", "solution.py", 4)["timeline"]
    buffers = view["buffers"]
    assert buffers["mode"] == "gather" and buffers["chunks"] == 4
    got = {(u["rank"], u["chunk"]): u["holds"] for u in buffers["updates"]}
    # every rank receives the 3 blocks it lacks, each block holding its owner only
    assert sorted(got) == [(r, c) for r in range(4) for c in range(4) if c != r]
    assert all(h == [c] for (_, c), h in got.items())


def test_inputs_that_cannot_tell_ranks_apart_leave_a_message_unlabelled():
    inputs = [{"data": [10.0 * r, 10.0 * r + 1]} for r in range(4)]  # 10 + 20 == 0 + 30
    read = chunk_reader(inputs, torch_chunks(2, 1))
    assert read([30.0, 32.0]) is None
    assert read([30.0, 31.0]) == (0, [3])  # one rank alone is still known


OVERWRITES = '''
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    """The ring, but its reduce-scatter copies what arrives instead of adding it."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for phase in range(2):
        for step in range(n - 1):
            send_idx, recv_idx = (rank + phase - step) % n, (rank + phase - step - 1) % n
            buf = torch.empty_like(chunks[recv_idx])
            reqs = [dist.isend(chunks[send_idx].clone(), right), dist.irecv(buf, left)]
            for req in reqs:
                req.wait()
            chunks[recv_idx].copy_(buf)
'''


def test_a_copy_where_an_add_was_due_sets_the_cell():
    """The reduce-scatter overwrites: each rank sends on exactly what it received, so the
    table shows copies that drop the rank's own contribution, not finished chunks."""
    ex = exercise("ring-allreduce")
    spec = next(s for s in plan_cases(ex) if s["world_size"] == 4)
    raw = run_case(ex.job_spec(OVERWRITES, "overwrites.py"), spec)
    facts = CaseFacts.of(ex, spec, raw)
    case = grade_case(facts)
    present_case(facts, case)
    assert case["verdict"] == "wrong_answer"
    updates = case["timeline"]["buffers"]["updates"]
    first = [u for u in updates if u["step"] == min(v["step"] for v in updates)]
    # step 1: rank r receives rank r-1's own chunk and keeps it alone, its own share lost
    assert [(u["rank"], u["holds"], u["op"]) for u in first] == [
        (r, [(r - 1) % 4], "copy") for r in range(4)]
    final = {(u["rank"], u["chunk"]): u["holds"] for u in updates}
    assert all(len(h) == 1 for h in final.values())  # nothing was ever summed


def test_the_reference_ring_adds_then_copies():
    updates = graded("ring-allreduce", "solution.py", 4)["timeline"]["buffers"]["updates"]
    half = len(updates) // 2  # reduce-scatter, then all-gather
    assert {u["op"] for u in updates[:half]} == {"add"}
    assert {u["op"] for u in updates[half:-4]} == {"copy"}  # the last receives: no send after


def test_the_reader_solves_sums_of_64_ranks():
    """Beyond a few ranks the reader solves the sum instead of listing 2^n subsets: at 64 ranks
    it names the chunk and every rank of random sums, and refuses a chunk too short to tell."""
    rng = random.Random(7)
    numel, world = 64 * 65 + 3, 64  # chunks of 66 elements, the last one of 1
    inputs = exact_inputs(world, numel, "float32", rng)
    chunks = torch_chunks(numel, world)
    read = chunk_reader(inputs, chunks)
    for _ in range(20):
        c, ranks = rng.randrange(world - 1), sorted(rng.sample(range(world), rng.randint(1, 64)))
        lo, hi = chunks[c]
        got = [sum(inputs[r]["data"][i] for r in ranks) for i in range(lo, hi)]
        assert read(got) == (c, ranks)
        got[-1] += 1 / 16
        assert read(got) is None
    lo, hi = chunks[-1]
    assert read([inputs[0]["data"][lo]]) is None
