# expect: deadlock
# gloo: deadlock on sample-4-ranks
# names: ranks 0–3 wait (line 31) for their isend (posted at line 20); (0 to 3, 1 to 0, 2 to 1, 3 to 2)
# names_zh: 在第 31 行等待第 20 行挂出的 isend
# Sends to the left neighbour and receives from the left too: nobody sends what each waits for.
import torch
import torch.distributed as dist


def ring_attention(scores, q, k, v):
    """softmax(q·Kᵀ/√d)·V over every rank's keys and values, for this rank's queries."""
    rank, n = dist.get_rank(), dist.get_world_size()
    left = (rank - 1) % n
    out = torch.zeros_like(q)
    row_max = torch.full((q.shape[0], 1), float("-inf"), dtype=q.dtype)
    row_sum = torch.zeros((q.shape[0], 1), dtype=q.dtype)
    for step in range(n):
        if step < n - 1:
            next_k, next_v = torch.empty_like(k), torch.empty_like(v)
            reqs = [dist.isend(k, left), dist.isend(v, left),
                    dist.irecv(next_k, left), dist.irecv(next_v, left)]
        s = scores(q, k)
        new_max = torch.maximum(row_max, s.amax(dim=1, keepdim=True))
        p = torch.exp(s - new_max)
        correction = torch.exp(row_max - new_max)
        row_sum = row_sum * correction + p.sum(dim=1, keepdim=True)
        out = out * correction + p @ v
        row_max = new_max
        if step < n - 1:
            for req in reqs:
                req.wait()
            k, v = next_k, next_v
    return out / row_sum
