"""A deadlock's message ends with the usual fix for its shape: blocking calls head-on in a
cycle (post them non-blocking, or order by parity), a rank that returned while another waits
on it (the call counts differ), two flows on one pair and tag at once (tags)."""

from __future__ import annotations

import pytest

from .helpers import first_failing

CASES = [
    ("allreduce-small", "both_send_first.py", "every rank of the cycle sends first",
     "non-blocking", "循环中的每个 rank 都先发送"),
    ("pipeline-1f1b", "blocking_send.py", "every rank of the cycle sends first",
     "order by parity", "按奇偶排序"),
    ("reduce-scatter", "recv_before_send.py", "if each rank of the cycle sends to the one "
     "waiting on it after this receive: every rank receives first",
     "non-blocking (irecv) before the send", "每个 rank 都先接收"),
    ("alltoall-transpose", "rank0_skips_exchange.py", "rank 0 returned while rank 1 still "
     "expects a call of it", "count each rank's loop", "各 rank 的调用次数不同"),
    ("double-binary-tree", "no_tags.py", "carries two flows with tag 0 at once",
     "give each flow its own tag", "给每一路数据用不同的标签"),
]


@pytest.mark.parametrize(("exercise_id", "wrong", "shape", "fix", "zh"), CASES,
                         ids=[f"{e}/{w}" for e, w, *_ in CASES])
def test_the_deadlocks_shape_gets_its_fix(exercise_id, wrong, shape, fix, zh):
    case = first_failing(exercise_id, wrong)
    assert case["verdict"] == "deadlock"
    said = case["message"]
    assert shape in said.partition("; fix")[2], said
    assert fix in said and "改法" in case["message_zh"] and zh in case["message_zh"], said
    assert case["deadlock"]["advice"][0]["en"] in said  # as data too, for the web app


def test_a_receive_that_no_rank_answers_gets_the_fix_as_a_condition():
    case = first_failing("tree-broadcast", "root_also_receives.py")
    assert case["verdict"] == "deadlock"
    assert "fix, if each rank of the cycle sends to the one waiting on it" in case["message"]
    assert "改法（如果" in case["message_zh"]
