"""Benchmark: one message's round trip through the switch, real ranks, 4 KiB and 1 MiB payloads.

    .venv/bin/python benchmarks/switch_roundtrip.py [--repeat 200]

Two real ranks (forked by the judge's zygote, each with its judge process group) ping-pong a
tensor inside their graded call: rank 0 sends, rank 1 receives and sends it back. Every hop is
a request to the switch over the rank's channel, so one round trip is two messages, each a
post, a match and a wait on both sides. Rank 0 prints the median and 90th percentile round
trip per size; this script shows them next to the same ping-pong's time on gloo.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "practice"))

from cjudge.protocol import CaseSpec, JobSpec  # noqa: E402
from cjudge.real.runtime import run_case  # noqa: E402
from cjudge.real.zygote import start_zygote  # noqa: E402

PING_PONG = """
import statistics, time
import torch
import torch.distributed as dist


def f(t):
    rank = dist.get_rank()
    for size in (4096, 1 << 20):
        buf = torch.zeros(size // 4)
        times = []
        for i in range(REPEAT + 5):
            start = time.perf_counter()
            if rank == 0:
                dist.send(buf, 1)
                dist.recv(buf, 1)
            else:
                dist.recv(buf, 0)
                dist.send(buf, 0)
            if i >= 5:
                times.append(time.perf_counter() - start)
        times.sort()
        if rank == 0:
            print(f"{size:>8} B  round trip median {statistics.median(times) * 1e6:8.1f} us  "
                  f"p90 {times[int(len(times) * 0.9)] * 1e6:8.1f} us  "
                  f"({len(times)} trips; {2 * size / statistics.median(times) / 1e9:.2f} GB/s)")
    return t
"""


def main() -> int:
    """Run the ping-pong once on real ranks and print what rank 0 measured."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    start_zygote()
    job = JobSpec(function="f", output="return", allowed=["send", "recv"],
                  code=PING_PONG.replace("REPEAT", str(args.repeat)), filename="pingpong.py",
                  time_limit_s=300.0, output_limit_bytes=1 << 16)
    data = {"shape": [1], "dtype": "float32", "data": [0.0]}
    raw = run_case(job, CaseSpec(name="pingpong", world_size=2, sample=False, params={},
                                 inputs=[data, data]))
    for report in raw["ranks"]:
        if report["error"]:
            sys.exit(f"rank {report['rank']} failed: {report['error']['message']}")
    print(raw["stdout"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
