# attack: keep communicating after the graded function returned (a thread that outlives it), to
#         hand a peer data it could not otherwise get
# expect: wrong_answer|runtime_error|deadlock
# (the switch accepts nothing from a rank after its graded call ended, and the rank ends then)
import threading
import time

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        def later():
            time.sleep(0.05)
            for peer in range(1, n):
                dist.send(t, peer)
        threading.Thread(target=later, daemon=True).start()
        return
    total = torch.empty_like(t)
    dist.recv(total, 0)
    t += total
