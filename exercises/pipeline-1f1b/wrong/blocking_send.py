# expect: deadlock
# Mistake: the 1F1B order with blocking sends. In the steady state stage s sends microbatch
# i + 1's activation to stage s + 1 while stage s + 1 sends microbatch i's gradient back to
# stage s: each send waits for a receive the other never reaches.
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    m, dtype = len(microbatches), microbatches[0].dtype
    stash, outputs, grads = {}, {}, []

    def forward(i):
        x = microbatches[i]
        if stage > 0:
            x = torch.empty(act_shape, dtype=dtype)
            dist.recv(x, stage - 1)
        stash[i] = x
        y = fwd(x)
        if stage < n - 1:
            dist.send(y, stage + 1)
        else:
            outputs[i] = y

    def backward(i):
        g = outputs.pop(i) if stage == n - 1 else torch.empty(act_shape, dtype=dtype)
        if stage < n - 1:
            dist.recv(g, stage + 1)
        dx = bwd(stash.pop(i), g)
        if stage > 0:
            dist.send(dx, stage - 1)
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
    return grads if stage == 0 else None
