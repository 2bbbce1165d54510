"""The docker-compose deployment end to end (tests/docker/smoke.sh): images, Postgres, server,
two workers, verdicts over HTTP, a worker killed mid-job, teardown; with Compose v1 (Debian's
docker-compose) and v2 (fetched into .tools/ by scripts/setup.sh)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SMOKE = HERE / "smoke.sh"
COMPOSE_V2 = HERE.parents[1] / ".tools" / "compose-v2" / "docker-compose"


@pytest.mark.parametrize("compose", ["v1", "v2"])
def test_compose_smoke(judge_images: None, compose: str) -> None:
    binary = shutil.which("docker-compose") if compose == "v1" else str(COMPOSE_V2)
    assert binary and Path(binary).exists(), f"no Compose {compose}: run scripts/setup.sh"
    version = subprocess.run([binary, "version"], capture_output=True, text=True).stdout
    assert ("version 1." if compose == "v1" else "version 2.") in version, version
    done = subprocess.run([str(SMOKE)], capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "COMPOSE": binary})
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-6000:]
