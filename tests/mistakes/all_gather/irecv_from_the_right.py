# expect: deadlock
# gloo: deadlock on sample-4-ranks
# names: fix: rank 0 receives from rank 1 (line 21) while rank 3's send to rank 0 (line 21)
# names: receive from the rank that sends to you (here rank 3)
# names_zh: 而 rank 3 发给 rank 0 的消息（第 21 行）一直没有被接收
# names_zh: 从真正给你发送的 rank 接收
# Posts the receive from the right neighbour, the rank it also sends to: the left neighbour's
# block is never received, and each rank waits on one that is itself waiting.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right = (rank + 1) % n
    out = torch.empty(n * x.numel(), dtype=x.dtype)
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x)
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        reqs = [dist.isend(blocks[send_idx], right), dist.irecv(blocks[recv_idx], right)]
        for req in reqs:
            req.wait()
    return out
