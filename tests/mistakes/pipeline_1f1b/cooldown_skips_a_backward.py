# expect: deadlock
# gloo: deadlock on sample-4-stages-8-microbatches
# names: so the ranks make different numbers of calls (rank 3 sends rank 2 8 messages
# names: rank 2 posts 7 receives from it
# names_zh: rank 3 向 rank 2 发送了 8 条消息
# names_zh: rank 2 挂出了 7 次来自它的接收
# Starts the cool-down at m − warmup + 1: a stage with warm-up forwards drains one backward
# fewer, so the gradient the next stage sends it is never received.
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

    warmup = min(n - stage - 1, m)
    for i in range(warmup):
        forward(i)
    for i in range(m - warmup):
        forward(warmup + i)
        backward(i)
    for i in range(m - warmup + 1, m):
        backward(i)
    for req in sends:
        req.wait()
    return grads if stage == 0 else None
