# expect: over_budget
# Mistake: the last stage also sends every output to stage 0, as if stage 0 had to return the
# outputs: M more activations than the pipeline needs.
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    m, dtype = len(microbatches), microbatches[0].dtype
    stash, outputs, grads, sends, copies = {}, {}, [], [], []

    def forward(i):
        x = microbatches[i]
        if stage > 0:
            x = torch.empty(act_shape, dtype=dtype)
            dist.recv(x, stage - 1)
        stash[i] = x
        y = fwd(x)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs[i] = y
            if n > 1:
                sends.append(dist.isend(y, 0, tag=1))
        if stage == 0 and n > 1:
            copies.append(torch.empty(act_shape, dtype=dtype))
            sends.append(dist.irecv(copies[-1], n - 1, tag=1))

    def backward(i):
        g = outputs.pop(i) if stage == n - 1 else torch.empty(act_shape, dtype=dtype)
        if stage < n - 1:
            dist.recv(g, stage + 1)
        dx = bwd(stash.pop(i), g)
        if stage > 0:
            sends.append(dist.isend(dx, stage - 1))
        else:
            grads.append(dx)

    warmup = min(n - stage - 1, m)
    for i in range(warmup):
        forward(i)
    for i in range(m - warmup):
        forward(warmup + i)
        backward(i)
    for i in range(m - warmup, m):
        backward(i)
    for req in sends:
        req.wait()
    return grads if stage == 0 else None
