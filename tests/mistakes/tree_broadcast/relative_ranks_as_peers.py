# expect: deadlock
# gloo: deadlock on sample-8-ranks-src-5
# names: rank 5 waits in send to rank 1 (line 16), which never receives it
# names_zh: rank 5 在 send 中等待 rank 1 接收（第 16 行）
# Works in ranks relative to src but sends to and receives from the relative ranks themselves.
import torch.distributed as dist


def broadcast(t, src):
    """Every rank's ``t`` becomes src's, in place, in ceil(log2 n) rounds."""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - src) % n
    mask = 1
    while mask < n:
        if v < mask and v + mask < n:
            dist.send(t, v + mask)
        elif mask <= v < 2 * mask:
            dist.recv(t, v - mask)
        mask *= 2
