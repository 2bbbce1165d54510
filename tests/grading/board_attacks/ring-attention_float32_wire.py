# exercise: ring-attention
# expect: wrong_answer
# trick: send the keys and values of a float64 case as float32 and widen them again on arrival:
#   lossless on dyadic draws, half the bytes and the modelled transfer time
import torch
import torch.distributed as dist


def ring_attention(scores, q, k, v):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.zeros_like(q)
    row_max = torch.full((q.shape[0], 1), float("-inf"), dtype=q.dtype)
    row_sum = torch.zeros((q.shape[0], 1), dtype=q.dtype)
    for step in range(n):
        if step < n - 1:
            next_k = torch.empty(k.shape, dtype=torch.float32)
            next_v = torch.empty(v.shape, dtype=torch.float32)
            reqs = [dist.isend(k.float(), right), dist.isend(v.float(), right),
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
            k, v = next_k.to(q.dtype), next_v.to(q.dtype)
    return out / row_sum
