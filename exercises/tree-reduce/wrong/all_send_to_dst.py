# expect: too_slow
# Mistake: every rank sends its t straight to dst: each sends S once, within the byte bound,
# but dst's link takes the n-1 transfers one after another instead of ceil(log2 n) rounds.
import torch.distributed as dist


def reduce(t, dst):
    rank, n = dist.get_rank(), dist.get_world_size()
    if rank != dst:
        dist.send(t, dst)
        return
    buf = t.clone()
    for peer in range(n):
        if peer != dst:
            dist.recv(buf, peer)
            t += buf
