# expect: deadlock
# gloo: deadlock on sample-4-ranks
# names: fix: every rank of the cycle sends first, and a blocking send waits for its receive
# names: post the send non-blocking (isend, then receive, then wait on the send), or order by parity
# names_zh: 改法：循环中的每个 rank 都先发送
# names_zh: 按奇偶排序
# Every rank sends to the right with a blocking send before it receives from the left: each
# send waits for a receive its neighbour posts only after its own send.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(t.chunk(n))
    right, left = (rank + 1) % n, (rank - 1) % n
    for phase in range(2):
        for step in range(n - 1):
            send_idx = (rank - step + phase) % n
            recv_idx = (rank - step - 1 + phase) % n
            buf = torch.empty_like(chunks[recv_idx])
            dist.send(chunks[send_idx].contiguous(), right)
            dist.recv(buf, left)
            if phase == 0:
                chunks[recv_idx] += buf
            else:
                chunks[recv_idx].copy_(buf)
