"""``doctor``: what this machine can run (local judging, torchrun, GPUs/NCCL, sandbox, browser)."""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import time

from rich.console import Console
from rich.table import Table

from ..exercise.exercises import Exercise
from ..real.confine import confinement_gaps
from .exits import OK, REJECTED


def _torch_rows() -> list[tuple[str, bool, str]]:
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        return [("torch", False, "not installed: pip install torch==2.13.0 (CPU build)")]
    rows = [("torch", True, f"{torch.__version__} ({torch.__file__.rsplit('/', 2)[0]})"),
            ("gloo backend", dist.is_gloo_available(), "CPU ranks for test/check/bench")]
    cuda = torch.cuda.is_available()
    gpus = torch.cuda.device_count() if cuda else 0
    nccl = dist.is_nccl_available() and cuda
    rows.append(("CUDA GPUs", cuda, f"{gpus} device(s)" if cuda else "none: bench runs on gloo"))
    nccl_version = ".".join(map(str, torch.cuda.nccl.version())) if nccl else "-"
    rows.append(("NCCL", nccl, f"version {nccl_version}" if nccl else "not usable here"))
    return rows


def _smoke(exercises: dict[str, Exercise]) -> tuple[str, bool, str]:
    from ..grading.submission import judge_code
    from ..real.runtime import run_case

    ex = next(iter(exercises.values()))
    start = time.monotonic()
    result = judge_code(ex, ex.solution, "solution.py", run_case, "torch", only_samples=True)
    ok = result["verdict"] == "accepted"
    return (f"{ex.id} sample on real ranks", ok,
            f"{result['verdict']} in {time.monotonic() - start:.2f} s")


def doctor(console: Console, exercises: dict[str, Exercise], as_json: bool = False) -> int:
    """Print what works here (as JSON with ``as_json``); exit 0 when local judging works."""
    rows = [("python", True, platform.python_version()), ("CPU cores", True, str(os.cpu_count()))]
    rows += _torch_rows()
    if rows[2][1]:
        rows.append(_smoke(exercises))
    rows.append(("/dev/shm", os.access("/dev/shm", os.W_OK), "fast job files"))
    gaps = confinement_gaps()
    rows.append(("rank confinement", not gaps, "; ".join(gaps) or
                 "Landlock + seccomp: ranks reach each other only through the judged group"))
    for tool, use in (("torchrun", "--launcher torchrun, multi-node bench"),
                      ("bwrap", "the server's sandbox (apt-get install bubblewrap)"),
                      ("chromium", "browser tests (apt-get install chromium)"),
                      ("node", "building the web app"), ("docker", "docker-compose deployment")):
        path = shutil.which(tool)
        rows.append((tool, path is not None, f"{path or 'missing'}: {use}"))
    local_ok = all(ok for what, ok, _ in rows if what == "torch" or "sample" in what)
    if as_json:
        checks = [{"what": what, "ok": ok, "details": details} for what, ok, details in rows]
        sys.stdout.write(json.dumps({"local_judging": local_ok, "checks": checks}, indent=1) + "\n")
    elif console.is_terminal:
        table = Table(title="judge doctor")
        for col in ("what", "ok", "details"):
            table.add_column(col)
        for what, ok, details in rows:
            table.add_row(what, "[green]yes[/]" if ok else "[yellow]no[/]", details)
        console.print(table)
    else:
        for what, ok, details in rows:
            console.print(f"{what}: {'yes' if ok else 'no'}: {details}", markup=False,
                          highlight=False)
    return OK if local_ok else REJECTED
