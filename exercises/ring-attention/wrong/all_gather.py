# expect: forbidden_primitive
# Mistake: gathers every rank's keys and values with dist.all_gather and attends to them all at
# once; the exercise passes blocks around the ring with point-to-point calls only.
import torch
import torch.distributed as dist


def ring_attention(scores, q, k, v):
    n = dist.get_world_size()
    ks, vs = [torch.empty_like(k) for _ in range(n)], [torch.empty_like(v) for _ in range(n)]
    dist.all_gather(ks, k)
    dist.all_gather(vs, v)
    s = torch.cat([scores(q, kb) for kb in ks], dim=1)
    return torch.softmax(s, dim=1) @ torch.cat(vs)
