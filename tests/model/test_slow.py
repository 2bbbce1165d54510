"""``too_slow`` explained by the critical path: ranks, steps, lines, the pattern, the bound's
numbers, and advice only among what the exercise allows (judged on the simulated runtime)."""

from __future__ import annotations

import re

import pytest

from tests.grading.helpers import first_failing as judged


@pytest.fixture(scope="module")
def ring() -> dict:
    return judged("allreduce-small", "ring.py")


def test_a_ring_where_recursive_doubling_is_asked_names_its_critical_path(ring):
    assert ring["verdict"] == "too_slow" and ring["world_size"] == 4
    en, zh = ring["message"], ring["message_zh"]
    # the machine as the 4-rank case uses it, and the bound with its numbers at n = 4, 4 KiB
    assert en.startswith("Too slow with 4 ranks in one node of h100x8 (α = 5 µs, β = 450 GB/s), "
                         "S = 4 KiB: your modelled time is 30 µs, 200 % over the bound "
                         "2 × (5 µs + 9.1 ns) = 10 µs (tolerance 5 %).")
    assert "8 × H100" not in en
    # the critical path: 6 transfers, the lines of both loops (15 and 22) and their steps
    assert "Its critical path is 6 transfers one after another: line 15: rank" in en
    # the path follows the data back round the ring (the same path whatever the interleaving)
    assert "line 15: rank 2 → 3 → 0 → 1 (steps 1–3); line 22: rank 1 → 2 → 3 → 0 (steps 4–6)." \
        in en
    assert "That is 6 transfers in a row where the bound pays for 2." in en
    assert "上限 2 × (5 µs + 9.1 ns) = 10 µs（容差 5 %）多 200 %" in zh
    assert "h100x8 的一个节点内的 4 个 rank" in zh
    assert "关键路径是先后相继的 6 次传输：第 15 行：rank 2 → 3 → 0 → 1（第 1–3 步）；第 22 行：" \
        "rank 1 → 2 → 3 → 0（第 4–6 步）。" in zh
    assert "这是连续 6 次传输，而上限只计 2 次。" in zh


def test_advice_stays_within_what_the_exercise_allows(ring):
    """Not "one message to everyone" (over its byte bound) nor a call it refuses."""
    assert "one message" not in ring["message"] and "多条消息合成一条" not in ring["message_zh"]
    assert "recursive doubling" in ring["message"].lower() or "XOR" in ring["message"]


def test_blocking_calls_in_turn_are_named_as_serialised_steps():
    case = judged("reduce-scatter", "odd_even_blocking.py")
    assert case["verdict"] == "too_slow"
    en, zh = case["message"], case["message_zh"]
    # rank 3, odd, receives (line 20) and only then sends (line 21)
    assert "Sends and receives do not overlap: rank 3 waits for its receive (line 20) before it " \
           "posts its send (line 21), so each step costs two message times: 6 in a row where " \
           "the bound pays for 3." in en
    assert "the bound 3 × 5 µs + 6.83 ns = 15 µs" in en  # (n−1)/n·S/β as the time it takes
    assert en.endswith("Post each step's send and receive together (isend and irecv, then wait "
                       "on both): a step then costs one message time.")
    assert "发送与接收没有重叠：rank 3 等接收（第 20 行）完成后才发出发送（第 21 行）" in zh
    assert zh.endswith("把每一步的发送和接收同时发出（isend 和 irecv，再等待两者）：这样每一步只花"
                       "一次消息的时间。")


def test_a_chain_is_named_with_its_ranks():
    case = judged("tree-broadcast", "chain.py")
    assert case["verdict"] == "too_slow" and case["world_size"] == 8
    assert re.search(r"line \d+: rank (\d → ){7}\d \(steps 1–7\)", case["message"])
    assert "A chain: each transfer waits for the one before, 7 in a row through 8 ranks, where " \
           "the bound pays for 3." in case["message"]
    assert "这是一条链" in case["message_zh"]


def test_every_transfer_into_one_rank_is_named_as_its_port():
    case = judged("tree-reduce", "all_send_to_dst.py")
    assert case["verdict"] == "too_slow"
    assert "line 10: rank 0 → 6, 1 → 6, 2 → 6, 3 → 6, 4 → 6, 5 → 6, 7 → 6 (steps 1–7)" \
        in case["message"]
    assert "Every transfer on it goes into rank 6, whose port takes one at a time: 7 in a row " \
           "where the bound pays for 3." in case["message"]
    assert "其中每次传输都进入 rank 6，而它的端口一次只能传一条" in case["message_zh"]
    assert "binomial tree" in case["message"]  # the exercise's own advice


def test_blocks_passed_round_one_at_a_time_are_named():
    case = judged("all-gather", "one_block_at_a_time.py")
    assert case["verdict"] == "too_slow"
    assert "Only one transfer is ever in flight: each waits for the one before, 12 in a row " \
           "where the bound pays for 3." in case["message"]
    assert "do not overlap" not in case["message"]  # not blocking calls in turn
    assert "任何时刻都只有一次传输在进行" in case["message_zh"]


def test_a_path_that_starts_at_a_computation_names_its_one_transfer():
    case = judged("pipeline-gpipe", "blocking_send.py")
    assert case["verdict"] == "too_slow"
    assert re.search(r"Its critical path ends in one transfer: line \d+: rank \d → \d "
                     r"\(step \d+\)\.", case["message"])
    assert "1 transfer one after another" not in case["message"]


def test_a_stage_that_waits_for_every_microbatch_is_named():
    case = judged("pipeline-gpipe", "waits_for_all.py")
    assert case["verdict"] == "too_slow"
    assert re.search(r"Rank \d computes all 4 of its \w+ calls \(line \d+\) before it sends the "
                     r"first \(line \d+\): the next stage waits for every microbatch", case["message"])
    assert "下一个 stage 要等所有微批次" in case["message_zh"]


def test_a_blocking_send_between_computes_is_named():
    case = judged("pipeline-gpipe", "blocking_send.py")
    assert re.search(r"Rank \d waits for each send \(line \d+\) to be taken before it computes "
                     r"the next microbatch", case["message"])
    assert "与发送没有重叠" in case["message_zh"]


def test_a_collective_on_the_critical_path_names_the_rank_it_waited_for():
    case = judged("ddp-overlap", "blocking_all_reduce.py")
    assert case["verdict"] == "too_slow"
    assert re.search(r"line \d+: rank \d's all_reduce \(steps? [\d–]+\)", case["message"])
    assert re.search(r"第 \d+ 行：rank \d 的 all_reduce（第 [\d–]+ 步）", case["message_zh"])
