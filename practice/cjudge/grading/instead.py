"""What to write instead of a refused call, from what the exercise allows: the idioms public
code brings (sizes exchanged with a small collective before an all-to-all, an all_reduce where
the exercise composes one, a barrier) and their replacement in the exercise's own calls. Said
after ``forbidden_primitive``'s message; None where no replacement is known."""

from __future__ import annotations

from collections.abc import Collection

#: collectives public code uses to exchange sizes or counts before an all-to-all
SIZE_EXCHANGES = frozenset({"all_gather", "all_reduce", "broadcast", "gather", "scatter"})


def instead(kind: str, allowed: Collection[str]) -> tuple[str, str] | None:
    """(English, Chinese) advice for a refused call of canonical ``kind``; None if none."""
    names = set(allowed)
    if kind in SIZE_EXCHANGES and "all_to_all_single" in names:
        return ("all_to_all_single sends each rank only the block it needs, with the tensor "
                "laid out destination rank first; to exchange sizes or counts, use "
                "all_to_all_single itself: an int64 tensor with one count per rank in, and out "
                "the count each rank sends you; then pass them as output_split_sizes and "
                "input_split_sizes",
                "all_to_all_single 只把每个 rank 需要的那一块发给它（把张量排成目标 rank 在最前的"
                "布局）；交换大小或计数也用 all_to_all_single：输入是每个 rank 一个计数的 int64 "
                "张量，输出是每个 rank 发给你的计数；再把它们作为 output_split_sizes 和 "
                "input_split_sizes 传入")
    if kind == "all_reduce" and {"reduce_scatter_tensor", "all_gather_into_tensor"} <= names:
        return ("an all-reduce is a reduce_scatter_tensor followed by an all_gather_into_tensor "
                "of the reduced shard",
                "all-reduce 就是先 reduce_scatter_tensor，再对归约后的分片做 all_gather_into_tensor")
    if kind == "barrier":
        return ("no barrier is needed: waiting on a request (or a blocking call) already orders "
                "a rank after the data it needs",
                "不需要 barrier：等待请求（或阻塞调用）本身就保证了 rank 在所需数据到达之后才继续")
    return None
