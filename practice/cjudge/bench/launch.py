"""Starting the ranks: our own processes on this machine, or the ones torchrun started.

Own ranks: this process hosts the store (as torchrun's agent does) and forks the ranks, which
then import nothing again (gloo); for NCCL they are spawned fresh, as CUDA does not survive a
fork. Under torchrun (``RANK`` and ``WORLD_SIZE`` set) every process is a rank, and rank 0
also watches in a thread. Either way the watcher reports what :func:`monitor.watch` saw.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import timedelta

import torch.distributed as dist

from .channel import Channel, run_id
from .config import BenchConfig, plan
from .monitor import Display, Outcome, watch
from .rank import rank_main

Finish = Callable[[Outcome], int]
MakeDisplay = Callable[[int], Display]
#: how long finished ranks get to leave before they are killed
EXIT_GRACE_S = 30.0


def under_torchrun() -> bool:
    """True when this process is one rank of a launcher's job (torchrun's environment)."""
    return "RANK" in os.environ and "WORLD_SIZE" in os.environ


def _rank_process(cfg: BenchConfig, env: dict[str, str]) -> None:
    os.environ.update(env)
    sys.exit(rank_main(cfg))


def _stop(procs: Sequence[mp.process.BaseProcess], graceful: bool) -> None:
    """Let the ranks leave after a clean run; kill them after a failure or a hang."""
    for proc in procs:
        if graceful:
            proc.join(EXIT_GRACE_S)
        if proc.is_alive():
            proc.kill()
    for proc in procs:
        proc.join()


def launch_local(cfg: BenchConfig, nproc: int, make_display: MakeDisplay) -> Outcome:
    """Run ``nproc`` ranks on this machine and watch them until the end.

    The display starts after the fork: no thread of ours may hold a lock the ranks inherit.
    """
    store = dist.TCPStore("127.0.0.1", 0, None, True, timeout=timedelta(seconds=60),
                          wait_for_workers=False)
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(store.port), "WORLD_SIZE": str(nproc),
           "LOCAL_WORLD_SIZE": str(nproc), "GROUP_RANK": "0", "TORCHELASTIC_USE_AGENT_STORE": "True"}
    context = mp.get_context("spawn") if cfg.backend == "nccl" else mp.get_context("fork")
    procs = [context.Process(target=_rank_process, name=f"bench-rank{rank}",
                             args=(cfg, {**env, "RANK": str(rank), "LOCAL_RANK": str(rank)}))
             for rank in range(nproc)]
    sys.stdout.flush()
    sys.stderr.flush()
    for proc in procs:
        proc.start()
    steps = plan(cfg, nproc)
    display = make_display(len(steps))
    try:
        outcome = watch(Channel(store, run_id()), steps, nproc, cfg.timeout_s, display,
                        lambda: {rank: proc.exitcode for rank, proc in enumerate(procs)})
    except BaseException:
        _stop(procs, graceful=False)
        raise
    finally:
        display.close()
    _stop(procs, graceful=outcome.status == "ok")
    return outcome


def run_under_torchrun(cfg: BenchConfig, make_display: MakeDisplay, finish: Finish) -> int:
    """Be one rank of torchrun's job; rank 0 also watches and, at the end, reports."""
    if int(os.environ["RANK"]) != 0:
        return rank_main(cfg)
    world = int(os.environ["WORLD_SIZE"])
    outcomes: list[Outcome] = []

    def watcher() -> None:
        channel = Channel.connect(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
        steps = plan(cfg, world)
        display = make_display(len(steps))
        outcome = watch(channel, steps, world, cfg.timeout_s, display)
        display.close()
        if outcome.status != "ok":  # this rank's main thread may be stuck in a collective
            code = finish(outcome)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        outcomes.append(outcome)

    thread = threading.Thread(target=watcher, name="bench-watcher", daemon=True)
    thread.start()
    rank_main(cfg)
    thread.join()
    return finish(outcomes[0])


def run(cfg: BenchConfig, nproc: int, make_display: MakeDisplay, finish: Finish) -> int:
    """Run the benchmark however this process was started; the exit status."""
    if under_torchrun():
        return run_under_torchrun(cfg, make_display, finish)
    return finish(launch_local(cfg, nproc, make_display))


def world_size(nproc: int) -> int:
    """The world size this run will have."""
    return int(os.environ["WORLD_SIZE"]) if under_torchrun() else nproc
