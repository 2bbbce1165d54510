# expect: wrong_answer
# gloo: wrong on 2-ranks-odd
# names: rank 0's reduce-scatter step 1 (line 24): it sends [224.7, 215.9, 3.999] to rank 1
# names: sends [224.7, 215.9, 3.999, 135.3] to rank 1
# names_zh: 第 24 行
# Blocks of N // n elements each: the last N mod n elements belong to no block and are never reduced.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    block = t.numel() // n

    def span(lo, hi):
        return t[lo * block: hi * block]

    lo, hi = 0, n
    mask = n // 2
    while mask:
        mid = (lo + hi) // 2
        keep, give = ((mid, hi), (lo, mid)) if rank & mask else ((lo, mid), (mid, hi))
        buf = torch.empty_like(span(*keep))
        reqs = [dist.isend(span(*give), rank ^ mask), dist.irecv(buf, rank ^ mask)]
        for req in reqs:
            req.wait()
        span(*keep).add_(buf)
        lo, hi = keep
        mask //= 2
    mask = 1
    while mask < n:
        other = (lo - mask, lo) if rank & mask else (hi, hi + mask)
        reqs = [dist.isend(span(lo, hi), rank ^ mask), dist.irecv(span(*other), rank ^ mask)]
        for req in reqs:
            req.wait()
        lo, hi = min(lo, other[0]), max(hi, other[1])
        mask *= 2
