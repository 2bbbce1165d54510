# expect: over_budget
# Mistake: correct, but gathers the intermediate gelu(x·W1) (b × f) and all of W2 (f × d) so that
# every rank can do the whole second matmul: f·(b + d)/n elements per rank and peer instead of
# one all-reduce of the b × d output.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    n = dist.get_world_size()
    h = F.gelu(x @ w1)  # (b, f/n)
    cols = torch.empty(n * h.shape[1], h.shape[0], dtype=h.dtype)
    dist.all_gather_into_tensor(cols, h.t().contiguous())  # (f, b): every rank's columns
    rows = torch.empty(n * w2.shape[0], w2.shape[1], dtype=w2.dtype)
    dist.all_gather_into_tensor(rows, w2)  # (f, d): all of W2
    return cols.t() @ rows
