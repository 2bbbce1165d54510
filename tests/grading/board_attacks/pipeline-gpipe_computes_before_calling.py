# exercise: pipeline-gpipe
# expect: wrong_answer
# trick: one probe call teaches a stage its function (x + shift); from then on the stage computes
#        each microbatch itself, sends it on at once and calls stage_fn only after sending (each
#        call still given exactly its microbatch), so no send waits for a compute.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs, sends, shift = [], [], None
    for mb in microbatches:
        if stage == 0:
            x = mb
        else:
            x = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(x, stage - 1)
        if shift is None:
            y = stage_fn(x)
            shift = (y - x).flatten()[0].item()
            if stage < n - 1:
                sends.append(dist.isend(y, stage + 1))
        else:
            y = x + shift
            if stage < n - 1:
                sends.append(dist.isend(y, stage + 1))
            stage_fn(x)  # called, but only after the send
        outputs.append(y)
    for req in sends:
        req.wait()
    return outputs if stage == n - 1 else None
