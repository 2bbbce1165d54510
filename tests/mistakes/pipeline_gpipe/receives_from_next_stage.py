# expect: deadlock
# gloo: deadlock on sample-4-stages-4-microbatches
# names: fix: rank 1 receives from rank 2 (line 22) while rank 0's send to rank 1 (line 25)
# names: receive from the rank that sends to you (here rank 0)
# names_zh: 而 rank 0 发给 rank 1 的消息（第 25 行）一直没有被接收
# names_zh: 这里是 rank 0
# Each later stage takes its activation from the stage after it instead of the one before:
# stage 0's message to stage 1 is never received, and every other stage waits on a stage that
# is itself waiting.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs, reqs = [], []
    for mb in microbatches:
        if stage == 0:
            x = mb
        else:
            x = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(x, (stage + 1) % n)
        y = stage_fn(x)
        if stage < n - 1:
            reqs.append(dist.isend(y, stage + 1))
        else:
            outputs.append(y)
    for r in reqs:
        r.wait()
    return outputs if stage == n - 1 else None
