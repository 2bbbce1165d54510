# expect: wrong_answer
# gloo: wrong on 3-ranks-one-extra
# names: you returned a new tensor (`result` at line 19); still holds rank 2's own input
# names: Write the result into t (e.g. t.copy_(result))
# names_zh: 你返回了一个新张量; 请把结果写入 t
# An extra rank receives the sum into a clone and returns it: its own t is never written.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    p = 1 << (n.bit_length() - 1)
    buf = torch.empty_like(t)
    if rank >= p:
        dist.send(t, rank - p)
        result = t.clone()
        dist.recv(result, rank - p)
        return result
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
