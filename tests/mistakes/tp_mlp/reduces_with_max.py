# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: all_reduce (line 15): it reduces with MAX where the reference reduces with SUM
# names: pass op=ReduceOp.SUM, the default: leave op out
# names_zh: 它用 MAX 归约，而参考解用 SUM
# names_zh: 应传 op=ReduceOp.SUM
# Combines the partial outputs with ReduceOp.MAX: y is the largest rank's partial, not the sum
# of the column blocks' contributions.
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    y = F.gelu(x @ w1) @ w2
    dist.all_reduce(y, op=dist.ReduceOp.MAX)
    return y
