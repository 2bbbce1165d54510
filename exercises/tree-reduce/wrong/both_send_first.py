# expect: deadlock
# Mistake: pairs exchange their partial sums with a blocking send before the receive (both
# partners of a round send first): a send completes only when its receive is posted, so
# neither ever gets to its recv.
import torch.distributed as dist


def reduce(t, dst):
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - dst) % n
    acc, buf = t.clone(), t.clone()
    mask = 1
    while mask < n:
        partner = v ^ mask
        if partner < n:
            dist.send(acc, (partner + dst) % n)
            dist.recv(buf, (partner + dst) % n)
            acc += buf
        mask *= 2
    if rank == dst:
        t.copy_(acc)
