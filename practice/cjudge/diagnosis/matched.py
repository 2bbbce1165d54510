"""When every exchange matched the reference's: what the run still shows about the fault.

Every message (or collective call) carried what the reference's carries, so each rank received
all it needed. If a rank's wrong elements still hold its own input, the received values went
somewhere else (a clone, a new tensor), and the element guess from the result ("never
reduced") is contradicted: it is replaced. Otherwise the guess is kept: it says where the values
went wrong after they arrived.
"""

from __future__ import annotations

from typing import Any

from .. import values
from ..protocol import CaseSpec, RawCase


def _kept_own_input(exercise: Any, spec: CaseSpec, raw: RawCase) -> int | None:
    """The first rank whose wrong elements all still hold its own input, or None."""
    wants = exercise.grader.expected(spec["params"], spec["world_size"], spec["inputs"])
    for report, want, mine in zip(raw["ranks"], wants, spec["inputs"], strict=True):
        got = report["output"]
        if not (values.is_tensor(got) and values.is_tensor(want) and values.is_tensor(mine)) or \
                not got["shape"] == want["shape"] == mine["shape"]:
            continue
        wrong = [i for i, (g, w) in enumerate(zip(got["data"], want["data"], strict=True))
                 if not values.element_matches(g, w, want["dtype"])]
        if wrong and all(got["data"][i] == mine["data"][i] for i in wrong):
            return int(report["rank"])
    return None


def matched(exercise: Any, spec: CaseSpec, raw: RawCase,
            collective: bool) -> tuple[tuple[str, str], bool]:
    """The cause when every message (``collective``: collective call) matched the reference's,
    and whether the element guess stays."""
    algo, algo_zh = exercise.messages.algorithm if exercise.messages else ("the reference",
                                                                          "参考解")
    what, what_zh = ("collective call", "集合通信调用") if collective else ("message", "消息")
    head = (f"every {what} matched {algo}'s, step for step, so each rank received all it needed",
            f"每条{what_zh}都与{algo_zh}逐步一致，每个 rank 都收到了所需的全部数据")
    rank = _kept_own_input(exercise, spec, raw)
    if rank is not None:
        into, into_zh = ("the tensor it was given", "传入的张量") if exercise.output == "inplace" \
            else ("the result it returns", "返回的结果")
        return ((f"{head[0]}; yet where rank {rank}'s result is wrong it still holds rank {rank}'s "
                 f"own input: what it received was added or written into a copy (a clone, a new "
                 f"tensor), never into {into}",
                 f"{head[1]}；但 rank {rank} 的结果在出错的位置上仍是它自己的输入：收到的值被加到或"
                 f"写进了一个副本（clone 或新张量），从未写入{into_zh}"), False)
    return ((f"{head[0]}; the fault is in what your code did with the values it received: where "
             "it added or wrote them, or what it returned",
             f"{head[1]}；错误在于你的代码如何处理收到的值：把它们加到或写到了哪里，或者返回了什么"),
            True)
