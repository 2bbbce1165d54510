# expect: runtime_error
# gloo: wrong on sample-4-ranks-seq-to-heads
# diverges: gloo's all_to_all_single checks no split of dim 0 and returns unfilled rows
# diverges: the judge raises the error of torch's own split check (c10d checkSplitSizes)
# names: Tensor's dim 0 does not divide equally across group size. Fix:
# names: all_to_all_single without split sizes cuts dim 0 of its input into one equal block per rank
# names: lay the tensor out so that dim 0 runs over the destination ranks
# names_zh: 张量的第 0 维无法在组内各 rank 之间平均切分
# names_zh: 让第 0 维按目标 rank 排列
# Hands x to the all-to-all as it is ([s/n, H, D]): dim 0 runs over the rank's own positions, not
# over the ranks the heads go to, and s/n rows do not split into n equal blocks.
import torch
import torch.distributed as dist


def seq_to_heads(x):
    n = dist.get_world_size()
    local, heads, dim = x.shape
    send = x.contiguous()
    received = torch.empty_like(send)
    dist.all_to_all_single(received, send)
    return received.reshape(local * n, heads // n, dim)


def heads_to_seq(y):
    n = dist.get_world_size()
    s, mine, dim = y.shape
    local = s // n
    received = torch.empty_like(y)
    dist.all_to_all_single(received, y.contiguous())
    return received.reshape(n, local, mine, dim).permute(1, 0, 2, 3).reshape(local, n * mine, dim)
