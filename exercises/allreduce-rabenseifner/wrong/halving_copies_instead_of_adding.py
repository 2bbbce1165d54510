# expect: wrong_answer
# Mistake: the halving copies the partner's half over its own instead of adding it, so each
# block keeps only the contributions that came in last.
import torch
import torch.distributed as dist


def _exchange(send, recv, peer):
    """Send ``send`` to ``peer`` and receive ``recv`` from it, both posted before waiting."""
    reqs = [dist.isend(send, peer), dist.irecv(recv, peer)]
    for req in reqs:
        req.wait()


def all_reduce(t):
    """Sum ``t`` over all ranks, in place; block b is t[b*N//n : (b+1)*N//n]."""
    rank, n = dist.get_rank(), dist.get_world_size()

    def span(lo, hi):  # the elements of blocks lo..hi-1 (a view of t)
        return t[lo * t.numel() // n: hi * t.numel() // n]

    lo, hi = 0, n
    mask = n // 2
    while mask:  # halving: keep the half of my range my bit selects, add the partner's copy of it
        mid = (lo + hi) // 2
        keep, give = ((mid, hi), (lo, mid)) if rank & mask else ((lo, mid), (mid, hi))
        buf = torch.empty_like(span(*keep))
        _exchange(span(*give), buf, rank ^ mask)
        span(*keep).copy_(buf)  # "the partner already added mine"
        lo, hi = keep
        mask //= 2
    mask = 1  # now lo = rank, hi = rank + 1: my block holds the full sum
    while mask < n:  # doubling: swap finished ranges with the partner, in the reverse order
        other = (lo - mask, lo) if rank & mask else (hi, hi + mask)
        _exchange(span(lo, hi), span(*other), rank ^ mask)
        lo, hi = min(lo, other[0]), max(hi, other[1])
        mask *= 2
