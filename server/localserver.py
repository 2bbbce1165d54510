"""A judge server in a subprocess (``python -m server``) with a small HTTP client: what the
tests and ``benchmarks/server_load.py`` drive."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx

REPO = Path(__file__).resolve().parents[1]
EXERCISES = REPO / "exercises"
#: how long a started server may take to answer: over 60 s was measured on a loaded machine
#: (two CPU hogs beside the tests); a server that exits is seen at once, so this bounds only a
#: start that hangs
START_S = 300


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return cast(int, s.getsockname()[1])


@dataclass
class JudgeServer:
    """A running server: its URL, data directory and process."""

    url: str
    port: int
    data_dir: Path
    proc: subprocess.Popen[bytes]
    log_path: Path

    def client(self, token: str | None = None) -> httpx.Client:
        """A client for the API, logged in with ``token`` if given."""
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def register(self, username: str | None = None, password: str = "correct horse") -> str:
        """Register a new learner and return its token."""
        username = username or f"u{uuid.uuid4().hex[:10]}"
        with self.client() as c:
            r = c.post("/api/auth/register", json={"username": username, "password": password})
        r.raise_for_status()
        return cast(str, r.json()["token"])

    def submit(self, token: str, code: str, exercise: str = "ring-allreduce") -> int:
        """Queue ``code`` and return the submission id."""
        with self.client(token) as c:
            r = c.post("/api/submissions", json={"exercise": exercise, "code": code})
        if r.status_code != 202:
            raise RuntimeError(f"submission refused: {r.status_code} {r.text}")
        return cast(int, r.json()["id"])

    def wait(self, token: str, submission_id: int, timeout_s: float = 120,
             poll_s: float = 0.1) -> dict[str, Any]:
        """Poll until the submission is done; its JSON."""
        deadline = time.monotonic() + timeout_s
        with self.client(token) as c:
            while time.monotonic() < deadline:
                body: dict[str, Any] = c.get(f"/api/submissions/{submission_id}").json()
                if body["status"] == "done":
                    return body
                time.sleep(poll_s)
        raise AssertionError(f"submission {submission_id} not done after {timeout_s} s: {body}")

    def alive(self) -> bool:
        """Whether the server answers /healthz (healthy, or degraded: 503 with its reasons)."""
        try:
            return httpx.get(f"{self.url}/healthz", timeout=5).status_code in (200, 503)
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        """Stop the server (it stops its workers) and wait for it."""
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def log(self) -> str:
        """What the server printed so far."""
        return self.log_path.read_text(errors="replace")


def start_server(data_dir: Path, workers: int = 2, **settings: Any) -> JudgeServer:
    """Start ``python -m server`` on a free port with ``CJUDGE_*`` ``settings`` (generous
    submission bounds unless given), SQLite in ``data_dir``; wait until it answers."""
    port = free_port()
    env = {**os.environ, "CJUDGE_DATA_DIR": str(data_dir), "CJUDGE_WORKERS": str(workers),
           "CJUDGE_RATE_PER_MINUTE": "10000", "CJUDGE_MAX_QUEUED_PER_USER": "1000",
           "CJUDGE_MAX_PENDING_PER_IP": "1000"}
    env.pop("CJUDGE_DATABASE_URL", None)
    env.pop("DATABASE_URL", None)
    env.update({"CJUDGE_SIGNUP_RATE": "100000/minute",  # tests and benches sign up many,
                "CJUDGE_LOGIN_RATE_IP": "100000/minute",  # all from 127.0.0.1
                "CJUDGE_SUBMIT_RATE_IP": "100000/minute"})
    env.update({f"CJUDGE_{k.upper()}": str(v) for k, v in settings.items()})
    data_dir.mkdir(parents=True, exist_ok=True)
    log_path = data_dir / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "server", "--port", str(port)], cwd=REPO,
                            env=env, stdout=log_path.open("wb"), stderr=subprocess.STDOUT)
    server = JudgeServer(f"http://127.0.0.1:{port}", port, data_dir, proc, log_path)
    deadline = time.monotonic() + START_S
    while not server.alive():
        if proc.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"the server did not start:\n{server.log()}")
        time.sleep(0.2)
    return server


