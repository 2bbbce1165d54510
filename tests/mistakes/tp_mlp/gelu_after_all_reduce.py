# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: rank 0's 1st collective call, all_reduce (line 14): its input differs from the reference's
# names: the gelu goes between the two matmuls
# names_zh: gelu 应在两次矩阵乘之间; 它的输入从第 0 个元素起与参考解的不同
# gelu applied after the all-reduce. On the sample, rank 0's weights are the identity, so its
# input to the all-reduce equals x: a coincidence that a generic draw does not repeat.
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    y = x @ w1 @ w2
    dist.all_reduce(y)
    return F.gelu(y)
