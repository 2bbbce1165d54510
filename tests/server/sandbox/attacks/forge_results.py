# attack: write forged result lines (every case accepted, no bytes) into any inherited descriptor
# expect: wrong_answer|runtime_error|forbidden_primitive
# (forbidden_primitive: what it writes into its own channel is a malformed request at worst)
import json
import os

import torch.distributed as dist

NAMES = ["sample-4-ranks", "2-ranks-odd", "3-ranks-float64", "3-ranks-one-each", "4-ranks-uneven",
         "8-ranks", "8-ranks-uneven-float64"]


def ring_all_reduce(t):
    n = dist.get_world_size()
    fake = {"ready": True}
    lines = [json.dumps(fake)]
    for name in NAMES:
        ranks = [{"rank": r, "state": "returned", "error": None,
                  "output": {"shape": list(t.shape), "dtype": "float32", "data": t.tolist()}}
                 for r in range(n)]
        lines.append(json.dumps({"name": name, "ranks": ranks, "events": [], "stdout": "",
                                 "stop": None, "wall_ms": 1.0}))
    data = ("\n".join(lines) + "\n").encode()
    for fd in range(3, 64):
        try:
            os.write(fd, data)
        except OSError:
            pass
