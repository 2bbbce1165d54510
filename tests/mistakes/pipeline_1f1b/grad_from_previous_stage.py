# expect: runtime_error
# gloo: undefined on sample-4-stages-8-microbatches
# names: line 34 raised ValueError: Invalid src rank -1; Until then, rank 0's 4 sends matched
# names_zh: 第 34 行; 在此之前，rank 0 的 4 次发送
# The backward receives its gradient from stage - 1 instead of stage + 1.
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
            dist.recv(g, stage - 1)
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
