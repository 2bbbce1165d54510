# expect: too_slow
# Mistake: no microbatching. All M microbatches are stacked into one batch that goes through the
# stages as one message; stage_fn costs the same per microbatch's worth of data, so the stages
# still run one after another.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    m = len(microbatches)
    if stage == 0:
        batch = torch.stack(microbatches)
    else:
        batch = torch.empty((m, *act_shape), dtype=microbatches[0].dtype)
        dist.recv(batch, stage - 1)
    batch = stage_fn(batch)
    if stage < n - 1:
        dist.send(batch, stage + 1)
        return None
    return [batch[i].clone() for i in range(m)]
