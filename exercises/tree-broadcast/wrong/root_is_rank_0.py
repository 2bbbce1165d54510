# expect: wrong_answer
# Mistake: builds the tree from rank 0 whatever src is: everyone ends with rank 0's tensor.
import torch.distributed as dist


def broadcast(t, src):
    rank, n = dist.get_rank(), dist.get_world_size()
    mask = 1
    while mask < n:
        if rank < mask and rank + mask < n:
            dist.send(t, rank + mask)
        elif mask <= rank < 2 * mask:
            dist.recv(t, rank - mask)
        mask *= 2
