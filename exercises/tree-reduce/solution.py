"""Reference: a binomial tree towards dst, in ranks relative to dst, summing into a copy."""

import torch.distributed as dist


def reduce(t, dst):
    """dst's ``t`` becomes the sum of every rank's ``t``, in ceil(log2 n) rounds; the others'
    ``t`` stay as they were."""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - dst) % n  # my rank relative to the root
    acc, buf = t.clone(), t.clone()
    mask = 1
    while mask < n:  # round k: relative ranks with bit k set send their partial sum and stop
        if v & mask:
            dist.send(acc, (rank - mask) % n)
            return
        if v + mask < n:
            dist.recv(buf, (rank + mask) % n)
            acc += buf
        mask *= 2
    t.copy_(acc)  # only dst gets here
