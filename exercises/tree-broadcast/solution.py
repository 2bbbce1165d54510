"""Reference: a binomial tree rooted at src, in ranks relative to src."""

import torch.distributed as dist


def broadcast(t, src):
    """Every rank's ``t`` becomes src's, in place, in ceil(log2 n) rounds."""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - src) % n  # my rank relative to the root
    mask = 1
    while mask < n:  # round k: ranks 0..mask-1 (relative) hold t and send it mask further on
        if v < mask and v + mask < n:
            dist.send(t, (rank + mask) % n)
        elif mask <= v < 2 * mask:
            dist.recv(t, (rank - mask) % n)
        mask *= 2
