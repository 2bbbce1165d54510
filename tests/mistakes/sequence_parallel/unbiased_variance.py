# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: every element is 0.866 = √((4 − 1)/4) times the expected one
# names: use var(unbiased=False)
# names_zh: torch.var 默认的无偏方差
# names_zh: var(unbiased=False)
# Writes the layer norm by hand with torch.var's default, the unbiased variance (over d − 1):
# every exchange is right, and every row comes out √((d − 1)/d) times too small.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    n = dist.get_world_size()
    rows, d = x.shape
    gathered = torch.empty(rows * n, d, dtype=x.dtype)
    dist.all_gather_into_tensor(gathered, x.contiguous())
    partial = F.gelu(gathered @ w1) @ w2
    mine = torch.empty(rows, d, dtype=x.dtype)
    dist.reduce_scatter_tensor(mine, partial.contiguous())
    mean = mine.mean(dim=-1, keepdim=True)
    var = mine.var(dim=-1, keepdim=True)
    return (mine - mean) / torch.sqrt(var + 1e-5)
