# expect: wrong_answer
# gloo: wrong on sample-8-ranks-src-5
# names: Rank 0 only sends, as the root does, but this case's root is src = 5
# names: v = (rank - src) % n
# names_zh: 本用例的根是 src = 5：你的代码假定根是 rank 0
# The binomial tree of a textbook, rooted at rank 0: src is taken but never used, so rank 0's
# tensor is broadcast instead of src's.
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
