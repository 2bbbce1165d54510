# expect: too_slow
# Mistake: no pipelining. Each microbatch goes forward through every stage and back before the
# next one starts: only one stage works at a time, M·(2n·c + 2(n − 1) hops).
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    dtype = microbatches[0].dtype
    grads = []
    for mb in microbatches:
        x = mb
        if stage > 0:
            x = torch.empty(act_shape, dtype=dtype)
            dist.recv(x, stage - 1)
        y = fwd(x)
        if stage < n - 1:
            dist.send(y, stage + 1)
            g = torch.empty(act_shape, dtype=dtype)
            dist.recv(g, stage + 1)
        else:
            g = y
        dx = bwd(x, g)
        if stage > 0:
            dist.send(dx, stage - 1)
        else:
            grads.append(dx)
    return grads if stage == 0 else None
