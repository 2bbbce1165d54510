# attack: exchange the tensors through files mapped shared in /tmp (stores to memory, no write() to count)
# expect: runtime_error|wrong_answer|forbidden_primitive
import mmap
import os
import time

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, world = dist.get_rank(), dist.get_world_size()
    size = t.numel() * t.element_size()
    tag = f"/tmp/shared.{world}.{t.numel()}.{t.element_size()}"
    fd = os.open(f"{tag}.{rank}", os.O_RDWR | os.O_CREAT, 0o666)
    os.ftruncate(fd, size + 1)
    mine = mmap.mmap(fd, size + 1)
    mine[:size] = bytes(t.view(torch.uint8).tolist())
    mine[size] = 1
    total = t.clone()
    for peer in range(world):
        while peer != rank:
            try:
                theirs = mmap.mmap(os.open(f"{tag}.{peer}", os.O_RDWR), size + 1)
                if theirs[size] == 1:
                    total += torch.frombuffer(bytearray(theirs[:size]), dtype=t.dtype)
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.001)
    t.copy_(total)
