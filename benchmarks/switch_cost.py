"""Benchmark: what one ping-pong round trip costs the judge: frames read, replies, CPU time.

    .venv/bin/python benchmarks/switch_cost.py [--repeat 200]

Two ranks ping-pong a tensor on the switch (``switch_roundtrip.py``'s code; real ranks forked by
the judge's zygote) once with ``repeat`` round trips and once with twice as many; the difference
between the two runs, divided by ``repeat``, is what one round trip adds (the setup of a case
cancels out). Counted in the judge's process: the frames it handles (``SwitchServer._handle``),
the replies it queues (``_reply`` with a header) and its CPU time (user + system, this process
only; the ranks are other processes). Printed per size, the median of ``runs`` such pairs: frames,
replies and judge CPU per round trip, and rank 0's median round trip for scale.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from _side_by_side import on_switch
from switch_roundtrip import PING_PONG

from cjudge.switch.server import SwitchServer

SIZES = (4096, 1 << 20)
counts: Counter[str] = Counter()


def counted(name: str, method: Callable[..., Any], when: Callable[..., bool]) -> Callable[..., Any]:
    """``method`` that also counts its calls under ``name`` (those where ``when(*args)`` holds)."""
    def wrapper(*args: Any) -> Any:
        if when(*args):
            counts[name] += 1
        return method(*args)
    return wrapper


SwitchServer._handle = counted("frames", SwitchServer._handle, lambda *_: True)  # type: ignore[method-assign]
SwitchServer._reply = counted("replies", SwitchServer._reply,  # type: ignore[method-assign]
                              lambda _self, _conn, header, *_: bool(header))


def one_run(size: int, repeat: int) -> tuple[Counter[str], float, float]:
    """Frames and replies counted, the judge's CPU seconds, and rank 0's median round trip, for
    ``repeat`` round trips of ``size`` bytes."""
    code = PING_PONG.replace("REPEAT", str(repeat)).replace("SIZES", repr((size,)))
    counts.clear()
    before = resource.getrusage(resource.RUSAGE_SELF)
    [median] = on_switch(code, "f", 2, 1)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Counter(counts), cpu, median


def main() -> int:
    """Measure each size at ``repeat`` and ``2 * repeat`` round trips, ``runs`` times; print the
    median of each difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for size in SIZES:
        per: dict[str, list[float]] = {"frames": [], "replies": [], "cpu": [], "trip": []}
        for _ in range(args.runs):
            few, few_cpu, _ = one_run(size, args.repeat)
            many, many_cpu, median = one_run(size, 2 * args.repeat)
            for name in ("frames", "replies"):
                per[name].append((many[name] - few[name]) / args.repeat)
            per["cpu"].append((many_cpu - few_cpu) / args.repeat)
            per["trip"].append(median)
        mid = {name: statistics.median(values) for name, values in per.items()}
        print(f"{size:>8} B  frames {mid['frames']:5.2f}  replies {mid['replies']:5.2f}  "
              f"judge CPU {mid['cpu'] * 1e6:7.1f} us  (round trip {mid['trip'] * 1e6:7.1f} us) "
              f"per round trip, median of {args.runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
