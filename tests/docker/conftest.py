"""Fixtures for the tests that need a Docker engine: one is started here if none answers;
the tests skip, saying why, only when none can be."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """A Docker engine that answers (started by tests/docker/engine.sh if needed)."""
    done = subprocess.run([str(HERE / "engine.sh")], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"no Docker engine can be started here: {done.stdout.strip()}")


@pytest.fixture(scope="session")
def judge_images(docker_engine: None) -> None:
    """The judge's images, built (cached after the first time) by docker/build-images.sh."""
    done = subprocess.run([str(REPO / "docker" / "build-images.sh")], capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
