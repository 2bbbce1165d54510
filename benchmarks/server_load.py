"""Load benchmark of the judge server (issue 3's numbers), on this machine, over HTTP.

1. latency: the ring-allreduce reference submitted one at a time with the warm pool ready;
   p50/p95 of submit-to-verdict, the verdict followed as the browser follows it (the
   submission's events stream, until its ``done`` event) (issue 37's target: p50 <= 0.6 s),
   and the p50 of each run's time outside its grading (queue, store, stream: the server's own
   part, which the grading's run-to-run spread does not hide);
2. throughput: 100 submissions queued at once; sustained submissions per minute until the
   last verdict (issue 37's target on 2 cores: >= 90/min), that none is lost or judged twice,
   and where the CPU goes: the server's and its workers' own CPU seconds per verdict, and a
   sandbox's start (forked by a fork server, or with ``CJUDGE_SANDBOX_FORK=false`` an
   interpreter of its own importing torch; its zygote forked) measured on its own;
3. reads: 50 concurrent clients GETting a submission; latency p99 (target < 50 ms).

It starts its own server (SQLite in a temporary directory, bubblewrap sandbox, embedded
workers) and prints a table; ``--json PATH`` also writes every number.

    python benchmarks/server_load.py [--latency-runs 20] [--queued 100] [--clients 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, cast

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "practice"))

import httpx  # noqa: E402

from server.localserver import EXERCISES, JudgeServer, start_server  # noqa: E402
from server.settings import Settings  # noqa: E402

SOLUTION = (EXERCISES / "ring-allreduce" / "solution.py").read_text()
TARGET_P50_S = 0.6
TARGET_PER_MINUTE = 90
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int, with_reaped: bool = False) -> float:
    """CPU seconds process ``pid`` has used (user + system), with its reaped children's."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15 if with_reaped else 13]) / CLOCK_TICKS


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that still run."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(x) for x in (task / "children").read_text().split()]
    return found


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    return [pid, *(p for child in children(pid) for p in tree(child))]


def sandbox_start_cpu_s(starts: int = 3) -> float:
    """Median CPU seconds of starting one sandbox, as the workers' pools start theirs, until its
    runner says it is ready (every process of the sandbox counted; a fork server's own start,
    once per worker, not)."""
    from server.sandbox import ForkedSandbox, SandboxProcess, sandbox_factory
    from server.sandbox.cgroups import discover

    factory, close = sandbox_factory(Settings(), discover())
    used = []
    try:
        for _ in range(starts):
            sandbox = factory()
            try:
                sandbox.wait_ready()
                assert isinstance(sandbox, ForkedSandbox | SandboxProcess)
                first = sandbox.pid if isinstance(sandbox, ForkedSandbox) else sandbox.proc.pid
                used.append(sum(cpu_s(p, with_reaped=True) for p in tree(first)))
            finally:
                sandbox.close()
    finally:
        if close is not None:
            close()
    return statistics.median(used)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile (0..1) of ``values``, by the nearest-rank method."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def follow(client: httpx.Client, submission_id: int) -> dict[str, Any]:
    """The submission once done, read from its events stream as the web app reads it."""
    with client.stream("GET", f"/api/submissions/{submission_id}/events", timeout=120) as r:
        event = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: ") and event == "done":
                return cast(dict[str, Any], json.loads(line.removeprefix("data: ")))
    raise AssertionError(f"submission {submission_id}: the stream ended before its verdict")


def measure_latency(server: JudgeServer, runs: int, pause_s: float) -> dict[str, Any]:
    """Submit-to-verdict of the reference, one at a time, the pool warm before each."""
    token = server.register()
    seconds: list[float] = []
    queue_ms: list[float] = []
    grading_ms: list[float] = []
    own_ms: list[float] = []  # submit-to-verdict less the grading: the server's own part
    verdicts: Counter[str] = Counter()
    with server.client(token) as client:  # a page already open: its connection is made
        for _ in range(runs):
            time.sleep(pause_s)  # let the pools refill: we measure the warm path
            start = time.monotonic()
            created = client.post("/api/submissions",
                                  json={"exercise": "ring-allreduce", "code": SOLUTION})
            created.raise_for_status()
            body = follow(client, created.json()["id"])
            seconds.append(time.monotonic() - start)
            queue_ms.append(body["queue_ms"])
            grading_ms.append(body["grading_ms"])
            own_ms.append(seconds[-1] * 1000 - body["grading_ms"])
            verdicts[body["verdict"]] += 1
    return {"runs": runs, "p50_s": statistics.median(seconds),
            "p95_s": percentile(seconds, 0.95), "max_s": max(seconds),
            "queue_ms_p50": statistics.median(queue_ms),
            "grading_ms_p50": statistics.median(grading_ms),
            "own_ms_p50": statistics.median(own_ms), "verdicts": dict(verdicts)}


def measure_throughput(server: JudgeServer, queued: int) -> dict[str, Any]:
    """Queue ``queued`` references at once; time until every verdict is in, and the CPU the
    server and its workers used meanwhile (their own, not their sandboxes')."""
    token = server.register()
    judges = [server.proc.pid, *children(server.proc.pid)]
    before = sum(cpu_s(p) for p in judges)
    start = time.monotonic()
    ids = [server.submit(token, SOLUTION) for _ in range(queued)]
    submitted_s = time.monotonic() - start
    results = [server.wait(token, sid, timeout_s=1800, poll_s=0.5) for sid in ids]
    elapsed = time.monotonic() - start
    judges_cpu_s = sum(cpu_s(p) for p in judges) - before
    return {"queued": queued, "submit_all_s": submitted_s, "elapsed_s": elapsed,
            "server_workers_cpu_s_per_verdict": judges_cpu_s / queued,
            "per_minute": queued / elapsed * 60,
            "done": sum(r["status"] == "done" for r in results),
            "verdicts": dict(Counter(r["verdict"] for r in results)),
            "not_accepted": [r["result"]["message"] for r in results if r["verdict"] != "accepted"],
            "slowest_case_ms": max(c["wall_ms"] for r in results for c in r["result"]["cases"]),
            "retried": sum(r["attempts"] != 1 for r in results)}


async def _reader(port: int, request: bytes, until: float, out: list[float]) -> None:
    """One client: a keep-alive connection, GET after GET until ``until``. A bare HTTP/1.1
    client on asyncio streams keeps the load generator's CPU far below the server's."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    while time.monotonic() < until:
        start = time.perf_counter()
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b" ", 2)[1]
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        await reader.readexactly(length)
        out.append(time.perf_counter() - start)
        if status != b"200":
            raise RuntimeError(f"GET: {status.decode()}")
    writer.close()


async def _read_load(port: int, request: bytes, clients: int, duration_s: float) -> list[float]:
    latencies: list[float] = []
    until = time.monotonic() + duration_s
    await asyncio.gather(*(_reader(port, request, until, latencies) for _ in range(clients)))
    return latencies


def measure_reads(server: JudgeServer, clients: int, duration_s: float) -> dict[str, Any]:
    """GET one (finished) submission from ``clients`` concurrent keep-alive connections."""
    token = server.register()
    sid = server.submit(token, SOLUTION)
    server.wait(token, sid)
    request = (f"GET /api/submissions/{sid} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               f"Authorization: Bearer {token}\r\n\r\n").encode()
    latencies = asyncio.run(_read_load(server.port, request, clients, duration_s))
    ms = [x * 1000 for x in latencies]
    return {"clients": clients, "requests": len(ms), "per_second": len(ms) / duration_s,
            "p50_ms": statistics.median(ms), "p99_ms": percentile(ms, 0.99), "max_ms": max(ms)}


def main() -> None:
    """Run the three measurements against a fresh local server and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-runs", type=int, default=20)
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between latency runs")
    parser.add_argument("--queued", type=int, default=100)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--read-seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    load = (os.getloadavg(),)
    with tempfile.TemporaryDirectory(prefix="cjudge-bench-") as data:
        server = start_server(Path(data), workers=args.workers, max_queued_total=10_000)
        try:
            time.sleep(5)  # the workers start and warm their pools
            results: dict[str, Any] = {
                "latency": measure_latency(server, args.latency_runs, args.pause),
                "throughput": measure_throughput(server, args.queued),
                "reads": measure_reads(server, args.clients, args.read_seconds)}
        finally:
            server.stop()
    results["sandbox_start_cpu_s"] = start_s = sandbox_start_cpu_s()
    lat, thr, rd = results["latency"], results["throughput"], results["reads"]
    print(f"machine load average (1, 5, 15 min) before and after: {load[0]} / {os.getloadavg()}")
    print(f"submit-to-verdict (warm pool, {lat['runs']} runs): p50 {lat['p50_s']:.2f} s, "
          f"p95 {lat['p95_s']:.2f} s, max {lat['max_s']:.2f} s (p50 queued "
          f"{lat['queue_ms_p50']:.0f} ms, grading {lat['grading_ms_p50']:.0f} ms, the rest "
          f"{lat['own_ms_p50']:.0f} ms); verdicts "
          f"{lat['verdicts']}; p50 / target {lat['p50_s'] / TARGET_P50_S:.2f}   "
          f"[target p50 <= {TARGET_P50_S} s (issue 37)]")
    print(f"throughput ({thr['queued']} queued): {thr['per_minute']:.1f} submissions/min "
          f"({thr['elapsed_s']:.1f} s); done {thr['done']}, verdicts {thr['verdicts']}, "
          f"retried {thr['retried']}, slowest case {thr['slowest_case_ms']:.0f} ms; "
          f"per minute / target {thr['per_minute'] / TARGET_PER_MINUTE:.2f}   "
          f"[target >= {TARGET_PER_MINUTE}/min on 2 cores (issue 37), none lost]")
    cores = os.cpu_count() or 1
    fork = "forked by a fork server" if Settings().sandbox_fork else "its own interpreter"
    cap = f"{60 * cores / start_s:.0f}" if start_s > 0 else "no limit on"
    print(f"CPU seconds a verdict: server and workers {thr['server_workers_cpu_s_per_verdict']:.2f}; "
          f"a sandbox's start {start_s:.2f} (each submission gets a fresh one, {fork}), so at most "
          f"{cap} verdicts/min on {cores} cores from the starts alone")
    for message in thr["not_accepted"]:
        print(f"  the reference NOT accepted: {message}")
    print(f"GET /api/submissions/ID, {rd['clients']} clients: p50 {rd['p50_ms']:.1f} ms, "
          f"p99 {rd['p99_ms']:.1f} ms, {rd['per_second']:.0f} req/s   [target p99 < 50 ms]")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
