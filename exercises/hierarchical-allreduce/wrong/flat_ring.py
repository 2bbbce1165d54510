# expect: over_budget
# Mistake: one flat ring over all n ranks, ignoring the nodes. Its total, 2(n−1)/n·S, is within
# the two levels' sum, but the ranks at a node's edge send all of it over their NIC: 2(n−1)/n·S
# across nodes instead of 2(M−1)/M·S/g (and the model makes it several times slower).
import torch
import torch.distributed as dist


def all_reduce_2level(t, ranks_per_node):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = [t[i * t.numel() // n:(i + 1) * t.numel() // n] for i in range(n)]
    for step in range(n - 1):
        buf = torch.empty_like(chunks[(rank - step - 1) % n])
        reqs = [dist.isend(chunks[(rank - step) % n], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[(rank - step - 1) % n] += buf
    for step in range(n - 1):
        buf = torch.empty_like(chunks[(rank - step) % n])
        reqs = [dist.isend(chunks[(rank + 1 - step) % n], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[(rank - step) % n].copy_(buf)
