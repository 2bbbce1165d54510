# expect: wrong_answer
# gloo: wrong on sample-4-stages-4-microbatches
# names: rank 1's 1st call of stage_fn (line 22) was given the buffer of its irecv at line 21
# names: before that request completed: wait on the request before the call
# names_zh: rank 1 第 1 次调用 stage_fn（第 22 行）; 第 21 行的 irecv 的缓冲区; 调用之前先等待该请求
# Posts the irecv and calls stage_fn on its buffer at once, waiting only afterwards: each stage
# computes on a buffer the activation has not arrived in yet.
# Reverses microbatches on stage 0
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs, sends = [], []
    for mb in microbatches:
        if stage == 0:
            x = mb
        else:
            x = torch.empty(act_shape, dtype=mb.dtype)
            req = dist.irecv(x, stage - 1)
        y = stage_fn(x)
        if stage > 0:
            req.wait()
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs.append(y)
    for req in sends:
        req.wait()
    return outputs if stage == n - 1 else None
