# expect: wrong_answer
# gloo: wrong on 3-ranks-large-scores
# names: every message matched ring attention's
# names: its first non-finite element is nan at index 0 (row 0); without the running maximum subtracted?
# names_zh: 第一个非有限元素; 没有减去当前最大值？
# exp(s) without subtracting the running max: scores near 256 overflow float32's exp, inf / inf.
import torch
import torch.distributed as dist


def ring_attention(scores, q, k, v):
    """softmax(q·Kᵀ/√d)·V over every rank's keys and values, for this rank's queries."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.zeros_like(q)
    row_sum = torch.zeros((q.shape[0], 1), dtype=q.dtype)
    for step in range(n):
        if step < n - 1:  # pass this block on before computing with it: the two overlap
            next_k, next_v = torch.empty_like(k), torch.empty_like(v)
            reqs = [dist.isend(k, right), dist.isend(v, right),
                    dist.irecv(next_k, left), dist.irecv(next_v, left)]
        s = scores(q, k)  # q @ k.T / sqrt(d), computed (and charged) by the judge
        p = torch.exp(s)
        row_sum = row_sum + p.sum(dim=1, keepdim=True)
        out = out + p @ v
        if step < n - 1:
            for req in reqs:
                req.wait()
            k, v = next_k, next_v
    return out / row_sum
