"""A data directory whose disk is really full (issue 41): the server runs with its data directory
on a small tmpfs, mounted in a user and mount namespace of its own (``unshare``: no root needed,
as for the bubblewrap sandbox); a file written into it through ``/proc/PID/root`` fills the disk
to the last byte. /healthz says so with 503, POSTs answer 503 with Retry-After and never 500,
the log says it once, and both recover when there is room again."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from server.localserver import REPO, START_S, free_port

TMPFS = "24m"  # over health's 16 MiB low mark, so that the server starts healthy
CODE = "x = 1  # " + "pad " * 10_000 + "\n"  # about 40 KB: pages of WAL for each insert


def namespaces_work() -> bool:
    """Whether this machine lets a user mount a tmpfs in namespaces of its own."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                            "mount -t tmpfs -o size=1m tmpfs /tmp"], capture_output=True)
    return probe.returncode == 0


def fill(path: Path) -> int:
    """Write ``path`` until the disk is full; the bytes written."""
    written = 0
    with path.open("wb", buffering=0) as out:
        for size in (1 << 20, 1 << 12, 1):
            while True:
                try:
                    written += out.write(b"\0" * size)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
    return written


@pytest.mark.skipif(not namespaces_work(), reason="user namespaces cannot mount a tmpfs here")
def test_a_full_disk_is_503_with_the_reason_and_recovers(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    port = free_port()
    env = {**os.environ, "CJUDGE_RATE_PER_MINUTE": "10000", "CJUDGE_MAX_QUEUED_PER_USER": "1000",
           "CJUDGE_SUBMIT_RATE_IP": "100000/minute"}
    env.pop("CJUDGE_DATABASE_URL", None)
    env.pop("DATABASE_URL", None)
    log = tmp_path / "server.log"
    proc = subprocess.Popen(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
         f'mount -t tmpfs -o size={TMPFS},mode=0700 tmpfs "$0" && exec "$@"', str(data),
         sys.executable, "-m", "server", "--port", str(port), "--workers", "0",
         "--no-sandbox", "--data-dir", str(data)],
        cwd=REPO, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    filler = Path(f"/proc/{proc.pid}/root") / str(data).lstrip("/") / "filler"
    try:
        with httpx.Client(base_url=url, timeout=30) as c:
            deadline = time.monotonic() + START_S
            while True:
                assert proc.poll() is None, log.read_text(errors="replace")
                try:
                    if c.get("/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                time.sleep(0.2)
            token = c.post("/api/auth/register", json={"username": "learner",
                                                       "password": "correct horse battery"})
            assert token.status_code == 201, token.text
            c.headers["authorization"] = f"Bearer {token.json()['token']}"
            assert c.post("/api/submissions", json={"exercise": "ring-allreduce",
                                                    "code": CODE}).status_code == 202

            assert fill(filler) > 0
            health = c.get("/healthz")
            posts = [c.post("/api/submissions", json={"exercise": "ring-allreduce",
                                                      "code": CODE}) for _ in range(20)]

            filler.unlink()  # room again
            healed = c.get("/healthz")
            after = c.post("/api/submissions", json={"exercise": "ring-allreduce", "code": CODE})
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    text = log.read_text(errors="replace")
    assert health.status_code == 503, health.text
    assert "the data directory's disk is full (0 MiB free)" in health.json()["reasons"], health.text
    codes = [p.status_code for p in posts]
    assert set(codes) <= {202, 503} and 503 in codes, codes  # never 500
    refused = next(p for p in posts if p.status_code == 503)
    assert refused.json()["code"] == "database_unavailable", refused.text
    assert refused.headers["Retry-After"] == "5"
    assert "Traceback" not in text, text
    full_lines = [line for line in text.splitlines() if "unavailable" in line]
    print(f"\nfull disk: /healthz {health.status_code}, {codes.count(503)} of {len(codes)} POSTs "
          f"503, {len(full_lines)} log line(s)")
    assert 1 <= len(full_lines) <= 2, full_lines  # once when it starts (and maybe its end)
    assert healed.status_code == 200, healed.text
    assert after.status_code == 202, after.text
