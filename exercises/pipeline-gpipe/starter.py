"""GPipe's forward pass: stage s (= rank s) receives each microbatch's activation from stage
s − 1, applies stage_fn and sends the result to stage s + 1; the last stage returns the outputs.

GPipe 前向传播：stage s（即 rank s）从 stage s − 1 接收每个微批次的激活，调用 stage_fn，再发给
stage s + 1；最后一个 stage 按顺序返回输出。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test pipeline-gpipe [FILE]
"""

import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    """Last stage: [stage_fn(...) of every microbatch, in order]; other stages: None.
    最后一个 stage 返回所有微批次的输出列表（按顺序）；其他 stage 返回 None。"""
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs = []
    for mb in microbatches:
        # TODO: stage 0 starts from mb; a later stage receives this microbatch from stage - 1
        #       into a buffer torch.empty(act_shape, dtype=mb.dtype).
        # 待完成：stage 0 直接用 mb；之后的 stage 从 stage - 1 接收这个微批次。
        x = mb
        y = stage_fn(x)
        # TODO: send y to stage + 1 unless this is the last stage (which keeps it), without
        #       waiting for the send before receiving the next microbatch (dist.isend).
        # 待完成：不是最后一个 stage 就把 y 发给 stage + 1（用 dist.isend，不要等它完成）。
        outputs.append(y)
    return outputs if stage == n - 1 else None
