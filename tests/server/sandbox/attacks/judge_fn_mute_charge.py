# attack: mute the compute charge: replace the port's compute (found in stage_fn's closure, or
#         in the closures of the functions it closes over) by one that answers the input
#         unchanged, so no call is charged or recorded
# exercise: pipeline-gpipe
# expect: wrong_answer|runtime_error
# (the function runs in the judge: a muted request computes nothing, and the stages' calls
#  recorded by the switch are not the microbatches they received)
import torch
import torch.distributed as dist


def _mute(fn, seen=None):
    seen = set() if seen is None else seen
    seen.add(id(fn))
    for cell in getattr(fn, "__closure__", None) or ():
        value = cell.cell_contents
        if hasattr(value, "compute"):
            value.compute = lambda handle, payload, *rest: payload
        elif callable(value) and id(value) not in seen:
            _mute(value, seen)


def pipeline_forward(stage_fn, microbatches, act_shape):
    _mute(stage_fn)
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs = []
    for mb in microbatches:
        x = mb
        if stage > 0:
            x = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(x, stage - 1)
        y = stage_fn(x)
        if stage < n - 1:
            dist.send(y, stage + 1)
        else:
            outputs.append(y)
    return outputs if stage == n - 1 else None
