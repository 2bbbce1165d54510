# expect: forbidden_primitive
# Mistake: all_gathers every rank's tokens and routes, then keeps its own experts' rows; only
# all_to_all_single is allowed (and every token would reach every rank).
import torch
import torch.distributed as dist


def dispatch(x, topk_idx, num_experts):
    rank, n = dist.get_rank(), dist.get_world_size()
    local = num_experts // n
    xs = [torch.empty_like(x) for _ in range(n)]
    idx = [torch.empty_like(topk_idx) for _ in range(n)]
    dist.all_gather(xs, x)
    dist.all_gather(idx, topk_idx)
    rows, counts = [], []
    for e in range(rank * local, (rank + 1) * local):
        mine = [xs[src][t] for src in range(n) for t in range(x.shape[0])
                if bool((idx[src][t] == e).any())]
        counts.append(len(mine))
        rows += mine
    tokens = torch.stack(rows) if rows else torch.zeros(0, x.shape[1], dtype=x.dtype)
    return tokens, (counts, None)


def combine(y, meta, topk_w):
    return torch.zeros(topk_w.shape[0], y.shape[1], dtype=y.dtype)


def moe_layer(x, topk_idx, topk_w, num_experts, expert):
    tokens, meta = dispatch(x, topk_idx, num_experts)
    counts, _ = meta
    return combine(expert(tokens, counts), meta, topk_w)
