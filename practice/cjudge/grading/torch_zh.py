"""torch.distributed's error messages in Chinese: the words torch raises at a call, which the
simulated runtime and the judge's process group raise in the same words. A rank's error that
carries no Chinese of its own (``RankError.message_zh``) is shown with its entry here, if any;
Python's own errors (a name not defined, an index out of range) stay as Python says them."""

from __future__ import annotations

import re

_ROLE = {"source": "源", "destination": "目标"}

#: (pattern of the English message, its Chinese with the pattern's groups as {1}, {2}, …)
TABLE: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(en), zh) for en, zh in (
    (r"Invalid (src|dst) rank (-?\d+): the group holds ranks (\[.*\])",
     "{1} rank {2} 无效：该组只有 rank {3}"),
    (r"Invalid rank (-?\d+): the group holds (\d+) ranks \(global ranks (\[.*\])\)",
     "rank {1} 无效：该组只有 {2} 个 rank（全局 rank 为 {3}）"),
    (r"the judge's process group takes one tensor per rank and call",
     "评测机的进程组每个 rank 每次调用只接受一个张量"),
    (r"Invalid (destination|source) rank: \1 rank should not be the same as the rank of the "
     r"current process\.", "无效的{role1} rank：它不能是当前进程自己的 rank"),
    (r"Cannot specify both (src|dst) and group_(src|dst)", "不能同时指定 {1} 和 group_{2}"),
    (r"(src|dst) rank must be given", "必须给出 {1} rank"),
    (r"(\w+): rank (-?\d+) is not in the group \(ranks (\[.*\])\)",
     "{1}：rank {2} 不在该组中（组内 rank：{3}）"),
    (r"Tensor's dim 0 does not divide equally across group size",
     "张量的第 0 维无法在组内各 rank 之间平均切分"),
    (r"Split sizes doesn't match total dim 0 size",
     "切分大小（split sizes）之和与张量第 0 维的大小不符"),
    (r"Tensors must be contiguous", "张量必须是连续存储的（contiguous）"),
    (r"input tensor has to be contiguous", "输入张量必须是连续存储的（contiguous）"),
    (r"(\w+): a rank sent (\d+) elements into a tensor of (\d+)",
     "{1}：某个 rank 发来 {2} 个元素，而接收张量只有 {3} 个"),
    (r"(broadcast|scatter): rank (\d+) sent (\d+) elements into a tensor of (\d+)",
     "{1}：rank {2} 发来 {3} 个元素，而接收张量只有 {4} 个"),
    (r"ProcessGroupGloo::(\w+): tensors must have one dtype \((.*) and (.*)\)",
     "ProcessGroupGloo::{1}：张量的 dtype 必须相同（{2} 与 {3}）"),
    (r"ProcessGroupGloo::(\w+): the larger tensor must hold world_size \((\d+)\) × the smaller "
     r"one's (\d+) elements, it holds (\d+)",
     "ProcessGroupGloo::{1}：较大的张量必须容纳 world_size（{2}）× 较小张量的 {3} 个元素，"
     "它却有 {4} 个"),
    (r"ProcessGroupGloo::reduce_scatter: input_list must hold one tensor of the output's size "
     r"per rank of the group", "ProcessGroupGloo::reduce_scatter：input_list 必须为组内每个 rank "
     "各放一个与输出同样大小的张量"),
    (r"ProcessGroupGloo::(\w+): (tensor_list|the lists) must hold one tensor per rank of the "
     r"group", "ProcessGroupGloo::{1}：列表必须为组内每个 rank 各放一个张量"),
    (r"all_to_all: the ranks' blocks do not fit the output tensors",
     "all_to_all：各 rank 发来的块与输出张量的大小不符"),
    (r"Argument ``(\w+)`` must NOT be specified on non-(\w+) ranks\.",
     "非 {2} rank 上不能指定参数 ``{1}``"),
    (r"(\w+) on the (\w+) rank must hold one tensor per rank of the group",
     "{2} rank 上的 {1} 必须为组内每个 rank 各放一个张量"),
    (r"Invalid function argument\. Expected parameter `(\w+)` of type (\S+) but got (\w+) "
     r"instead\.", "参数无效：参数 `{1}` 应为 {2}，实际是 {3}"),
    (r"group must be a ProcessGroup, got (\w+)", "group 必须是 ProcessGroup，实际是 {1}"),
    (r"new_group: ranks must lie in 0\.\.(\d+), got (\[.*\])",
     "new_group：rank 必须在 0..{1} 之间，实际是 {2}"),
    (r"source_rank\(\) is only available for a completed receive",
     "只有已完成的接收才能调用 source_rank()"),
))


def in_chinese(message: str) -> str | None:
    """``message`` in Chinese when it is one of torch.distributed's the table knows, else None."""
    for pattern, zh in TABLE:
        found = pattern.fullmatch(message)
        if found:
            groups = found.groups()
            return zh.format(None, *groups, **{f"role{i + 1}": _ROLE.get(g, g)
                                               for i, g in enumerate(groups)})
    return None
