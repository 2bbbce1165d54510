# exercise: sequence-parallel
# expect: over_budget
# trick: all-gather the weight shards instead of the activations, then compute this rank's rows
#        with the whole W1 and W2 locally: correct, and cheaper whenever f < s.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    n = dist.get_world_size()
    d, part = w1.shape
    w1t = torch.empty(n * part, d, dtype=x.dtype)
    dist.all_gather_into_tensor(w1t, w1.t().contiguous())  # W1's columns, as rows
    full_w2 = torch.empty(n * part, d, dtype=x.dtype)
    dist.all_gather_into_tensor(full_w2, w2.contiguous())
    return F.layer_norm(F.gelu(x @ w1t.t()) @ full_w2, (d,))
