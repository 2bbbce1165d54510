# expect: deadlock
# gloo: deadlock on sample-8-ranks-src-5
# names: rank 7 waits in recv from rank 6 (line 18); rank 6 has returned
# names_zh: rank 7 在 recv 中等待来自 rank 6 的数据（第 18 行）
# Off by one in the round's receivers (mask <= v <= 2·mask): rank 2·mask waits a round early.
import torch.distributed as dist


def broadcast(t, src):
    """Every rank's ``t`` becomes src's, in place, in ceil(log2 n) rounds."""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - src) % n
    mask = 1
    while mask < n:
        if v < mask and v + mask < n:
            dist.send(t, (rank + mask) % n)
        elif mask <= v <= 2 * mask:
            dist.recv(t, (rank - mask) % n)
        mask *= 2
