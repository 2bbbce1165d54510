"""What a torch.distributed error asks of the learner's code: the rule the call enforces and the
usual change, in English and Chinese, said after the error itself (``words``). Only errors whose
cause is certain from the words are listed; anything else is shown as torch says it."""

from __future__ import annotations

import re

#: (pattern of torch's message, the advice in English, in Chinese)
TABLE: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(en), advice, advice_zh) for en, advice, advice_zh in (
        (r"Tensor's dim 0 does not divide equally across group size",
         "all_to_all_single without split sizes cuts dim 0 of its input into one equal block per "
         "rank, block p going to rank p: lay the tensor out so that dim 0 runs over the "
         "destination ranks (view it with the rank axis first, permute, then .contiguous()), or "
         "pass input_split_sizes and output_split_sizes",
         "不带切分大小的 all_to_all_single 把输入的第 0 维平均切成每个 rank 一块，第 p 块发给 "
         "rank p：请调整张量的布局，让第 0 维按目标 rank 排列（先 view 出 rank 这一维放在最前，"
         "permute 后再 .contiguous()），或者传入 input_split_sizes 和 output_split_sizes"),
        (r"Split sizes doesn't match total dim 0 size",
         "input_split_sizes and output_split_sizes need one entry per rank of the group, "
         "summing to dim 0 of their tensor",
         "input_split_sizes 和 output_split_sizes 必须为组内每个 rank 各给一个值，"
         "且总和等于对应张量第 0 维的大小"),
        (r"Tensors must be contiguous|input tensor has to be contiguous",
         "a view such as a transpose, a permute or a column slice is not contiguous: pass "
         ".contiguous() of it to the call (and copy a received copy back into the view)",
         "转置、permute 或按列切片得到的视图不是连续存储的：传给通信调用的应是它的 "
         ".contiguous()（收到的结果再拷回该视图）"),
    ))


def advice(message: str) -> tuple[str, str] | None:
    """The advice for torch's error ``message``, (English, Chinese), or None."""
    for pattern, en, zh in TABLE:
        if pattern.fullmatch(message):
            return en, zh
    return None
