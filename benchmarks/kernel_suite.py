"""Benchmark: the whole ring-allreduce suite on real ranks vs one torchrun run of the chapter's script.

    .venv/bin/python benchmarks/kernel_suite.py [--repeat 3]

Both are timed in this one run, as whole processes: the suite is ``judge.py test ring-allreduce
solution.py --json``, twice over: *cold* (``CJUDGE_WARM=0``: the command imports torch itself)
and *warm* (the default: the command hands its run to the warm judge, ``cjudge.cli.warm``, which
imported torch once; it is started by one unmeasured run first). The torchrun run is
``torchrun --nproc-per-node 4 tests/data/chapter_ring_allreduce.py``. Targets: the warm suite at
most 0.3 of the torchrun run (issue 10), and at most 0.4 s per case after the torch import.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], **env: str) -> tuple[float, str]:
    """Wall seconds of ``cmd`` and its stdout; fails loudly if it fails."""
    start = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False,
                         env={**os.environ, **env})
    wall = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{run.stdout}\n{run.stderr}")
    return wall, run.stdout


def _list(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


def main() -> int:
    """Time both, ``--repeat`` times each, interleaved, and print medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    py = sys.executable
    suite_cmd = [py, "practice/judge.py", "test", "ring-allreduce",
                 "exercises/ring-allreduce/solution.py", "--json"]
    torchrun_cmd = [py, "-m", "torch.distributed.run", "--nproc-per-node", "4",
                    "tests/data/chapter_ring_allreduce.py"]
    import_s = [timed([py, "-c", "import torch"])[0] for _ in range(args.repeat)]
    colds, warms, runs, per_case = [], [], [], []
    with tempfile.TemporaryDirectory() as warm_dir:
        os.chmod(warm_dir, 0o700)
        timed(suite_cmd, CJUDGE_WARM_DIR=warm_dir)  # starts the warm judge
        for _ in range(args.repeat):
            wall, out = timed(suite_cmd, CJUDGE_WARM="0")
            result = json.loads(out)
            assert result["verdict"] == "accepted", result["message"]
            colds.append(wall)
            wall, out = timed(suite_cmd, CJUDGE_WARM_DIR=warm_dir)
            assert json.loads(out)["verdict"] == "accepted"
            warms.append(wall)
            per_case.append([c["wall_ms"] / 1000 for c in result["cases"]])
            runs.append(timed(torchrun_cmd)[0])
        subprocess.run([py, "practice/judge.py", "warm", "stop"], cwd=ROOT, capture_output=True,
                       env={**os.environ, "CJUDGE_WARM_DIR": warm_dir}, check=True)
    cases = per_case[-1]
    cold, warm, torchrun, imp = (statistics.median(v) for v in (colds, warms, runs, import_s))
    after_import = (cold - imp) / len(cases)
    print(f"cases in the suite:               {len(cases)} (world sizes "
          f"{sorted({c['world_size'] for c in result['cases']})})")
    print(f"python -c 'import torch':          {imp:.2f} s (median of {args.repeat})")
    print(f"whole suite, cold (imports torch): {cold:.2f} s (median; runs {_list(colds)})")
    print(f"whole suite, warm judge:           {warm:.2f} s (median; runs {_list(warms)})")
    print(f"torchrun --nproc-per-node 4:       {torchrun:.2f} s (median; runs {_list(runs)})")
    print(f"suite / torchrun:                  warm {warm / torchrun:.2f}, cold "
          f"{cold / torchrun:.2f}")
    print(f"per case after the import:         {after_import:.3f} s (cold suite minus import, "
          f"/ cases)")
    print(f"per case, runtime's own wall time: max {max(cases):.3f} s, mean {statistics.mean(cases):.3f} s")
    ok = warm <= 0.3 * torchrun and after_import <= 0.4
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
