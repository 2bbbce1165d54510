# expect: deadlock
# gloo: deadlock on sample-4-ranks
# names: ranks 0–3 wait (line 34) for their isend (posted at line 32); (0 to 1, 1 to 2, 2 to 3, 3 to 0)
# names_zh: 在第 34 行等待第 32 行挂出的 isend
# The doubling exchanges with rank + mask instead of rank XOR mask: partners that do not pair up.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()

    def span(lo, hi):
        return t[lo * t.numel() // n: hi * t.numel() // n]

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
        peer = (rank + mask) % n
        other = (lo - mask, lo) if rank & mask else (hi, hi + mask)
        reqs = [dist.isend(span(lo, hi), peer), dist.irecv(span(*other), peer)]
        for req in reqs:
            req.wait()
        lo, hi = min(lo, other[0]), max(hi, other[1])
        mask *= 2
