"""Ring all-reduce: sum t over all ranks, in place, using only point-to-point communication.

环形 all-reduce：只用点对点通信，把 t 在所有 rank 上求和，原地写回 t。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test ring-allreduce [FILE]
"""

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    """Afterwards t holds the elementwise sum over all ranks (t 最终为所有 rank 的逐元素和)."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    # TODO: n-1 reduce-scatter steps: send chunks[(rank - step) % n] to the right,
    #       receive from the left and add into chunks[(rank - step - 1) % n].
    # TODO: n-1 all-gather steps: pass the summed chunks once more around the ring.
    # 待完成：先 n-1 步 reduce-scatter，再 n-1 步 all-gather。
