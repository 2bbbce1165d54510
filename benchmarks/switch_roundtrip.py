"""Benchmark: one message's round trip through the switch and through gloo, 4 KiB and 1 MiB.

    .venv/bin/python benchmarks/switch_roundtrip.py [--repeat 200] [--runs 5]

Two ranks ping-pong a tensor: rank 0 sends, rank 1 receives and sends it back. On the switch
(real ranks forked by the judge's zygote, each with its judge process group) every hop is a
request to the switch over the rank's channel: a post, a match and a wait on both sides. The
same code then runs on a gloo group on loopback. Printed per size: rank 0's median round trip
on each, the switch's throughput (two hops of the payload per trip; goal >= 2 GB/s at 1 MiB)
and the ratio switch / gloo. One run's median moves by a third from run to run (where the
processes land, what else runs), so the pair runs ``--runs`` times, switch and gloo in turn:
printed are the medians over the runs, and each run's round trips.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from _side_by_side import on_gloo, on_switch

SIZES = (4096, 1 << 20)
PING_PONG = """
import statistics, time
import torch
import torch.distributed as dist


def f(t):
    rank = dist.get_rank()
    medians = []
    for size in SIZES:
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
        medians.append(statistics.median(times))
    return torch.tensor(medians, dtype=torch.float64)
"""


def main() -> int:
    """Run the ping-pong on the switch and on gloo in turn; print both, per size, and their
    ratio: the medians over the runs, then each run's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    code = PING_PONG.replace("REPEAT", str(args.repeat)).replace("SIZES", repr(SIZES))
    runs = [(on_switch(code, "f", 2, 1), on_gloo(code, "f", 2, 1)) for _ in range(args.runs)]
    print(f"medians over {args.runs} runs (switch and gloo in turn):")
    for at, size in enumerate(SIZES):
        s = statistics.median(switch[at] for switch, _ in runs)
        g = statistics.median(gloo[at] for _, gloo in runs)
        print(f"{size:>8} B  switch {s * 1e6:8.1f} us ({2 * size / s / 1e9:5.2f} GB/s)  "
              f"gloo {g * 1e6:8.1f} us ({2 * size / g / 1e9:5.2f} GB/s)  "
              f"switch/gloo {s / g:5.2f}x")
    for at, size in enumerate(SIZES):
        print(f"{size:>8} B  each run, switch / gloo (us): " + ", ".join(
            f"{switch[at] * 1e6:.0f} / {gloo[at] * 1e6:.0f}" for switch, gloo in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
