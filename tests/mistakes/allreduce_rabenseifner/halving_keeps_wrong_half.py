# expect: runtime_error
# gloo: error on sample-4-ranks
# names: line 36; 8 vs 0 bytes; Before it, your run first departs from recursive halving and doubling
# names: at rank 0's 1st send (line 25): it sends [1, 2, 3, 4] to rank 2
# names: yours is elements 0:4 of rank 0's input, recursive halving and doubling's is elements 4:8
# names_zh: 第 36 行
# names_zh: 在此之前，你的运行最早偏离递归减半与倍增之处是 rank 0 的 第 1 次发送（第 25 行）
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
