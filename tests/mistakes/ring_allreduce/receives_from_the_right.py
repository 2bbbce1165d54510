# expect: deadlock
# gloo: deadlock on sample-4-ranks
# names: fix: rank 0 receives from rank 1 (line 22) while rank 3's send to rank 0 (line 21)
# names: receive from the rank that sends to you
# names_zh: 从真正给你发送的 rank 接收（这里是 rank 3）
# Sends each chunk to the right and receives from the right too: the left neighbour's message
# is never received, and every rank waits on one that is itself waiting.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(t.chunk(n))
    right = (rank + 1) % n
    for phase in range(2):
        for step in range(n - 1):
            send_idx = (rank - step + phase) % n
            recv_idx = (rank - step - 1 + phase) % n
            buf = torch.empty_like(chunks[recv_idx])
            req = dist.isend(chunks[send_idx].contiguous(), right)
            dist.recv(buf, right)
            req.wait()
            if phase == 0:
                chunks[recv_idx] += buf
            else:
                chunks[recv_idx].copy_(buf)
