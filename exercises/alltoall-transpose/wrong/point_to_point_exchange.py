# expect: forbidden_primitive
# Mistake: exchanges the blocks with isend/irecv; this exercise allows only all_to_all_single / all_to_all.
import torch
import torch.distributed as dist


def transpose(row):
    rank, n = dist.get_rank(), dist.get_world_size()
    k = row.numel() // n
    blocks = list(row.view(n, k))
    received = [torch.empty(k, dtype=row.dtype) for _ in range(n)]
    received[rank] = blocks[rank].clone()
    reqs = []
    for peer in range(n):
        if peer != rank:
            reqs.append(dist.isend(blocks[peer].contiguous(), peer))
            reqs.append(dist.irecv(received[peer], peer))
    for req in reqs:
        req.wait()
    return torch.stack(received).t()
