# expect: too_slow
# gloo: right on sample-4-ranks
# names: Rank 0 waits for each irecv (line 22) right after posting it, before its next scores call
# names: Overlap: post the isend/irecv of the next block of keys and values before you call scores
# names_zh: 每次发出 irecv（第 22 行）后立即等待，之后才调用 scores
# Waits for the next block before scoring the current one: no overlap of compute and transfer.
import torch
import torch.distributed as dist


def ring_attention(scores, q, k, v):
    """softmax(q·Kᵀ/√d)·V over every rank's keys and values, for this rank's queries."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.zeros_like(q)
    row_max = torch.full((q.shape[0], 1), float("-inf"), dtype=q.dtype)
    row_sum = torch.zeros((q.shape[0], 1), dtype=q.dtype)
    for step in range(n):
        if step < n - 1:
            next_k, next_v = torch.empty_like(k), torch.empty_like(v)
            reqs = [dist.isend(k, right), dist.isend(v, right),
                    dist.irecv(next_k, left), dist.irecv(next_v, left)]
            for req in reqs:
                req.wait()
        s = scores(q, k)
        new_max = torch.maximum(row_max, s.amax(dim=1, keepdim=True))
        p = torch.exp(s - new_max)
        correction = torch.exp(row_max - new_max)
        row_sum = row_sum * correction + p.sum(dim=1, keepdim=True)
        out = out * correction + p @ v
        row_max = new_max
        if step < n - 1:
            k, v = next_k, next_v
    return out / row_sum
