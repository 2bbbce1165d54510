"""The attack corpus: hostile submissions each end in a clean verdict, harm nobody, and leave
the server serving. Each file in ``attacks/`` says what it tries and which verdicts are clean."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from server.localserver import JudgeServer

ATTACKS = sorted((Path(__file__).parent / "attacks").glob("*.py"))
EXPECT = re.compile(r"^# expect: (.+)$", re.MULTILINE)
EXERCISE = re.compile(r"^# exercise: (\S+)$", re.MULTILINE)
DAEMON_ARGV = b"sleep\x0098765"


def expected(path: Path) -> set[str]:
    """The verdicts an attack may cleanly end in (its ``# expect:`` line)."""
    return set(EXPECT.search(path.read_text()).group(1).split("|"))


def host_processes_with(argv: bytes) -> list[int]:
    """Processes on this machine whose command line contains ``argv``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if argv in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


def exercise_of(path: Path) -> str:
    """The exercise an attack is submitted to (its ``# exercise:`` line; ring-allreduce)."""
    found = EXERCISE.search(path.read_text())
    return found.group(1) if found else "ring-allreduce"


def attack_code(path: Path, port: int) -> str:
    """The attack's code, told the server's port."""
    return path.read_text().replace("SERVER_PORT = 0", f"SERVER_PORT = {port}")


@pytest.fixture(scope="module")
def verdicts(judge: JudgeServer) -> dict[str, dict]:
    """Every attack submitted at once (the queue takes them all), then each one's result."""
    token = judge.register()
    ids = {p.name: judge.submit(token, attack_code(p, judge.port), exercise_of(p))
           for p in ATTACKS}
    return {name: judge.wait(token, sid, timeout_s=300) for name, sid in ids.items()}


def test_corpus_is_large_enough() -> None:
    assert len(ATTACKS) >= 15


@pytest.mark.parametrize("attack", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_attack_gets_a_clean_verdict(attack: Path, verdicts: dict[str, dict],
                                     judge: JudgeServer) -> None:
    body = verdicts[attack.name]
    result = body["result"]
    assert "LEAKED" not in str(result), result
    assert body["verdict"] in expected(attack), (body["verdict"], result["message"])
    assert body["attempts"] == 1, "an attack must not cost the judge a retry"
    assert judge.alive()


def test_nothing_is_left_running(verdicts: dict[str, dict]) -> None:
    deadline = time.monotonic() + 10
    while host_processes_with(DAEMON_ARGV) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert host_processes_with(DAEMON_ARGV) == []
    assert not Path("/pwned").exists() and not Path("/tmp/pwned").exists()


def test_server_still_judges_after_the_attacks(judge: JudgeServer,
                                               verdicts: dict[str, dict]) -> None:
    token = judge.register()
    solution = (Path(__file__).parents[3] / "exercises/ring-allreduce/solution.py").read_text()
    assert judge.wait(token, judge.submit(token, solution))["verdict"] == "accepted"
