# exercise: pipeline-1f1b
# expect: wrong_answer
# trick: the steady state's backward calls teach each stage its bwd (grad + x + b); the drain's
#        backwards are then computed by the rank itself, without calling bwd, so the drain
#        costs no compute.
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    m = len(microbatches)
    dtype = microbatches[0].dtype
    stash, outputs, grads, sends, learned = {}, {}, [], [], {}

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

    def backward(i, drain):
        if stage == n - 1:
            g = outputs.pop(i)
        else:
            g = torch.empty(act_shape, dtype=dtype)
            dist.recv(g, stage + 1)
        x = stash.pop(i)
        if drain and "b" in learned:
            dx = g + x + learned["b"]  # no bwd call
        else:
            dx = bwd(x, g)
            learned["b"] = (dx - g - x).flatten()[0].item()
        if stage > 0:
            sends.append(dist.isend(dx, stage - 1))
        else:
            grads.append(dx)

    warmup = min(n - stage - 1, m)
    for i in range(warmup):
        forward(i)
    for i in range(m - warmup):
        forward(warmup + i)
        backward(i, False)
    for i in range(m - warmup, m):
        backward(i, True)
    for req in sends:
        req.wait()
    return grads if stage == 0 else None
