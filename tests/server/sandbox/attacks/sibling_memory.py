# attack: read the other ranks' tensors straight out of their memory through /proc/<pid>/mem
# expect: runtime_error|wrong_answer|forbidden_primitive
import os
import time

import torch
import torch.distributed as dist


def _wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.001)


def ring_all_reduce(t):
    rank, world = dist.get_rank(), dist.get_world_size()
    size = t.numel() * t.element_size()
    tag = f"/tmp/where.{world}.{t.numel()}.{t.element_size()}"
    mine = t.clone()
    with open(f"{tag}.{rank}.tmp", "w") as f:  # a few bytes, within the judge's slack
        f.write(f"{os.getpid()} {mine.data_ptr()}")
    os.rename(f"{tag}.{rank}.tmp", f"{tag}.{rank}")
    total = mine.clone()
    for peer in range(world):
        if peer != rank:
            _wait_for(f"{tag}.{peer}")
            with open(f"{tag}.{peer}") as f:
                pid, address = map(int, f.read().split())
            with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
                data = os.pread(memory.fileno(), size, address)
            total += torch.frombuffer(bytearray(data), dtype=t.dtype)
    open(f"{tag}.{rank}.done", "w").close()
    for peer in range(world):
        _wait_for(f"{tag}.{peer}.done")  # keep this rank's tensor alive until all have read it
    t.copy_(total)
