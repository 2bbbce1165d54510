# expect: deadlock
# gloo: error on sample-4-ranks
# diverges: plain torch without CUDA raises at .cuda(); the judge makes CUDA calls no-ops on the CPU lane
# names: fix: every rank of the cycle sends first, and a blocking send waits for its receive
# names: post the send non-blocking (isend
# names_zh: 改法：循环中的每个 rank 都先发送; 改为非阻塞发送（先 isend
# Code written for GPUs: it moves the buffer with .cuda() and .to("cuda") and synchronises, which
# do nothing on the CPU lane (a note says so), then sends to the right with a blocking send
# before receiving from the left: the ring deadlocks, and that is what the message is about.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.empty(n * x.numel(), dtype=x.dtype).to("cuda")
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x.cuda())
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        dist.send(blocks[send_idx], right)
        dist.recv(blocks[recv_idx], left)
    torch.cuda.synchronize()
    return out
