"""Benchmark: how soon the judge reports a deadlock after it forms, on real ranks.

    .venv/bin/python benchmarks/deadlock_latency.py [--repeat 10]

Four real ranks each receive from their right neighbour first (every rank waits, nobody sends):
the deadlock forms when the last rank starts waiting. Each rank prints the wall clock just
before its blocking ``recv``; the script notes the wall clock at which the judge stops the case
as a deadlock (``Switch.mark_deadlock``). Latency = that moment − the last rank's print.
Target: under 0.2 s.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "practice"))

from cjudge.contract.protocol import CaseSpec, JobSpec  # noqa: E402
from cjudge.real.runtime import run_case  # noqa: E402
from cjudge.real.zygote import start_zygote  # noqa: E402
from cjudge.switch.core import Switch  # noqa: E402

RECV_FIRST = """
import time
import torch
import torch.distributed as dist


def f(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    print(f"waiting at {time.time():.6f}", flush=True)
    dist.recv(t, (rank + 1) % n)
    return t
"""


def main() -> int:
    """Run the deadlock ``--repeat`` times; print each latency and the median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    start_zygote()
    marked: list[float] = []
    original = Switch.mark_deadlock

    def mark(self: Switch) -> None:
        marked.append(time.time())
        original(self)

    Switch.mark_deadlock = mark  # type: ignore[method-assign]
    job = JobSpec(function="f", output="return", allowed=["send", "recv"], code=RECV_FIRST,
                  filename="recv_first.py", time_limit_s=10.0, output_limit_bytes=1 << 16)
    data = {"shape": [4], "dtype": "float32", "data": [0.0] * 4}
    latencies = []
    for _ in range(args.repeat):
        raw = run_case(job, CaseSpec(name="deadlock", world_size=4, sample=False, params={},
                                     inputs=[data] * 4))
        if raw["stop"] != "deadlock":
            sys.exit(f"expected a deadlock, got {raw['stop']}: {raw['ranks']}")
        formed = max(float(x) for x in re.findall(r"waiting at ([0-9.]+)", raw["stdout"]))
        latencies.append(marked[-1] - formed)
        print(f"reported {latencies[-1] * 1000:7.1f} ms after the last rank began to wait")
    median = statistics.median(latencies)
    print(f"median {median * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms "
          f"({'under' if max(latencies) < 0.2 else 'OVER'} the 0.2 s target)")
    return 0 if max(latencies) < 0.2 else 1


if __name__ == "__main__":
    sys.exit(main())
