"""The untrusted end of judging: ``python -m cjudge.runner --result-fd 3``.

What a sandbox runs. It imports torch and the real runtime, announces ``{"ready": true}`` on the
result channel, then reads ONE job from stdin, ``{"job": JobSpec, "cases": [CaseSpec, ...]}``,
and answers one :class:`~cjudge.protocol.RawCase` JSON line per case on the result channel (a
file descriptor of its own, never stdout, which carries whatever the learner prints). It knows no
expected values: the trusted side grades each line (and may kill it after a failing case).
One job per process: a warm pool keeps such processes started and waiting, each used for one
submission only.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys

from .protocol import CaseSpec, JobSpec

PR_SET_DUMPABLE = 4


def serve(result_fd: int, launcher: str) -> int:
    """Announce readiness, run one job's cases, report each; the exit status."""
    from .runtime_real import run_case  # torch is imported here, before "ready"

    # undumpable: its ranks (same uid) can neither ptrace it nor open its /proc/<pid>/fd files;
    # each rank makes itself dumpable again so that the judge can read its write counters
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    out = os.fdopen(result_fd, "w", buffering=1, encoding="utf-8")
    out.write(json.dumps({"ready": True}) + "\n")
    line = sys.stdin.readline()
    if not line:
        return 0
    request = json.loads(line)
    job: JobSpec = request["job"]
    cases: list[CaseSpec] = request["cases"]
    for case in cases:
        out.write(json.dumps(run_case(job, case, launcher=launcher)) + "\n")
    out.close()
    return 0


def main() -> int:
    """Parse the arguments and serve one job."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--result-fd", type=int, default=3)
    p.add_argument("--launcher", choices=("fork", "torchrun"), default="fork")
    args = p.parse_args()
    return serve(args.result_fd, args.launcher)


if __name__ == "__main__":
    sys.exit(main())
