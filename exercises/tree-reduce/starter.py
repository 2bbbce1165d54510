"""Tree reduce: rank dst's t becomes the sum of every rank's t, in place, in ceil(log2 n)
rounds, using only point-to-point communication; the other ranks' t must stay unchanged.

树形归约：只用点对点通信，在 ceil(log2 n) 轮内让 rank dst 的 t 变成所有 rank 的 t 之和（原地）；
其他 rank 的 t 必须保持不变。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test tree-reduce [FILE]
"""

import torch.distributed as dist


def reduce(t, dst):
    """Afterwards t on rank dst is the sum of t over all ranks.
    之后 rank dst 上的 t 是所有 rank 的 t 之和。"""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - dst) % n  # your rank relative to the root
    acc = t.clone()  # your partial sum (你的部分和)
    # TODO: for mask = 1, 2, 4, ... < n: if v has bit mask set, send acc to relative rank
    #       v - mask and stop; otherwise, if v + mask < n, receive its partial sum and add it.
    #       At the end dst copies acc into t.
    # 待完成：mask = 1, 2, 4, ...：若 v 含 mask 这一位，把 acc 发给相对 rank v - mask 后结束；
    #       否则若 v + mask < n，接收它的部分和并加到 acc。最后 dst 把 acc 复制进 t。
