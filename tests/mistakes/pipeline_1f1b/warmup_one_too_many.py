# expect: memory_limit
# gloo: right on sample-4-stages-8-microbatches
# names: stage 0 held 5 stashed activations at once; after n − s − 1 warm-up forwards
# names: at rank 0's fwd call 5 (line 24)
# names_zh: 同时暂存了 5 个激活; n − s − 1 次预热前向; 在 rank 0 第 5 次调用 fwd（第 24 行）时
# Off by one: n - stage warm-up forwards, one more than 1F1B's, so one more input is stashed.
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    m = len(microbatches)
    dtype = microbatches[0].dtype
    stash, outputs, grads, sends = {}, {}, [], []

    def forward(i):
        if stage == 0:
            x = microbatches[i]
        else:
            x = torch.empty(act_shape, dtype=dtype)
            dist.recv(x, stage - 1)
        stash[i] = x
        y = fwd(x)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs[i] = y

    def backward(i):
        if stage == n - 1:
            g = outputs.pop(i)
        else:
            g = torch.empty(act_shape, dtype=dtype)
            dist.recv(g, stage + 1)
        dx = bwd(stash.pop(i), g)
        if stage > 0:
            sends.append(dist.isend(dx, stage - 1))
        else:
            grads.append(dx)

    warmup = min(n - stage, m)
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
