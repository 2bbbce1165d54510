# expect: deadlock
# gloo: deadlock on 3-ranks-one-extra
# names: rank 2 waits in send to rank 1 (line 15), which never receives it; rank 1 has returned
# names_zh: rank 2 在 send 中等待 rank 1 接收（第 15 行）
# Takes p = n // 2 ranks as the core: right when n is a power of two, not for n = 6.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    p = max(n // 2, 1) if n & (n - 1) else n
    buf = torch.empty_like(t)
    if rank >= p:
        dist.send(t, rank - p)
        dist.recv(t, rank - p)
        return
    if rank + p < n:
        dist.recv(buf, rank + p)
        t += buf
    mask = 1
    while mask < p:
        peer = rank ^ mask
        reqs = [dist.isend(t, peer), dist.irecv(buf, peer)]
        for req in reqs:
            req.wait()
        t += buf
        mask <<= 1
    if rank + p < n:
        dist.send(t, rank + p)
