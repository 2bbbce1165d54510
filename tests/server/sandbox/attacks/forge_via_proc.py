# attack: reopen the runner's result channel (or any file of PID 1 or the runner) through
#         /proc/<pid>/fd and forge every case
# expect: wrong_answer|runtime_error|forbidden_primitive
# (the judge's and the sibling ranks' fds are out of reach; a rank whose own pid is listed writes
#  into its own result and state, which ends it without a result, or, when it returns, is traffic
#  its trace can't explain)
import json
import os

import torch.distributed as dist

NAMES = ["sample-4-ranks", "2-ranks-odd", "3-ranks-float64", "3-ranks-one-each", "4-ranks-uneven",
         "8-ranks", "8-ranks-uneven-float64"]


def forged(name, n, t):
    ranks = [{"rank": r, "state": "returned", "error": None,
              "output": {"shape": list(t.shape), "dtype": str(t.dtype)[6:], "data": t.tolist()}}
             for r in range(n)]
    line = json.dumps({"name": name, "ranks": ranks, "events": [], "stop": None,
                       "stdout": "LEAKED forged through /proc", "wall_ms": 1.0})
    # escaped, so the marker shows only if the judge parses this line (not where it is echoed)
    return line.replace("LEAKED", "\\u004cEAKED")


def ring_all_reduce(t):
    n = dist.get_world_size()
    data = ("\n".join(forged(name, n, t) for name in NAMES) + "\n").encode()
    for pid in {os.getppid(), 1, 2, 3}:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                out = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue
            if pid in (1, os.getppid()):  # the judge's own files must be out of reach
                print(f"LEAKED: opened /proc/{pid}/fd/{fd}")
            try:
                os.write(out, data)
            except OSError:
                pass
            os.close(out)
