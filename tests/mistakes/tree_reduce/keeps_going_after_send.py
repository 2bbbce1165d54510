# expect: deadlock
# gloo: deadlock on sample-8-ranks-dst-6
# names: rank 4 is itself blocked in send (line 19); ranks 0, 1 wait in recv from rank 2 (line 21)
# names: rank 2 has returned
# names_zh: rank 2 已经返回
# No return after sending its partial sum: the rank goes on to later rounds.
import torch.distributed as dist


def reduce(t, dst):
    """dst's ``t`` becomes the sum of every rank's ``t``, in ceil(log2 n) rounds; the others'
    ``t`` stay as they were."""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - dst) % n
    acc, buf = t.clone(), t.clone()
    mask = 1
    while mask < n:
        if v & mask:
            dist.send(acc, (rank - mask) % n)
        if v + mask < n:
            dist.recv(buf, (rank + mask) % n)
            acc += buf
        mask *= 2
    t.copy_(acc)
