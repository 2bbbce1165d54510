# attack: the reference ring with its receives posted at module level, before the graded call:
#         ungraded receives met graded sends, and the cost model dropped those messages (the
#         ring modelled at 0 s, first on the leaderboards)
# expect: runtime_error
# (one graded epoch: the switch cancels a rank's pending requests when its graded call starts,
#  their wait raises, and nothing posted before a rank's begin meets anything posted after it)
import torch
import torch.distributed as dist

RANK, N = dist.get_rank(), dist.get_world_size()
RIGHT, LEFT = (RANK + 1) % N, (RANK - 1) % N
EARLY = [torch.empty(4096, dtype=torch.float32) for _ in range(2 * (N - 1))]
POSTED = [dist.irecv(buf, LEFT) for buf in EARLY]


def ring_all_reduce(t):
    chunks = list(t.chunk(N))
    for step in range(2 * (N - 1)):
        send_idx = (RANK - step) % N if step < N - 1 else (RANK + 1 - step) % N
        recv_idx = (send_idx - 1) % N
        dist.isend(chunks[send_idx].contiguous(), RIGHT)
        POSTED[step].wait()
        got = EARLY[step][:chunks[recv_idx].numel()].to(t.dtype)
        if step < N - 1:
            chunks[recv_idx] += got
        else:
            chunks[recv_idx].copy_(got)
