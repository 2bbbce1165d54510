"""The docker sandbox's count of OOM kills against a real engine: the kernel's counter, so a
process the OOM killer ended is counted by the time anything sees it dead (no waiting for the
engine's late ``oom`` event, which once made a memory limit a runtime error under load)."""

from __future__ import annotations

from server.sandbox.docker_backend import sandbox_factory
from server.settings import Settings

HOG = "hog = []\nwhile True:\n    hog.append(b'x' * (64 << 20))"


def test_an_oom_kill_is_counted_as_soon_as_its_victim_is_dead(judge_images: None) -> None:
    sandbox = sandbox_factory(Settings(sandbox="docker", memory_limit_mb=512), cpu_seconds=60)()
    try:
        assert sandbox.oom_kills() == 0
        run = sandbox.api.exec_create(sandbox.id, ["python", "-c", HOG])
        sandbox.api.exec_start(run["Id"])  # returns once the hog is dead
        assert sandbox.api.exec_inspect(run["Id"])["ExitCode"] == 137  # SIGKILL
        assert sandbox.oom_kills() == 1
    finally:
        sandbox.close()
