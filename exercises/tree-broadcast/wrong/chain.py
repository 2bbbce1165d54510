# expect: too_slow
# Mistake: a chain src -> src+1 -> ... : every rank sends S at most once, within the byte bound,
# but n-1 rounds one after another instead of ceil(log2 n).
import torch.distributed as dist


def broadcast(t, src):
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - src) % n
    if v > 0:
        dist.recv(t, (rank - 1) % n)
    if v < n - 1:
        dist.send(t, (rank + 1) % n)
