# expect: wrong_answer
# gloo: wrong on 3-ranks-one-extra
# names: rank 0's 1st send (line 22): it sends chunk 0 holding rank 0's own input only to rank 1
# names: where recursive doubling sends chunk 0 summing ranks 0, 2
# names_zh: 第 22 行; rank 0, 2 之和
# Folds the extra ranks' tensors in after the doubling: only their partners add them.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    p = 1 << (n.bit_length() - 1)
    buf = torch.empty_like(t)
    if rank >= p:
        dist.send(t, rank - p)
        dist.recv(t, rank - p)
        return
    mask = 1
    while mask < p:
        peer = rank ^ mask
        reqs = [dist.isend(t, peer), dist.irecv(buf, peer)]
        for req in reqs:
            req.wait()
        t += buf
        mask <<= 1
    if rank + p < n:
        dist.recv(buf, rank + p)
        t += buf
        dist.send(t, rank + p)
