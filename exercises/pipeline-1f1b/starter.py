"""The 1F1B pipeline schedule: microbatches go forward through the n stages (fwd) and their
gradients come back (bwd); after a short warm-up each stage alternates one forward and one
backward, so it stashes at most n inputs.

1F1B 流水线调度：微批次依次前向经过 n 个 stage（fwd），梯度再反向传回（bwd）；短暂预热后，每个
stage 交替做一次前向、一次反向，因此最多暂存 n 个输入。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test pipeline-1f1b [FILE]
"""

import torch
import torch.distributed as dist


def pipeline_1f1b(fwd, bwd, microbatches, act_shape):
    """Stage 0: [the gradient of each microbatch's input, in order]; other stages: None.
    stage 0 返回每个微批次输入的梯度（按顺序）；其他 stage 返回 None。"""
    stage, n = dist.get_rank(), dist.get_world_size()
    m = len(microbatches)
    stash, grads = {}, []

    def forward(i):
        # TODO: stage 0 starts from microbatches[i]; a later stage receives x from stage - 1
        #       (torch.empty(act_shape, dtype=...)). Stash x, y = fwd(x), send y to stage + 1
        #       with dist.isend (the last stage keeps y: it is its own gradient).
        # 待完成：stage 0 直接用 microbatches[i]；之后的 stage 从 stage - 1 接收 x。暂存 x，
        #       y = fwd(x)，用 dist.isend 把 y 发给 stage + 1（最后一个 stage 保留 y：它就是梯度）。
        stash[i] = microbatches[i]

    def backward(i):
        # TODO: g = the gradient from stage + 1 (the last stage: its y); dx = bwd(stash.pop(i), g);
        #       send dx to stage - 1 with dist.isend (stage 0 keeps it in grads).
        # 待完成：g 为 stage + 1 传回的梯度（最后一个 stage：它的 y）；dx = bwd(stash.pop(i), g)；
        #       用 dist.isend 把 dx 发给 stage - 1（stage 0 把它放进 grads）。
        grads.append(stash.pop(i))

    # TODO: 1F1B: n - stage - 1 warm-up forwards, then one forward and one backward at a time,
    #       then the remaining backwards; wait for your sends before returning.
    # 待完成：1F1B：先做 n - stage - 1 次预热前向，再交替一次前向一次反向，最后做完剩下的反向；
    #       返回前等待所有发送完成。
    for i in range(m):
        forward(i)
        backward(i)
    return grads if stage == 0 else None
