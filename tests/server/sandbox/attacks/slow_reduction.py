# attack: all_reduce 48 MiB per rank again and again at module level, where collectives are
#         allowed: the judge reduces them itself (in pure Python a 5 s case took 26 s)
# expect: time_limit|wrong_answer
# (reductions are vectorized where numpy is at hand, else sliced with the case's deadline
#  checked between slices: the case ends at its time limit either way)
import torch
import torch.distributed as dist

BIG = torch.ones(12 << 20)
for _ in range(20):
    dist.all_reduce(BIG)


def ring_all_reduce(t):
    return None
