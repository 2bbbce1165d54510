# expect: too_slow
# gloo: right on sample-8-ranks-src-5
# names: line 17: rank 5 → 6 → 7 → 0 → 1 → 2 → 3 → 4 (steps 1–7)
# names: A chain: each transfer waits for the one before; A binomial tree
# names_zh: 这是一条链
# A chain: each rank receives from the one before it (relative to src) and passes t on.
import torch.distributed as dist


def broadcast(t, src):
    """Every rank's ``t`` becomes src's, in place, in ceil(log2 n) rounds."""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - src) % n
    if v > 0:
        dist.recv(t, (rank - 1) % n)
    if v < n - 1:
        dist.send(t, (rank + 1) % n)
