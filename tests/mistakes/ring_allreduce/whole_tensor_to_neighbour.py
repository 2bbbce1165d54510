# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: rank 0's reduce-scatter step 1 (line 16): it sends [1, 2, 3, 4, …] to rank 1
# names: the ring sends chunk 0 holding rank 0's own input only
# names_zh: reduce-scatter 第 1 步（第 16 行）
# Blocking calls ordered by parity (waited: no missed wait is blamed), but the whole tensor goes
# to one neighbour once: only the left neighbour's contribution is added.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    buf = torch.empty_like(t)
    if rank % 2 == 0:
        dist.send(t, (rank + 1) % n)
        dist.recv(buf, (rank - 1) % n)
    else:
        dist.recv(buf, (rank - 1) % n)
        dist.send(t, (rank + 1) % n)
    t += buf
