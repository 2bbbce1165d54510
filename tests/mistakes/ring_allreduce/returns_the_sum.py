# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: you returned a new tensor (`out` at line 22); grades its argument in place
# names: Write the result into t (e.g. t.copy_(result))
# names_zh: 你返回了一个新张量; 请把结果写入 t（例如 t.copy_(result)）
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    out, passing = t.clone(), t
    for _ in range(n - 1):
        got = torch.empty_like(t)
        if rank % 2 == 0:
            dist.send(passing, (rank + 1) % n)
            dist.recv(got, (rank - 1) % n)
        else:
            dist.recv(got, (rank - 1) % n)
            dist.send(passing, (rank + 1) % n)
        out, passing = out + got, got
    return out
