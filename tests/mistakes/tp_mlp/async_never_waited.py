# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# racy: right
# names: all_reduce (line 14) was never waited on
# names_zh: all_reduce（第 14 行） 从未等待
# async_op=True and no wait: y is returned before the all-reduce finished with it.
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    """y = gelu(x·W1)·W2 from this rank's shards: W1's columns, W2's matching rows."""
    y = F.gelu(x @ w1) @ w2
    dist.all_reduce(y, async_op=True)
    return y
