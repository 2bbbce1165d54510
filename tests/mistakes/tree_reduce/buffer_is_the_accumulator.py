# expect: wrong_answer
# gloo: wrong on sample-8-ranks-dst-6
# names: rank 0's 1st send (line 19): it sends [20, 40] to rank 6, where the binomial tree sends [11, 22]
# names_zh: 第 19 行
# The receive buffer is the accumulator itself (no clone): each receive overwrites the partial sum.
import torch.distributed as dist


def reduce(t, dst):
    """dst's ``t`` becomes the sum of every rank's ``t``, in ceil(log2 n) rounds; the others'
    ``t`` stay as they were."""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - dst) % n
    acc = t.clone()
    buf = acc
    mask = 1
    while mask < n:
        if v & mask:
            dist.send(acc, (rank - mask) % n)
            return
        if v + mask < n:
            dist.recv(buf, (rank + mask) % n)
            acc += buf
        mask *= 2
    t.copy_(acc)
