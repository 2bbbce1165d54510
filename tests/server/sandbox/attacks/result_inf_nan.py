# attack: the last stage returns activations of inf and nan without running the pipeline: the
#         grader's diagnosis turns a wrong element into a bit mask with int()
# exercise: pipeline-gpipe
# expect: wrong_answer
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    if dist.get_rank() != dist.get_world_size() - 1:
        return None
    fills = [float("inf"), float("nan"), float("-inf")]
    return [torch.full(act_shape, fills[i % 3], dtype=mb.dtype)
            for i, mb in enumerate(microbatches)]
