# exercise: pipeline-1f1b
# expect: wrong_answer|runtime_error
# trick: the last stage's output is its own gradient, so after one probe call it computes fwd's
#        output itself, runs bwd on it and sends the gradient back at once, and calls fwd for
#        the microbatch only afterwards: the turn-around at the last stage costs one compute.
import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    m = len(microbatches)
    dtype = microbatches[0].dtype
    stash, outputs, grads, sends, late, learned = {}, {}, [], [], {}, {}

    def forward(i):
        if stage == 0:
            x = microbatches[i]
        else:
            x = torch.empty(act_shape, dtype=dtype)
            dist.recv(x, stage - 1)
        stash[i] = x
        if stage == n - 1 and "a" in learned:
            outputs[i] = x + learned["a"]
            late[i] = x  # fwd(x) is called after the backward
            return
        y = fwd(x)
        learned["a"] = (y - x).flatten()[0].item()
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
        if i in late:
            fwd(late.pop(i))

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
