# expect: over_budget
# Mistake: q travels around the ring with k and v ("each rank needs everything"): correct,
# but half as many bytes again as the bound; only keys and values need to move.
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
            reqs = [dist.isend(k, right), dist.isend(v, right), dist.isend(q, right),
                    dist.irecv(next_k, left), dist.irecv(next_v, left),
                    dist.irecv(torch.empty_like(q), left)]
        s = scores(q, k)  # q @ k.T / sqrt(d), computed (and charged) by the judge
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
