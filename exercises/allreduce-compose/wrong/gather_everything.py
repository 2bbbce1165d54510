# expect: over_budget
# Mistake: correct, but all-gathers every rank's whole t and sums locally: (n-1)*N elements per
# rank instead of 2(n-1)*ceil(N/n).
import torch
import torch.distributed as dist


def all_reduce(t):
    n = dist.get_world_size()
    everything = torch.empty(n * t.numel(), dtype=t.dtype)
    dist.all_gather_into_tensor(everything, t)
    t.copy_(everything.view(n, t.numel()).sum(dim=0))
