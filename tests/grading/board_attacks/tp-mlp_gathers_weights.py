# exercise: tp-mlp
# expect: over_budget
# trick: all-gather the weight shards instead of all-reducing the partial outputs, then compute
#        y with the whole W1 and W2 on every rank: correct, and cheaper whenever f < b (the
#        cases keep b < f, as in real models, so the weights cost more than the activations).
import torch
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    n = dist.get_world_size()
    d, part = w1.shape
    w1t = torch.empty(n * part, d, dtype=x.dtype)
    dist.all_gather_into_tensor(w1t, w1.t().contiguous())  # W1's columns, as rows
    full_w2 = torch.empty(n * part, d, dtype=x.dtype)
    dist.all_gather_into_tensor(full_w2, w2.contiguous())
    return F.gelu(x @ w1t.t()) @ full_w2
