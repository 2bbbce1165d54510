"""Benchmark: one case's record crossing a sandbox's result channel, as JSON lists and as a frame.

    .venv/bin/python benchmarks/result_channel.py [--sizes 8x1 8x4] [--repeat 3]

A case of N ranks whose results are M MiB of float32 each (``NxM``), as the runner holds it
(the elements as Python floats, an empty trace). Before: the runner wrote it as one JSON line
and the worker read it (64 KiB reads into one buffer, then ``json.loads``; with ``--old-reader``
as the old ``LineChannel`` did, joining bytes objects: quadratic in the line's length). Both
sizes were past the old fixed budget (16 MiB), so before the runner actually cut such a case
to a ``trace_limit`` record; the JSON rows say what carrying it would have cost.
After: the runner writes a frame (``switch.packed.framed``: the skeleton's JSON, the elements
as bytes) and the worker reads it with ``server.sandbox.channel.FrameChannel``, the elements
unpacked into lists again. Both cross a socket pair, as a bubblewrap sandbox's channel does,
written by a forked process. Printed, for each: the bytes that cross, the runner's time to
encode them, and the worker's time to read the case (from its first byte to the record); the
best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import socket
import sys
import time
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "practice")]

from cjudge.switch import packed  # noqa: E402
from cjudge.switch.core import empty_trace  # noqa: E402
from server.sandbox.channel import FrameChannel  # noqa: E402

Reader = Callable[[int], Any]


def case(world: int, mib: int) -> dict[str, Any]:
    """A case's record with ``world`` results of ``mib`` MiB of float32 (one list, shared)."""
    numel = mib << 18
    data = array("f", [random.uniform(-1, 1) for _ in range(numel)]).tolist()
    output = {"shape": [numel], "dtype": "float32", "data": data}
    ranks = [{"rank": r, "state": "returned", "output": output, "error": None}
             for r in range(world)]
    return {"name": f"{world}x{mib}", "ranks": ranks, "trace": empty_trace(world), "stdout": "",
            "stop": None, "wall_ms": 1.0}


def json_line(raw: dict[str, Any]) -> list[packed.Raw]:
    """Before: the record as one JSON line."""
    return [json.dumps(raw).encode() + b"\n"]


def read_line(fd: int) -> Any:
    """Before, the line's cost: 64 KiB reads into one buffer until the newline, ``json.loads``
(each read searched for the newline once)."""
    buffer = bytearray()
    while True:
        select.select([fd], [], [], 60)
        chunk = os.read(fd, 1 << 16)
        end = chunk.find(b"\n")
        if end >= 0:
            return json.loads(buffer + chunk[:end])
        buffer += chunk


def read_line_old(fd: int) -> Any:
    """Before, as the old ``LineChannel.read`` did: bytes joined and searched as they come."""
    buffer = b""
    while b"\n" not in buffer:
        select.select([fd], [], [], 60)
        buffer += os.read(fd, 1 << 16)
    return json.loads(buffer.split(b"\n", 1)[0])


def read_frame(fd: int) -> Any:
    """After: the server's channel, within a budget that fits."""
    return FrameChannel(fd, 1 << 30).read(time.monotonic() + 60)


def crossing(pieces: list[packed.Raw], read: Reader) -> tuple[float, Any]:
    """Seconds the worker takes to read ``pieces`` that a forked writer sends once told to,
    and what it read."""
    ours, theirs = socket.socketpair()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        ours.close()
        os.read(go_r, 1)
        for piece in pieces:
            theirs.sendall(piece)
        os._exit(0)
    theirs.close()
    os.write(go_w, b"x")
    start = time.perf_counter()
    value = read(ours.fileno())
    seconds = time.perf_counter() - start
    os.waitpid(pid, 0)
    ours.close()
    for fd in (go_r, go_w):
        os.close(fd)
    return seconds, value


def measure(raw: dict[str, Any], encode: Callable[[dict[str, Any]], list[packed.Raw]],
            read: Reader, repeat: int) -> tuple[int, float, float]:
    """Bytes, best encoding seconds and best reading seconds of ``raw`` one way."""
    encodings, reads = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        pieces = encode(raw)
        encodings.append(time.perf_counter() - start)
        seconds, value = crossing(pieces, read)
        assert value == raw, "the record read is not the record written"
        reads.append(seconds)
    size = sum(memoryview(p).nbytes for p in pieces)
    return size, min(encodings), min(reads)


def main() -> int:
    """Each size, before and after, one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", default=["8x1", "8x4"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--old-reader", action="store_true",
                        help="read the JSON line as the old LineChannel did (slow: minutes)")
    args = parser.parse_args()
    ways: list[tuple[str, Callable[[dict[str, Any]], list[packed.Raw]], Reader]] = [
        ("JSON line", json_line, read_line_old if args.old_reader else read_line),
        ("frame", packed.framed, read_frame)]
    for size in args.sizes:
        raw = case(*(int(x) for x in size.split("x")))
        for name, encode, read in ways:
            nbytes, encoding, reading = measure(raw, encode, read, args.repeat)
            print(f"{size:>4} MiB  {name:9}  {nbytes / 2**20:8.1f} MiB crossed  runner encodes "
                  f"{encoding:6.3f} s  worker reads {reading:6.3f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
