# expect: forbidden_primitive
# Mistake: each half summed with the built-in dist.all_reduce instead of sent along the trees.
import torch.distributed as dist


def double_tree_all_reduce(t, chunks):
    for half in t.chunk(2):
        dist.all_reduce(half)
