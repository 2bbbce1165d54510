# attack: read stage_fn's affine parameters from its closure, then compute every stage locally:
#         one stage does the whole pipeline at 0 bytes and no compute charge
# exercise: pipeline-gpipe
# expect: runtime_error|wrong_answer
# (the rank holds only a handle to the function: its params stay in the judge's switch)
import torch.distributed as dist


def _params(fn):
    for cell in getattr(fn, "__closure__", None) or ():
        value = cell.cell_contents
        if isinstance(value, dict) and "shift" in value:
            return value
    raise RuntimeError("no parameters in stage_fn's closure")


def pipeline_forward(stage_fn, microbatches, act_shape):
    params = _params(stage_fn)
    if dist.get_rank() != dist.get_world_size() - 1:
        return None
    return [mb * params["scale"] + params["shift"] for mb in microbatches]
