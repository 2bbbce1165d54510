# expect: too_slow
# gloo: right on sample-4-stages-4-microbatches
# names: Rank 0 waits for each send (line 22) to be taken before it computes the next microbatch
# names: send microbatch k with isend
# names_zh: rank 0 每次发送（第 22 行）都要等对方接收后才计算下一个微批次
# Waits for each send before receiving the next microbatch: a stage idles while the next one receives.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs = []
    for mb in microbatches:
        if stage == 0:
            x = mb
        else:
            x = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(x, stage - 1)
        y = stage_fn(x)
        if stage < n - 1:
            dist.send(y, stage + 1)
        else:
            outputs.append(y)
    return outputs if stage == n - 1 else None
