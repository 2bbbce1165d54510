# expect: wrong_answer
# gloo: wrong on sample-8-ranks-dst-6
# names: rank 0, which sends nothing, only receives (3 receives, the last at line 21); [11, 22] to rank 6
# names_zh: rank 0：它什么也不发送; 提示：只有 dst 的 t 可以改变
# Builds the tree towards rank 0 whatever dst is.
import torch.distributed as dist


def reduce(t, dst):
    """dst's ``t`` becomes the sum of every rank's ``t``, in ceil(log2 n) rounds; the others'
    ``t`` stay as they were."""
    rank, n = dist.get_rank(), dist.get_world_size()
    v = rank
    acc, buf = t.clone(), t.clone()
    mask = 1
    while mask < n:
        if v & mask:
            dist.send(acc, rank - mask)
            return
        if v + mask < n:
            dist.recv(buf, rank + mask)
            acc += buf
        mask *= 2
    t.copy_(acc)
