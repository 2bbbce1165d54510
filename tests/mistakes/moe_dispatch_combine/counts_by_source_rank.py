# expect: wrong_answer
# gloo: wrong on sample-4-ranks-dispatch
# names: the return value is a list of 4, expected a list of 2
# names: is [3, 5, 4, 6], one entry per rank, with the same total (18) as the expected [7, 11]
# names: the right counts, grouped by rank
# names_zh: 结果是含 4 项的列表，应为含 2 项的列表
# names_zh: 计数本身没错，却按 rank 分组
# Tells the experts how many rows came from each source rank, not how many each expert got.
import torch
import torch.distributed as dist


def dispatch(x, topk_idx, num_experts):
    """Rows for this rank's experts, by (local expert, source rank, token), and (counts, handle)."""
    n = dist.get_world_size()
    local = num_experts // n
    k = topk_idx.shape[1]
    expert_of = topk_idx.reshape(-1)
    order = torch.argsort(expert_of, stable=True)
    send = x.index_select(0, order // k)
    send_counts = torch.bincount(expert_of, minlength=num_experts)
    recv_counts = torch.empty_like(send_counts)
    dist.all_to_all_single(recv_counts, send_counts)
    send_splits = send_counts.view(n, local).sum(1).tolist()
    recv_splits = recv_counts.view(n, local).sum(1).tolist()
    received = torch.empty(sum(recv_splits), x.shape[1], dtype=x.dtype)
    dist.all_to_all_single(received, send, recv_splits, send_splits)
    block = torch.arange(local).view(1, local) * n + torch.arange(n).view(n, 1)
    key = torch.repeat_interleave(block.reshape(-1), recv_counts)
    perm = torch.argsort(key, stable=True)
    counts = recv_counts.view(n, local).sum(1).tolist()
    return received.index_select(0, perm), (counts, (order, send_splits, recv_splits, perm))


def combine(y, meta, topk_w):
    """Each token's expert outputs, back on its rank, summed with its weights: [T, hidden]."""
    _, (order, send_splits, recv_splits, perm) = meta
    tokens, k = topk_w.shape
    back = y.index_select(0, torch.argsort(perm))
    returned = torch.empty(order.numel(), y.shape[1], dtype=y.dtype)
    dist.all_to_all_single(returned, back, send_splits, recv_splits)
    weights = topk_w.reshape(-1).index_select(0, order).unsqueeze(1)
    out = torch.zeros(tokens, y.shape[1], dtype=y.dtype)
    out.index_add_(0, order // k, returned * weights)
    return out


def moe_layer(x, topk_idx, topk_w, num_experts, expert):
    """The glue the judge calls: dispatch, this rank's experts, combine."""
    tokens, meta = dispatch(x, topk_idx, num_experts)
    counts, _ = meta
    return combine(expert(tokens, counts), meta, topk_w)
