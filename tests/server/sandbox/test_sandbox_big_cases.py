"""Real sizes through the sandbox: the ring all-reduce's reference accepted at 8 ranks of 16 MiB,
its inputs and results crossing the runner's channels as bytes (never lists of numbers, which
would not fit the sandbox's memory) within a budget grown with the cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from cjudge.contract.protocol import RESULT_BYTES
from cjudge.contract.values import result_budget
from cjudge.grading.submission import judge_code
from server.sandbox import SandboxProcess, spec_from
from server.sandbox.cases import RUNTIME, sandbox_cases
from server.sandbox.cgroups import discover
from server.settings import Settings
from tests.real.scratch import ring_with_cases

MIB16 = 1 << 22  # float32 elements in 16 MiB
SEED = 7


class OnePool:
    """A pool of one started sandbox."""

    def __init__(self, sandbox: SandboxProcess) -> None:
        self.sandbox = sandbox

    def take(self) -> SandboxProcess:
        return self.sandbox


@pytest.mark.needs_sandbox
def test_the_reference_is_accepted_at_8_ranks_of_16_mib_in_the_sandbox(tmp_path: Path) -> None:
    ex = ring_with_cases(tmp_path, [(8, MIB16)])
    hier = discover()
    sandbox = SandboxProcess(spec_from(Settings(sandbox="bwrap"), hier), hier)
    try:
        sandbox.wait_ready()
        runner = sandbox_cases(ex, SEED, OnePool(sandbox))  # type: ignore[arg-type]
        result = judge_code(ex, ex.solution, "solution.py", runner, RUNTIME, seed=SEED,
                            all_cases=True, cases=runner.cases)
        # within the sandbox's memory: 128 MiB of inputs and as much of results, each rank's
        # as a list of floats would be 8 times its bytes
        assert sandbox.stop is None and sandbox.oom_kills() == 0, sandbox.log()
        # what crossed: the results' 128 MiB as bytes (as JSON text, about 600 MB), more than
        # the fixed allowance for records alone would have let through
        assert RESULT_BYTES < 8 * 4 * MIB16 < sandbox.channel.total < 8 * 4 * MIB16 + RESULT_BYTES
        assert sandbox.channel.limit == result_budget(runner.cases)
    finally:
        sandbox.close()
    assert [c["verdict"] for c in result["cases"]] == ["accepted", "accepted"], result["message"]
    assert result["cases"][1]["bytes_sent"] == [2 * 7 * MIB16 // 8 * 4] * 8
