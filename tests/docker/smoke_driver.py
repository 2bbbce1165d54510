"""The HTTP half of the compose smoke test (tests/docker/smoke.sh), against a running
deployment: the web app is served; a learner registers; the ring-allreduce reference is accepted
and a known-wrong solution gets its verdict; the worker container grading a slow submission is
killed and another worker finishes it. Prints each submit-to-verdict time; exits non-zero at the
first thing that is not as expected.

    python3 tests/docker/smoke_driver.py URL   (admin credentials in CJUDGE_ADMIN_USERNAME/PASSWORD)
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any
from urllib.error import HTTPError

REPO = Path(__file__).resolve().parents[2]
EXERCISE = REPO / "exercises" / "ring-allreduce"
WRONG = EXERCISE / "wrong" / "allgather_one_step_short.py"
REFERENCE_RUNS = 5
#: the reference made slow (a second per case), so that a worker can be killed while it grades
SLOW_SUFFIX = """

_reference = ring_all_reduce


def ring_all_reduce(t):
    import time
    time.sleep(1.0)
    _reference(t)
"""


class Api:
    """A tiny JSON client for the judge's API."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.token: str | None = None

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("content-type", "application/json")
        if self.token:
            request.add_header("authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except HTTPError as exc:
            raise SystemExit(f"{method} {path}: {exc.code} {exc.read()[:500]!r}") from None

    def login(self, path: str, username: str, password: str) -> None:
        self.token = self.call("POST", f"/api/auth/{path}",
                               {"username": username, "password": password})["token"]

    def submit(self, code: str) -> int:
        return self.call("POST", "/api/submissions", {"exercise": "ring-allreduce", "code": code})["id"]

    def wait(self, submission_id: int, timeout_s: float = 180.0,
             until: str = "done") -> dict[str, Any]:
        """Poll the submission until its status is ``until`` (or later, for "running")."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            body = self.call("GET", f"/api/submissions/{submission_id}")
            if body["status"] == until or body["status"] == "done":
                return body
            time.sleep(0.05)
        raise SystemExit(f"submission {submission_id} not {until} after {timeout_s} s")


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"FAILED: {message}")
    print(f"ok: {message}", flush=True)


def timed_verdict(api: Api, code: str) -> tuple[dict[str, Any], float]:
    """Submit ``code`` and wait for its verdict; the submission and the seconds it took."""
    started = time.monotonic()
    body = api.wait(api.submit(code))
    return body, time.monotonic() - started


def expected_verdict(path: Path) -> str:
    return re.search(r"^# expect: (\w+)", path.read_text(), re.MULTILINE).group(1)


def sandbox_containers(worker_id: str) -> list[str]:
    """Running sandbox containers a worker started."""
    out = subprocess.run(["docker", "ps", "-q", "--filter", f"label=cjudge.sandbox={worker_id}"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def grade_reference_and_wrong(learner: Api) -> None:
    reference = (EXERCISE / "solution.py").read_text()
    body, took = timed_verdict(learner, reference)
    check(body["verdict"] == "accepted", f"first reference accepted in {took:.2f} s, "
          "the workers' sandboxes warming up")
    seconds = []
    for _ in range(REFERENCE_RUNS):
        body, took = timed_verdict(learner, reference)
        check(body["verdict"] == "accepted", f"reference accepted in {took:.2f} s "
              f"(queued {body['queue_ms']:.0f} ms, graded in {body['grading_ms']:.0f} ms)")
        seconds.append(took)
    print(f"submit-to-verdict, reference: median {statistics.median(seconds):.2f} s, "
          f"max {max(seconds):.2f} s over {len(seconds)} submissions", flush=True)
    body, took = timed_verdict(learner, WRONG.read_text())
    want = expected_verdict(WRONG)
    check(body["verdict"] == want, f"{WRONG.name}: {body['verdict']} (expected {want}) in "
          f"{took:.2f} s: {body['result']['cases'][0]['message'][:120]}")


def kill_worker_mid_job(learner: Api, admin: Api) -> None:
    started = time.monotonic()
    submission = learner.submit((EXERCISE / "solution.py").read_text() + SLOW_SUFFIX)
    running = admin.wait(submission, until="running")
    check(running["status"] == "running" and bool(running["worker_id"]),
          f"slow submission {submission} running on worker {running['worker_id']}")
    worker_id = running["worker_id"]
    container = worker_id.split(":")[0]  # a worker's id is host:pid, its host the container's id
    time.sleep(1.0)
    subprocess.run(["docker", "kill", container], check=True, capture_output=True)
    print(f"killed worker container {container}", flush=True)
    done = admin.wait(submission)
    check(done["verdict"] == "accepted" and done["worker_id"] != worker_id,
          f"submission {submission} finished by {done['worker_id']} after the kill: "
          f"{done['verdict']}, attempt {done['attempts']}, {time.monotonic() - started:.1f} s")
    deadline = time.monotonic() + 15
    while sandbox_containers(worker_id) and time.monotonic() < deadline:
        time.sleep(0.5)
    check(not sandbox_containers(worker_id), "the killed worker's sandbox containers ended")


def web_app_served(url: str) -> None:
    with urllib.request.urlopen(url + "/", timeout=30) as response:
        page = response.read().decode("utf-8", "replace")
        isolated = response.headers.get("cross-origin-opener-policy") == "same-origin"
    built = "is not built" not in page
    check(response.status == 200, f"the web app at / ({'built' if built else 'not built'}; "
          f"COOP/COEP headers {'set' if isolated else 'missing'})")


def main() -> None:
    url = sys.argv[1]
    web_app_served(url)
    admin, learner = Api(url), Api(url)
    admin.login("login", os.environ["CJUDGE_ADMIN_USERNAME"], os.environ["CJUDGE_ADMIN_PASSWORD"])
    learner.login("register", f"smoke{uuid.uuid4().hex[:8]}", "correct horse battery")
    check(bool(learner.token), "registered a learner over HTTP")
    grade_reference_and_wrong(learner)
    kill_worker_mid_job(learner, admin)


if __name__ == "__main__":
    main()
