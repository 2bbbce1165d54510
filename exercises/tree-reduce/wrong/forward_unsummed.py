# expect: over_budget
# Mistake: the tree forwards every tensor it received to its parent as it is, besides its own,
# instead of adding them first: the sum is right, but a rank with children sends S per tensor.
import torch.distributed as dist


def reduce(t, dst):
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - dst) % n
    held = [t.clone()]  # this subtree's tensors, not summed
    mask = 1
    while mask < n:
        if v & mask:
            for x in held:
                dist.send(x, (rank - mask) % n)
            return
        if v + mask < n:
            for _ in range(min(mask, n - v - mask)):  # the child's subtree: that many tensors
                x = t.clone()
                dist.recv(x, (rank + mask) % n)
                held.append(x)
        mask *= 2
    for x in held[1:]:
        t += x
