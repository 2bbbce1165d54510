# expect: runtime_error
# gloo: error on sample-4-ranks
# names: line 34; 8 vs 0 bytes; the halving keeps the half
# names_zh: 第 34 行
# weak: the error is named where the doubling fails (line 31), not the halving's choice of half that causes it
# The halving keeps the half its bit does not select, so the doubling swaps ranges the rank never finished.
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
        keep, give = ((lo, mid), (mid, hi)) if rank & mask else ((mid, hi), (lo, mid))
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
