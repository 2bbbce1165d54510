"""One graded function run on the judge's switch and on gloo, for benchmarks that print the two
side by side (``switch_roundtrip.py``, ``ring_wall.py``).

The function returns a tensor of what it measured; rank 0's is the answer. On the switch it runs
as a learner's file does (real ranks forked by the judge's zygote, every call a request to the
switch); on gloo, ``world`` processes forked from this one join a gloo group on loopback.
"""

from __future__ import annotations

import os
import pickle
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "practice"))

from cjudge.real.zygote import start_zygote  # noqa: E402

start_zygote()  # before any job is known, as the CLI and the runner do

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

from cjudge.contract.protocol import CaseSpec, JobSpec  # noqa: E402
from cjudge.real.runtime import run_case  # noqa: E402

ALLOWED = ["send", "recv", "isend", "irecv", "batch_isend_irecv", "barrier"]


def on_switch(code: str, function: str, world: int, numel: int) -> list[float]:
    """Rank 0's returned numbers, the function run on the switch with ``numel`` zeros a rank."""
    job = JobSpec(function=function, output="return", allowed=ALLOWED, code=code,
                  filename="bench.py", time_limit_s=600.0, output_limit_bytes=1 << 16)
    data = {"shape": [numel], "dtype": "float32", "data": [0.0] * numel}
    raw = run_case(job, CaseSpec(name="bench", world_size=world, sample=False, params={},
                                 inputs=[data] * world))
    report = raw["ranks"][0]
    if report["output"] is None:
        sys.exit(f"on the switch: {report['error'] or raw['stop']}")
    return list(report["output"]["data"])


def on_gloo(code: str, function: str, world: int, numel: int) -> list[float]:
    """Rank 0's returned numbers, the function run on a gloo group of ``world`` processes."""
    store = Path(tempfile.mkdtemp()) / "store"
    read, write = os.pipe()
    pids = []
    for rank in range(world):
        pid = os.fork()
        if pid == 0:
            try:
                torch.set_num_threads(1)
                dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank,
                                        world_size=world)
                namespace: dict[str, object] = {}
                exec(compile(code, "bench.py", "exec"), namespace)  # noqa: S102 - our own code
                out = namespace[function](torch.zeros(numel))  # type: ignore[operator]
                if rank == 0:
                    os.write(write, pickle.dumps(out.tolist()))
                dist.barrier()
            finally:
                os._exit(0)
        pids.append(pid)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        data = answer.read()
    for pid in pids:
        os.waitpid(pid, 0)
    return pickle.loads(data)  # noqa: S301 - written by our own child
