# attack: spend the M compute charges up front on fake inputs (zeros) to learn each stage's
#         shift, then run the pipeline computing locally: no charge on the critical path
# exercise: pipeline-gpipe
# expect: wrong_answer
# (the switch records what each call was given: the grader sees stage_fn applied to zeros, not
#  to the microbatches each stage received)
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    shifts = [stage_fn(torch.zeros(act_shape, dtype=mb.dtype)) for mb in microbatches]
    sends, outputs = [], []
    for mb, shift in zip(microbatches, shifts, strict=True):
        x = mb
        if stage > 0:
            x = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(x, stage - 1)
        y = x + shift
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs.append(y)
    for req in sends:
        req.wait()
    return outputs if stage == n - 1 else None
