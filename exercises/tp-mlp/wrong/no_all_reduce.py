# expect: wrong_answer
# Mistake: returns this rank's partial output: the second matmul only sums over this rank's
# f/n columns of the intermediate.
import torch.nn.functional as F


def mlp(x, w1, w2):
    return F.gelu(x @ w1) @ w2
