# expect: forbidden_primitive
# Mistake: hands the gradients back with broadcast from the last stage; only point-to-point
# calls are allowed.
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    x = microbatches[0]
    y = fwd(x)
    dist.broadcast(y, n - 1)
    return [bwd(x, y)] if stage == 0 else None
