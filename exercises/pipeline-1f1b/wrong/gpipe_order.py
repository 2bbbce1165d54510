# expect: memory_limit
# Mistake: GPipe's order. All M forwards first, then all M backwards: correct, and no slower,
# but every stage stashes all M inputs before its first backward frees one.
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    dtype = microbatches[0].dtype
    stash, outputs, grads, sends = [], [], [], []
    for mb in microbatches:
        x = mb
        if stage > 0:
            x = torch.empty(act_shape, dtype=dtype)
            dist.recv(x, stage - 1)
        stash.append(x)
        y = fwd(x)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs.append(y)
    for i in range(len(microbatches)):
        g = outputs[i] if stage == n - 1 else torch.empty(act_shape, dtype=dtype)
        if stage < n - 1:
            dist.recv(g, stage + 1)
        dx = bwd(stash[i], g)
        if stage > 0:
            sends.append(dist.isend(dx, stage - 1))
        else:
            grads.append(dx)
    for req in sends:
        req.wait()
    return grads if stage == 0 else None
