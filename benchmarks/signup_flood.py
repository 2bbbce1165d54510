"""Abuse benchmark of the judge server (issue 17's numbers), on this machine, over HTTP.

1. sign-up flood: the ring-allreduce reference's submit-to-verdict, quiet and then while 40
   threads sign up in a loop (per-IP sign-up limit opened, so every request hashes: the worst
   case, many addresses); target: within 2x the quiet time, and no 500 at all;
2. account flood: 100 accounts from one address queue 5 jobs each, then an honest learner
   from another address submits the reference; target: the honest job starts within one
   job's time of a worker freeing up (claims go to the address, then the user, with the
   fewest running jobs).

It starts its own server (SQLite in a temporary directory, bubblewrap sandbox, one embedded
worker) and prints what it measured; ``--json PATH`` also writes every number.

    python benchmarks/signup_flood.py [--threads 40] [--flooders 100] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from datetime import datetime
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "practice"))

from server.localserver import EXERCISES, JudgeServer, start_server  # noqa: E402

SOLUTION = (EXERCISES / "ring-allreduce" / "solution.py").read_text()
PASSWORD = "correct horse battery staple"
HONEST_ADDRESS = "127.0.0.2"
OPEN = {"signup_rate": "1000000/minute", "login_rate_ip": "1000000/minute",
        "submit_rate_ip": "1000000/minute", "max_pending_per_ip": 100000,
        "max_queued_total": 100000, "rate_per_minute": 1000, "max_queued_per_user": 5}


def reference_seconds(server: JudgeServer, token: str, runs: int) -> list[float]:
    """Submit-to-verdict of the reference, ``runs`` times one after the other."""
    seconds = []
    for _ in range(runs):
        start = time.monotonic()
        body = server.wait(token, server.submit(token, SOLUTION, exercise="ring-allreduce"),
                           timeout_s=300, poll_s=0.02)
        seconds.append(time.monotonic() - start)
        if body["verdict"] != "accepted":
            print(f"  reference not accepted: {body['verdict']}", file=sys.stderr)
    return seconds


def signup_flood(server: JudgeServer, threads: int, runs: int) -> dict:
    """The reference quiet, then under ``threads`` sign-up loops; status counts of the flood."""
    token = server.register(password=PASSWORD)
    reference_seconds(server, token, 1)  # warm-up
    quiet = reference_seconds(server, token, runs)
    statuses: Counter[int] = Counter()
    stop = threading.Event()

    def loop() -> None:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            while not stop.is_set():
                name = f"f{uuid.uuid4().hex[:12]}"
                try:
                    r = c.post("/api/auth/register", json={"username": name,
                                                           "password": PASSWORD})
                    statuses[r.status_code] += 1
                except httpx.HTTPError:
                    statuses[0] += 1

    workers = [threading.Thread(target=loop, daemon=True) for _ in range(threads)]
    for w in workers:
        w.start()
    time.sleep(2)
    flooded = reference_seconds(server, token, runs)
    stop.set()
    for w in workers:
        w.join()
    return {"threads": threads, "quiet_s": quiet, "flooded_s": flooded,
            "ratio": statistics.median(flooded) / statistics.median(quiet),
            "signup_statuses": dict(statuses)}


def account_flood(server: JudgeServer, flooders: int, jobs_each: int) -> dict:
    """``flooders`` accounts queue ``jobs_each`` jobs; when does an honest job start?"""
    tokens = [server.register(password=PASSWORD) for _ in range(flooders)]
    refused = 0
    for token in tokens:
        for _ in range(jobs_each):
            try:
                server.submit(token, SOLUTION)
            except RuntimeError:
                refused += 1
    # the honest learner from another address (127.0.0.2: any 127/8 address is this machine)
    transport = httpx.HTTPTransport(local_address=HONEST_ADDRESS)
    with httpx.Client(base_url=server.url, transport=transport, timeout=30) as c:
        token = c.post("/api/auth/register", json={"username": f"h{uuid.uuid4().hex[:10]}",
                                                   "password": PASSWORD}).json()["token"]
        c.headers["authorization"] = f"Bearer {token}"
        time.sleep(1)
        submitted = time.monotonic()
        sid = c.post("/api/submissions", json={"exercise": "ring-allreduce",
                                               "code": SOLUTION}).json()["id"]
        while (body := c.get(f"/api/submissions/{sid}").json())["status"] != "done":
            time.sleep(0.05)
        wall = time.monotonic() - submitted
    return {"flooders": flooders, "jobs_each": jobs_each, "refused": refused,
            "honest_queue_s": body["queue_ms"] / 1e3, "honest_grading_s": body["grading_ms"] / 1e3,
            "honest_wall_s": wall, "verdict": body["verdict"],
            "started_at": body["started_at"], "finished_at": body["finished_at"],
            "job_time_s": body["grading_ms"] / 1e3,
            "note": "queue_s <= one job's time (grading_s) means the honest job went next"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--flooders", type=int, default=100)
    parser.add_argument("--jobs-each", type=int, default=5)
    parser.add_argument("--only", choices=["signup", "accounts"])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    flood = fair = None
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp), workers=1, **OPEN)
        try:
            if args.only != "accounts":
                flood = signup_flood(server, args.threads, args.runs)
                print(f"sign-up flood ({args.threads} threads): reference quiet "
                      f"{statistics.median(flood['quiet_s']):.2f} s, flooded "
                      f"{statistics.median(flood['flooded_s']):.2f} s (x{flood['ratio']:.2f}); "
                      f"sign-up answers {flood['signup_statuses']}")
            if args.only != "signup":
                fair = account_flood(server, args.flooders, args.jobs_each)
                print(f"account flood ({args.flooders} x {args.jobs_each} jobs): honest job "
                      f"queued {fair['honest_queue_s']:.2f} s, graded in "
                      f"{fair['honest_grading_s']:.2f} s ({fair['verdict']}); "
                      f"refused {fair['refused']}")
            errors = [line for line in server.log().splitlines() if "failed:" in line]
            print(f"server errors logged: {len(errors)}")
        finally:
            server.stop()
    if args.json:
        args.json.write_text(json.dumps({"signup_flood": flood, "account_flood": fair,
                                         "at": datetime.now().isoformat()}, indent=2))


if __name__ == "__main__":
    main()
