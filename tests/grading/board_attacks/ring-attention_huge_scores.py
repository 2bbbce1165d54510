# exercise: ring-attention
# expect: runtime_error
# trick: one scores call on inputs the judge accepts (under its element limit) whose output is
#   the product of their rows: billions of scores, computed by the judge while the clock stops
import torch
import torch.distributed as dist


def ring_attention(scores, q, k, v):
    rows = (1 << 18) // q.shape[1]
    block = torch.ones(rows, q.shape[1], dtype=q.dtype)
    scores(block, block)
    dist.barrier()
    return q
