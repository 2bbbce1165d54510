# exercise: pipeline-1f1b
# expect: wrong_answer
# trick: one probe call teaches a stage its fwd (x + a) and bwd (grad + x + b); from then on the
#        stage computes each microbatch itself, sends the result at once and calls the judge's
#        function only after sending (each call still given exactly what 1F1B gives it), so no
#        send waits for a compute.
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
        if "a" in learned:
            y = x + learned["a"]
            if stage < n - 1:
                sends.append(dist.isend(y, stage + 1))
            fwd(x)  # called, but only after the send
        else:
            y = fwd(x)
            learned["a"] = (y - x).flatten()[0].item()
            if stage < n - 1:
                sends.append(dist.isend(y, stage + 1))
        if stage == n - 1:
            outputs[i] = y

    def backward(i):
        if stage == n - 1:
            g = outputs.pop(i)
        else:
            g = torch.empty(act_shape, dtype=dtype)
            dist.recv(g, stage + 1)
        x = stash.pop(i)
        if "b" in learned:
            dx = g + x + learned["b"]
            if stage > 0:
                sends.append(dist.isend(dx, stage - 1))
            bwd(x, g)  # called, but only after the send
        else:
            dx = bwd(x, g)
            learned["b"] = (dx - g - x).flatten()[0].item()
            if stage > 0:
                sends.append(dist.isend(dx, stage - 1))
        if stage == 0:
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
