# expect: wrong_answer
# gloo: wrong on sample-8-ranks-dst-6
# names: Rank 0 only receives, as the root does, but this case's root is dst = 6
# names: v = (rank - dst) % n
# names_zh: 本用例的根是 dst = 6：你的代码假定根是 rank 0
# A binomial reduce to rank 0, as in most examples: dst is never used, so the sum ends on rank 0
# (summed into its own t) and dst keeps a partial sum.
import torch.distributed as dist


def reduce(t, dst):
    rank, n = dist.get_rank(), dist.get_world_size()
    mask = 1
    while mask < n:
        if rank & mask:
            dist.send(t.clone(), rank - mask)
            return
        if rank + mask < n:
            buf = t.clone()
            dist.recv(buf, rank + mask)
            t += buf
        mask *= 2
