# attack: print the tensor (printing is not traffic) and read the peers' output files
# expect: time_limit|wrong_answer
import glob
import time

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, world = dist.get_rank(), dist.get_world_size()
    tag = f"@{world}.{t.numel()}.{t.element_size()}@"
    print(tag + bytes(t.view(torch.uint8).tolist()).hex() + "@", flush=True)
    total = t.clone()
    for peer in range(world):
        while peer != rank:
            found = None
            for path in glob.glob(f"/dev/shm/cjudge-*/out.{peer}") + glob.glob(f"/tmp/cjudge-*/out.{peer}"):
                try:
                    text = open(path).read()
                except OSError:
                    continue
                if tag in text:
                    found = text.split(tag)[1].split("@")[0]
            if found and len(found) == 2 * t.numel() * t.element_size():
                total += torch.frombuffer(bytearray(bytes.fromhex(found)), dtype=t.dtype)
                break
            time.sleep(0.001)
    t.copy_(total)
