# expect: wrong_answer
# gloo: wrong on sample-4-stages-4-microbatches
# names: rank 0's 2nd call of stage_fn (line 20) was given, as its input, the one a stage gives its
# names: 1st call of stage_fn, not its 2nd
# names_zh: rank 0 第 2 次调用 stage_fn（第 20 行）; 第 1 次调用 stage_fn 时的那个
# Off by one on stage 0: microbatch i - 1 is fed where microbatch i is due (the first one twice).
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs, sends = [], []
    for i, mb in enumerate(microbatches):
        if stage == 0:
            x = microbatches[i - 1] if i > 0 else mb
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
    return outputs if stage == n - 1 else None
