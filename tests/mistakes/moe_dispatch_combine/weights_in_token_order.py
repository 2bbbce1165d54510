# expect: wrong_answer
# gloo: wrong on 2-ranks-layer-top1
# names: every collective call matched the reference's
# names: its slot 0 was weighted by 0.25, token 1's weight in slot 0: the weights are applied in
# names: another order than the rows come back in
# names_zh: 每条集合通信调用都与参考解逐步一致
# names_zh: 权重的顺序与拿回的行的顺序不一致
# Weights the returned rows in token order, though they come back in expert order.
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
    counts = recv_counts.view(n, local).sum(0).tolist()
    return received.index_select(0, perm), (counts, (order, send_splits, recv_splits, perm))


def combine(y, meta, topk_w):
    """Each token's expert outputs, back on its rank, summed with its weights: [T, hidden]."""
    _, (order, send_splits, recv_splits, perm) = meta
    tokens, k = topk_w.shape
    back = y.index_select(0, torch.argsort(perm))
    returned = torch.empty(order.numel(), y.shape[1], dtype=y.dtype)
    dist.all_to_all_single(returned, back, send_splits, recv_splits)
    weights = topk_w.reshape(-1).unsqueeze(1)
    out = torch.zeros(tokens, y.shape[1], dtype=y.dtype)
    out.index_add_(0, order // k, returned * weights)
    return out


def moe_layer(x, topk_idx, topk_w, num_experts, expert):
    """The glue the judge calls: dispatch, this rank's experts, combine."""
    tokens, meta = dispatch(x, topk_idx, num_experts)
    counts, _ = meta
    return combine(expert(tokens, counts), meta, topk_w)
