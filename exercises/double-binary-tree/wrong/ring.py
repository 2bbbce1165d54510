# expect: too_slow
# Mistake: the ring all-reduce: correct and within the bytes, but 2(n-1) steps of latency where
# the two trees need about 2·log2(n) + chunks - 1: too slow at 64 KiB.
import torch
import torch.distributed as dist


def double_tree_all_reduce(t, chunks):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    parts = list(t.chunk(n))
    for step in range(2 * (n - 1)):
        s = step % (n - 1)
        send_idx, recv_idx = ((rank - s) % n, (rank - s - 1) % n) if step < n - 1 else \
            ((rank + 1 - s) % n, (rank - s) % n)
        buf = torch.empty_like(parts[recv_idx])
        reqs = [dist.isend(parts[send_idx].clone(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        if step < n - 1:
            parts[recv_idx] += buf
        else:
            parts[recv_idx].copy_(buf)
