# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every message matched ring attention's; merged in the ring's order, but out is never rescaled
# names: multiply out by exp(old max − new max) before adding the block's p @ v
# names_zh: 其中的 out 没有重新缩放; 应先把 out 乘以 exp(旧最大值 − 新最大值)
# The running max and the row sum's rescale are right, but out is never rescaled when a later
# block raises a query's max: earlier blocks' p @ v keep their old, too large weights.
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
        if step < n - 1:  # pass this block on before computing with it: the two overlap
            next_k, next_v = torch.empty_like(k), torch.empty_like(v)
            reqs = [dist.isend(k, right), dist.isend(v, right),
                    dist.irecv(next_k, left), dist.irecv(next_v, left)]
        s = scores(q, k)  # q @ k.T / sqrt(d), computed (and charged) by the judge
        new_max = torch.maximum(row_max, s.amax(dim=1, keepdim=True))
        p = torch.exp(s - new_max)
        row_sum = row_sum * torch.exp(row_max - new_max) + p.sum(dim=1, keepdim=True)
        out = out + p @ v
        row_max = new_max
        if step < n - 1:
            for req in reqs:
                req.wait()
            k, v = next_k, next_v
    return out / row_sum
