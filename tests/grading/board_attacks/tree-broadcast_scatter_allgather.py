# exercise: tree-broadcast
# expect: over_budget|too_slow
# trick: van de Geijn's broadcast instead of the binomial tree: src scatters one piece to each
#        rank, then a ring all-gather; within the bytes, and faster at large sizes.
import torch
import torch.distributed as dist


def broadcast(t, src):
    rank, n = dist.get_rank(), dist.get_world_size()
    pieces = list(torch.tensor_split(t, n))
    if rank == src:
        for k in range(1, n):
            dist.send(pieces[(src + k) % n], (src + k) % n)
    else:
        dist.recv(pieces[rank], src)
    right, left = (rank + 1) % n, (rank - 1) % n
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        reqs = [dist.isend(pieces[send_idx], right), dist.irecv(pieces[recv_idx], left)]
        for req in reqs:
            req.wait()
