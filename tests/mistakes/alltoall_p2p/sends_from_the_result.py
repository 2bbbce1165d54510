# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: rank 0's 1st send (line 22): it sends [0] to rank 1, where the direct exchange sends [1]
# names: element 0 of block 0 of rank 0's x or a 0 never overwritten
# names_zh: rank 0 的 第 1 次发送（第 22 行）：它把 [0] 发给 rank 1; 或是从未写入的 0
# Sends block `to` of the result (one list of views for both ends) instead of block `to` of x:
# zeros, never filled. On the sample, rank 0's x starts with 0, so its zero reads as "elements
# 0:1 of rank 0's input, another piece of the buffer": a coincidence a generic draw does not
# repeat, so the payload is shown by its values and the grader's hint names the unwritten 0.
import torch
import torch.distributed as dist


def all_to_all(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    out = torch.zeros_like(x)
    blocks = out.chunk(n)  # views of the result, filled by the receives
    blocks[rank].copy_(x.chunk(n)[rank])
    reqs = []
    for shift in range(1, n):
        to, frm = (rank + shift) % n, (rank - shift) % n
        reqs += [dist.isend(blocks[to], to), dist.irecv(blocks[frm], frm)]
    for req in reqs:
        req.wait()
    return out
