# attack: call the forbidden all_reduce through the process-group object and torch.ops.c10d
# expect: forbidden_primitive
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    pg = dist.distributed_c10d._get_default_group()
    try:
        pg.allreduce([t]).wait()
        return
    except RuntimeError:
        pass
    torch.ops.c10d.allreduce_([t], pg, torch.classes.c10d.ReduceOp(), None, False, -1)
