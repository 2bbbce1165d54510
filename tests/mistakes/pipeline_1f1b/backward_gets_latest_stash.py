# expect: wrong_answer
# gloo: wrong on sample-4-stages-8-microbatches
# names: (line 34) was given, as its 1st tensor, what its 4th call of fwd was given
# names: where it needs what its 1st call of fwd was given
# names: keep each fwd call's input (a stash per microbatch or layer)
# names_zh: 第 1 次调用 bwd（第 34 行）; 把每次调用 fwd 的输入保存下来
# Keeps only the latest stashed input: after the warm-up, a backward gets another microbatch's.
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    m, dtype = len(microbatches), microbatches[0].dtype
    latest, outputs, grads, sends = None, {}, [], []

    def forward(i):
        nonlocal latest
        x = microbatches[i]
        if stage > 0:
            x = torch.empty(act_shape, dtype=dtype)
            dist.recv(x, stage - 1)
        latest = x
        y = fwd(x)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs[i] = y

    def backward(i):
        g = outputs.pop(i) if stage == n - 1 else torch.empty(act_shape, dtype=dtype)
        if stage < n - 1:
            dist.recv(g, stage + 1)
        dx = bwd(latest, g)
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
