# expect: wrong_answer
# Mistake: the ranks in the middle of the tree add their children's partial sums into t
# itself: dst's sum is right, but t changed on ranks other than dst.
import torch.distributed as dist


def reduce(t, dst):
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - dst) % n
    buf = t.clone()
    mask = 1
    while mask < n:
        if v & mask:
            dist.send(t, (rank - mask) % n)
            return
        if v + mask < n:
            dist.recv(buf, (rank + mask) % n)
            t += buf
        mask *= 2
