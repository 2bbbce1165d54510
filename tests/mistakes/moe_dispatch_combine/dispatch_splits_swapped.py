# expect: runtime_error
# gloo: error on sample-4-ranks-dispatch
# names: line 25 raised RuntimeError: Split sizes doesn't match total dim 0 size; (line 25)
# names: its input_split_sizes and output_split_sizes are swapped; it sends rank 1 6 elements
# names_zh: 第 25 行; input_split_sizes 与 output_split_sizes 传反了; 它发给 rank 1 6 个元素
# Passes the dispatch's split sizes in the wrong order (input's for the output's).
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
    dist.all_to_all_single(received, send, send_splits, recv_splits)
    block = torch.arange(local).view(1, local) * n + torch.arange(n).view(n, 1)
    key = torch.repeat_interleave(block.reshape(-1), recv_counts)
    perm = torch.argsort(key, stable=True)
    counts = recv_counts.view(n, local).sum(0).tolist()
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
