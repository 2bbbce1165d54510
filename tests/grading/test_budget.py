"""``over_budget`` explained by the trace: where the bytes went, what went twice, and what the
receivers needed in the exercise's terms (judged on the simulated runtime)."""

from __future__ import annotations

import base64

from cjudge.grading.budget import over_budget

from .helpers import first_failing as judged


def test_a_transpose_that_sends_whole_rows_is_told_what_each_rank_needed():
    case = judged("alltoall-transpose", "sends_full_rows.py")
    assert case["verdict"] == "over_budget" and case["world_size"] == 4
    assert case["message"] == (
        "correct, but rank 0 sent 48 bytes in 1 call (line 11: all_to_all, 12 elements); its "
        "bound is 12 bytes (3 elements). Rank 0 passes its whole row (4 elements) to each of "
        "the 3 others; rank p needs only block p of rank 0's row: 1 element, 3 to the others "
        "in all")
    assert case["message_zh"] == (
        "结果正确，但 rank 0 通过 1 次调用发送了 48 字节（第 11 行：1 次 all_to_all，12 个元素），"
        "其上限为 12 字节（3 个元素）。rank 0 把自己完整的行（4 个元素）发给了其他 3 个 rank 中的"
        "每一个；而 rank p 只需要 rank 0 的行中的第 p 块：1 个元素，发给其他 rank 的总共 3 个")


def test_point_to_point_sends_are_named_by_line_and_destination():
    case = judged("alltoall-p2p", "sends_whole_x.py")
    assert case["verdict"] == "over_budget"
    assert "sent 48 bytes in 3 calls (line 15: 3 messages to ranks 1, 2, 3, 4 elements each)" \
        in case["message"]
    assert "passes its whole x (4 elements) to each of the 3 others; rank p needs only block p" \
        in case["message"]
    assert "第 15 行：向 rank 1、2、3 发送 3 条消息，每条 4 个元素" in case["message_zh"]
    assert "rank 0 的输入张量 x 中的第 p 块" in case["message_zh"]


def _trace(payloads: list[tuple[int, bytes, int]]) -> dict:
    """Rank 0's sends (destination, payload, line) as a switch trace."""
    requests, messages = [], []
    for i, (dst, payload, line) in enumerate(payloads):
        requests.append({"id": 2 * i, "rank": 0, "kind": "send", "peer": dst, "sent": len(payload),
                         "line": line, "graded": True})
        requests.append({"id": 2 * i + 1, "rank": dst, "kind": "recv", "peer": 0, "sent": 0,
                         "line": 30, "graded": True})
        messages.append({"id": i, "src": 0, "dst": dst, "bytes": len(payload), "send": 2 * i,
                         "recv": 2 * i + 1, "data": {"dtype": "float32",
                                                     "b64": base64.b64encode(payload).decode()}})
    return {"world_size": 3, "requests": requests, "messages": messages}


def test_the_same_values_sent_twice_are_named():
    block = bytes(8)
    en, zh = over_budget(_trace([(1, block, 12), (2, bytes(range(8)), 12), (1, block, 15)]),
                         rank=0, sent=24, limit=16, size=4)
    assert en == ("correct, but rank 0 sent 24 bytes in 3 calls (line 12: 2 messages to ranks "
                  "1, 2, 2 elements each; line 15: 1 message to rank 1, 2 elements); its bound is "
                  "16 bytes (4 elements). It sent the same 2 elements to rank 1 twice (lines 12, "
                  "15)")
    assert "它把同样的 2 个元素向 rank 1 发送了 2 次（第 12、15 行）" in zh


def test_one_call_is_not_calls():
    en, _ = over_budget(_trace([(1, bytes(12), 7)]), rank=0, sent=12, limit=4, size=4)
    assert "in 1 call (line 7: 1 message to rank 1, 3 elements)" in en
    assert "(1 element)" in en


def test_a_reduce_scatter_that_sends_all_of_x_is_told_each_rank_needs_one_shard():
    case = judged("reduce-scatter", "send_everything_to_everyone.py")
    assert case["verdict"] == "over_budget"
    assert "Rank 0 passes its whole x (4 elements) to each of the 3 others; rank p needs only " \
           "block p of rank 0's x: 1 element" in case["message"]
    assert "rank 0 把自己完整的 x（4 个元素）发给了其他 3 个 rank 中的每一个；而 rank p 只需要 " \
           "rank 0 的 x 中的第 p 块" in case["message_zh"]


def test_the_same_values_sent_again_from_one_line_name_it_once():
    block = bytes(8)
    en, _ = over_budget(_trace([(1, block, 12), (1, block, 12), (1, block, 12)]),
                        rank=0, sent=24, limit=8, size=4)
    assert en.endswith("It sent the same 2 elements to rank 1 3 times (line 12)")
