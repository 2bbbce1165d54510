# expect: wrong_answer
# Mistake: the scores computed with torch instead of the judge's scores(q, k): the same
# numbers, but the attention is the work being modelled, and it went uncounted.
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
        s = q @ k.t() / q.shape[1] ** 0.5
        new_max = torch.maximum(row_max, s.amax(dim=1, keepdim=True))
        p = torch.exp(s - new_max)
        correction = torch.exp(row_max - new_max)  # rescale what earlier blocks gave
        row_sum = row_sum * correction + p.sum(dim=1, keepdim=True)
        out = out * correction + p @ v
        row_max = new_max
        if step < n - 1:
            for req in reqs:
                req.wait()
            k, v = next_k, next_v
    return out / row_sum
