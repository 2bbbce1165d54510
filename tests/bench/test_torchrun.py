"""Under torchrun every process is a rank and rank 0 reports, as with bench's own ranks."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_bench_under_torchrun(tmp_path: Path) -> None:
    json_path = tmp_path / "bench.json"
    env = {**os.environ, "PYTHONPATH": str(REPO / "practice")}
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "-m",
         "cjudge.bench", "ring-allreduce", "-b", "1K", "-e", "1K", "-n", "2", "--backend", "gloo",
         "-J", str(json_path), "--no-chart"],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads(json_path.read_text())
    assert doc["status"] == "ok" and doc["launcher"] == "torchrun"
    assert doc["environment"]["world_size"] == 2 and doc["wrong_total"] == 0
    assert done.stdout.count("# Avg bus bandwidth") == 2  # printed once, by rank 0
