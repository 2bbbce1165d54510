# attack: a rank that leaves without ever handing the judge its result (its peers finish)
# expect: runtime_error
import os

import torch.distributed as dist


def ring_all_reduce(t):
    if dist.get_rank() == 1:
        os._exit(0)
    return t
