"""MoE dispatch and combine: send each token to the ranks of its top-k experts with
all_to_all_single (the counts first, then the rows with uneven splits), and bring the experts'
outputs back, summed with the routing weights.

MoE 的 dispatch 与 combine：用 all_to_all_single 把每个 token 发到它的 top-k 专家所在的 rank
（先交换计数，再按不等长切分交换行），再把专家的输出取回，按路由权重求和。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test moe-dispatch-combine [FILE]
"""

import torch
import torch.distributed as dist


def dispatch(x, topk_idx, num_experts):
    """x [T, hidden], topk_idx [T, k] (int64) -> (tokens, (counts, handle)).

    tokens: [R, hidden], the rows for this rank's experts (expert e lives on rank
    e // (num_experts // n)), ordered by (local expert, source rank, token); counts: a list of
    the rows of each local expert; handle: anything combine needs.
    tokens 是发往本 rank 专家的行，按（本地专家、来源 rank、token）排序；counts 是每个本地专家的行数。
    """
    n = dist.get_world_size()
    local = num_experts // n
    # TODO: 1. count the (token, slot) pairs for every expert and exchange the counts with
    #          dist.all_to_all_single (block j: rank j's experts);
    #       2. sort the rows by destination and exchange them with uneven split sizes;
    #       3. reorder what arrived from (source rank, local expert) to (local expert, source rank).
    # 待完成：1. 统计发往每个专家的 (token, 槽位) 数并用 all_to_all_single 交换；
    #         2. 按目的地排序后按不等长切分交换行；3. 把收到的行重排为（本地专家、来源 rank）顺序。
    tokens = torch.zeros(0, x.shape[1], dtype=x.dtype)
    return tokens, ([0] * local, None)


def combine(y, meta, topk_w):
    """y: the experts' outputs, one row per row of tokens; returns [T, hidden]: row t is the sum
    over its k slots of topk_w[t, slot] times the output of its row for that slot's expert.
    返回 [T, hidden]：第 t 行是 topk_w[t, 槽位] 乘以对应专家输出之和。"""
    counts, handle = meta
    # TODO: send the rows of y back where they came from (the splits of dispatch, reversed),
    #       then add each one, times its weight, into its token's row.
    # 待完成：按 dispatch 的切分反向把 y 的行送回，再乘以权重加到对应 token 的行上。
    return torch.zeros(topk_w.shape[0], y.shape[1], dtype=y.dtype)


def moe_layer(x, topk_idx, topk_w, num_experts, expert):
    """The glue the judge calls (keep it): dispatch, this rank's experts, combine.
    评测机调用的粘合代码（保持不变）。"""
    tokens, meta = dispatch(x, topk_idx, num_experts)
    counts, _ = meta
    return combine(expert(tokens, counts), meta, topk_w)
