# expect: wrong_answer
# Mistake: receives the child's partial sum straight into the accumulator instead of into a
# buffer it then adds: every receive throws away what the rank had summed so far.
import torch.distributed as dist


def reduce(t, dst):
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - dst) % n
    acc = t.clone()
    mask = 1
    while mask < n:
        if v & mask:
            dist.send(acc, (rank - mask) % n)
            return
        if v + mask < n:
            dist.recv(acc, (rank + mask) % n)
        mask *= 2
    t.copy_(acc)
