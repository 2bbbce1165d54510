"""The docker-compose deployment end to end (tests/docker/smoke.sh): images, Postgres, server,
two workers, verdicts over HTTP, a worker killed mid-job, teardown."""

from __future__ import annotations

import subprocess
from pathlib import Path

SMOKE = Path(__file__).parent / "smoke.sh"


def test_compose_smoke(judge_images: None) -> None:
    done = subprocess.run([str(SMOKE)], capture_output=True, text=True, timeout=1800)
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-6000:]
