# expect: wrong_answer
# gloo: wrong on sample-4-stages-4-microbatches
# names: rank 0: expected None, got []; what it returned; returned it at line 26
# names_zh: 应为 None，实际为 []; 在第 26 行
# Every stage returns its outputs list: the stages before the last return [] instead of None.
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
            dist.recv(x, stage - 1)
        y = stage_fn(x)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs.append(y)
    for req in sends:
        req.wait()
    return outputs
