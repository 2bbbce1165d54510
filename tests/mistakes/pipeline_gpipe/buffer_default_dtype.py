# expect: runtime_error
# gloo: error on 2-stages-1-microbatch
# names: rank 1's recv at line 18 raised RuntimeError; doesn't match expected size: 40 vs 20 bytes
# names_zh: rank 1 第 18 行的 recv; 40 对 20 字节
# Allocates the receive buffer in the default dtype (float32) whatever the microbatches' dtype.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs, sends = [], []
    for mb in microbatches:
        if stage == 0:
            x = mb
        else:
            x = torch.empty(act_shape)
            dist.recv(x, stage - 1)
        y = stage_fn(x)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs.append(y)
    for req in sends:
        req.wait()
    return outputs if stage == n - 1 else None
