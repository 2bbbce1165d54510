# attack: pass the tensors in symlink targets and file names (no write() for the judge to count)
# expect: runtime_error|wrong_answer|forbidden_primitive
import os
import time

import torch
import torch.distributed as dist

CHUNK = 2000  # hex characters per symlink target


def ring_all_reduce(t):
    rank, world = dist.get_rank(), dist.get_world_size()
    tag = f"/tmp/link.{world}.{t.numel()}.{t.element_size()}"
    data = bytes(t.view(torch.uint8).tolist()).hex()
    chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)]
    for i, chunk in enumerate(chunks):
        os.symlink(chunk, f"{tag}.{rank}.{i}")
    os.mkdir(f"{tag}.{rank}.done")
    total = t.clone()
    for peer in range(world):
        if peer != rank:
            while not os.path.isdir(f"{tag}.{peer}.done"):
                time.sleep(0.001)
            text = "".join(os.readlink(f"{tag}.{peer}.{i}") for i in range(len(chunks)))
            total += torch.frombuffer(bytearray(bytes.fromhex(text)), dtype=t.dtype)
    t.copy_(total)
