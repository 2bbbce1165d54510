"""Run a learner's graded function for one case on real torch + gloo (a test helper, not the judge).

The calling process (torch imported once) forks ``world_size`` ranks into a process group of
their own. Each joins a gloo group (``env://`` on 127.0.0.1, a free port per case), imports the
learner's file as a module (its own ``init_process_group``/``destroy_process_group`` made
harmless), calls the function with its input and sends its output, or its exception's type and
message, back through a pipe. A rank that is done stays alive until every rank is (one that exits
closes its gloo sockets, and its peers then crash instead of hanging). A rank that has not
finished is classified by its CPU use: ~0 over a window (no thread runnable) is *blocked*,
anything else *spinning*. Every rank is killed at the end, always. The judge's symmetric memory
is real shared memory here (mapped before the fork), its barrier gloo's.
"""

from __future__ import annotations

import contextlib
import datetime
import mmap
import os
import pickle
import select
import signal
import socket
import struct
import sys
import tempfile
import time
import traceback
import types
from dataclasses import dataclass, field
from typing import IO, Any, Literal

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from cjudge.contract import values
from cjudge.contract.protocol import CaseSpec, JobSpec, TensorData
from cjudge.rank.learner import graded_call
from cjudge.real.group_lifecycle import group_owned_by_judge
from cjudge.real.process_flags import die_with
from cjudge.switch import functions
from cjudge.switch.local import LocalFunctions
from cjudge.switch.reduce import DTYPES as SWITCH_DTYPES

State = Literal["returned", "failed", "blocked", "spinning"]
Outcome = Literal["returned", "error", "deadlock", "spinning"]

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64}
STARTUP_S = 20.0  # forking and joining the gloo group (slow on a loaded machine)
STARTS = 3  # tries at forming the group
QUIET_S = 0.5  # no rank reported for this long: look whether every unfinished rank is idle
WINDOW_S = 0.5  # the window over which a rank's CPU use is measured
SAMPLES = 10  # how often within the window a rank's threads are looked at (runnable or not)
TIMEOUT_S = 3.0  # after every rank joined: classify the ranks still running and stop
IDLE_CPU_S = 0.01  # at most this much CPU in a window (gloo's idle threads use ~1 ms) is idle
#: windows, one after another, a rank must be busy in to be spinning: on a loaded machine a rank
#: busy in one window may only be late on its way to the wait it blocks in
SETTLE = 3
GLOO_TIMEOUT = datetime.timedelta(seconds=300)  # gloo's own timeout never fires before ours


@dataclass
class GlooRank:
    """How one rank ended. ``error``: the exception's type and message, or for a process that
    died (gloo aborts on some errors) the signal and its last words on stderr."""

    rank: int
    state: State
    output: TensorData | None = None
    error: tuple[str, str] | None = None


@dataclass
class GlooCase:
    """What one case did on gloo; ``undefined``: the calls whose outcome gloo leaves undefined
    (a point-to-point call naming a rank outside the group: gloo then segfaults, or hangs)."""

    ranks: list[GlooRank] = field(default_factory=list)
    undefined: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> Outcome:
        """A rank's error first; else every rank returned, or some spun, or all left blocked."""
        states = {r.state for r in self.ranks}
        if "failed" in states:
            return "error"
        if "spinning" in states:
            return "spinning"
        return "deadlock" if "blocked" in states else "returned"


def free_port() -> int:
    """A loopback TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def to_data(value: Any) -> TensorData | None:
    """A tensor as plain data (shape, dtype name, flat values); None if not a tensor."""
    if not isinstance(value, torch.Tensor):
        return None
    flat = value.detach().contiguous().reshape(-1)
    return TensorData(shape=list(value.shape), dtype=str(value.dtype).removeprefix("torch."),
                      data=flat.tolist())


def _send(fd: int, message: tuple) -> None:
    data = pickle.dumps(message)
    data = struct.pack("<I", len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def _note_undefined_peers(fd: int, world: int) -> None:
    """Tell the parent of each point-to-point call (on the default group) that names a peer
    outside the group, before gloo runs it (it indexes its peers unchecked)."""
    for name, peer_arg in (("send", "dst"), ("isend", "dst"), ("recv", "src"), ("irecv", "src")):
        call = getattr(dist, name)

        def noted(*args: Any, _call: Any = call, _name: str = name, _peer_arg: str = peer_arg,
                  **kwargs: Any) -> Any:
            peer = args[1] if len(args) > 1 else kwargs.get(_peer_arg)
            outside = isinstance(peer, int) and not 0 <= peer < world
            if outside and (args[2] if len(args) > 2 else kwargs.get("group")) is None:
                _send(fd, ("undefined", time.monotonic(),
                           f"{_name} names rank {peer}, outside the group of {world}"))
            return _call(*args, **kwargs)

        for module in (dist, c10d):  # c10d's own: P2POp accepts only the isend/irecv it knows
            setattr(module, name, noted)


def _tensor(data: TensorData) -> torch.Tensor:
    return torch.tensor(data["data"], dtype=DTYPES[data["dtype"]]).reshape(data["shape"])


def _shared_memory(case: CaseSpec) -> mmap.mmap | None:
    """Every rank's symmetric buffer, zeros shared by the ranks forked after it (None when the
    case hands none)."""
    mine = case["inputs"][0]
    params = [v["params"] for v in mine.get("call", []) if isinstance(v, dict)
              and v.get("fn") == functions.MEMORY] if isinstance(mine, dict) else []
    if not params:
        return None
    size = SWITCH_DTYPES[params[0].get("dtype", "float32")][1]
    return mmap.mmap(-1, max(1, case["world_size"] * int(params[0]["numel"]) * size))


def _rank_body(job: JobSpec, mine: TensorData, rank: int, world: int, port: int, fd: int,
               shared: mmap.mmap | None) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      LOCAL_RANK=str(rank), WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(world),
                      OMP_NUM_THREADS="1")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=GLOO_TIMEOUT)
    _note_undefined_peers(fd, world)
    _send(fd, ("joined", time.monotonic()))
    try:
        with group_owned_by_judge():
            module = types.ModuleType(f"learner_rank{rank}")
            module.__file__ = job["filename"]
            sys.modules[module.__name__] = module
            exec(compile(job["code"], job["filename"], "exec"), module.__dict__)  # noqa: S102
            mine, table = functions.split(mine)
            port = LocalFunctions(table, rank, world, shared, dist.barrier)
            output = graded_call(module.__dict__, job["function"], job["output"], mine, _tensor,
                                 to_data, port, job["filename"])
        message: tuple = ("returned", time.monotonic(), values.encode(output, to_data))
    except BaseException as exc:  # noqa: BLE001 - the learner's error (even SystemExit) is the result
        message = ("failed", time.monotonic(), type(exc).__name__, str(exc))
    _send(fd, message)


def _rank_main(job: JobSpec, mine: TensorData, rank: int, world: int, port: int, fd: int,
               err: int, parent: int, shared: mmap.mmap | None) -> None:
    """A forked rank: run, report, then stay alive until killed (stderr to ``err``)."""
    try:
        die_with(parent)
        os.dup2(err, 2)
        os.dup2(fd, 3)
        os.closerange(4, 1 << 16)
        devnull = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1):
            os.dup2(devnull, std)
        try:
            _rank_body(job, mine, rank, world, port, 3, shared)
        except BaseException:  # noqa: BLE001 - e.g. gloo failing to join: the parent sees it
            _send(3, ("failed", time.monotonic(), "HelperError", traceback.format_exc()))
        while True:
            signal.pause()
    finally:
        os._exit(70)


def _cpu_s(pid: int) -> tuple[float, bool]:
    """(CPU seconds used by every thread of ``pid``, whether a thread is runnable now)."""
    total, runnable = 0, False
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                runnable |= f.read().rpartition(")")[2].split()[0] == "R"
    except (FileNotFoundError, ProcessLookupError):
        pass
    return total / 1e9, runnable


def _busy(pids: dict[int, int]) -> dict[int, bool]:
    """For each rank (rank -> pid): whether it used CPU within :data:`WINDOW_S`, or was
    runnable in all but one of the samples taken meanwhile (a spinning rank starved of a core by
    a loaded machine uses little CPU, yet is not blocked; a blocked one's gloo threads are
    runnable now and then)."""
    before = {r: _cpu_s(p)[0] for r, p in pids.items()}
    runnable = dict.fromkeys(pids, 0)
    for _ in range(SAMPLES):
        time.sleep(WINDOW_S / SAMPLES)
        for r, p in pids.items():
            runnable[r] += _cpu_s(p)[1]
    return {r: _cpu_s(p)[0] - before[r] > IDLE_CPU_S or runnable[r] >= SAMPLES - 1
            for r, p in pids.items()}


class GlooRun:
    """The forked ranks of one case: they start running when this is made (so the caller may do
    something else meanwhile); :meth:`result` waits for what they did; :meth:`kill` (or leaving
    the ``with`` block) kills them, always."""

    def __init__(self, job: JobSpec, case: CaseSpec, timeout_s: float = TIMEOUT_S) -> None:
        self.job, self.case, self.timeout_s = job, case, timeout_s
        self.world = case["world_size"]
        self.pids: list[int] = []
        self.fds: dict[int, int] = {}  # read end -> rank
        self.stderr: list[IO[bytes]] = []
        self._start()

    def _start(self) -> None:
        """Fork the ranks, on a fresh port."""
        port, parent = free_port(), os.getpid()
        self.buffers = {r: b"" for r in range(self.world)}
        self.joined: set[int] = set()
        self.results: dict[int, GlooRank] = {}
        self.undefined: list[str] = []
        self.joined_at = self.last = 0.0  # when the last rank joined; the last result's time
        self.stderr = [tempfile.TemporaryFile() for _ in range(self.world)]
        shared = _shared_memory(self.case)
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            for rank in range(self.world):
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:
                    try:
                        os.setpgid(0, self.pids[0] if self.pids else 0)
                        _rank_main(self.job, self.case["inputs"][rank], rank, self.world, port,
                                   write, self.stderr[rank].fileno(), parent, shared)
                    finally:
                        os._exit(70)
                os.close(write)
                self.fds[read] = rank
                self.pids.append(pid)
                with contextlib.suppress(ProcessLookupError, PermissionError):  # it may be gone
                    os.setpgid(pid, self.pids[0])
        except BaseException:
            self.kill()
            raise

    def __enter__(self) -> GlooRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    def result(self) -> GlooCase:
        """Wait until every rank returned or raised, or those left are blocked or spinning."""
        for attempt in range(STARTS):
            if self._joined():
                break
            self.kill()  # the group never formed (a port taken meanwhile, say): a fresh start
            if attempt == STARTS - 1:
                raise RuntimeError(f"gloo ranks did not join, {STARTS} times")
            self._start()
        self.last = max(self.last, self.joined_at)
        while len(self.results) < self.world:
            if self._read(0.02):
                continue
            now, left = time.monotonic(), self._unfinished()
            if now - self.joined_at > self.timeout_s:
                busy = _busy(left)
                for _ in range(SETTLE - 1):
                    still = {r: p for r, p in left.items() if busy[r]}
                    if not still:
                        break
                    busy.update(_busy(still))
                for rank in left:
                    self.results[rank] = GlooRank(rank, "spinning" if busy[rank] else "blocked")
            elif now - self.last > QUIET_S and not any(_busy(dict(enumerate(self.pids))).values()):
                if self._read(0):
                    continue
                for rank in left:  # nothing can wake them: every rank is idle, nothing arrived
                    self.results[rank] = GlooRank(rank, "blocked")
        return GlooCase([self.results[r] for r in range(self.world)], self.undefined)

    def _joined(self) -> bool:
        """Whether every rank joined the group within :data:`STARTUP_S`, none failing first."""
        start = time.monotonic()
        while len(self.joined) < self.world:
            self._read(0.05)
            if set(self.results) - self.joined or time.monotonic() - start > STARTUP_S:
                return False
        return True

    def kill(self) -> None:
        """Kill every rank (each, and their process group) and reap them."""
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.pids:
            try:
                os.killpg(self.pids[0], signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in self.pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:  # reaped already
                pass
        for fd in self.fds:
            os.close(fd)
        for file in self.stderr:
            file.close()
        self.pids, self.fds, self.stderr = [], {}, []

    def _read(self, timeout: float) -> bool:
        """Take in what the ranks said within ``timeout``; whether anything arrived."""
        ready, _, _ = select.select(list(self.fds), [], [], timeout)
        for fd in ready:
            rank = self.fds[fd]
            chunk = os.read(fd, 1 << 20)
            if not chunk:  # the process ended without a word (gloo aborts on some errors)
                del self.fds[fd]
                os.close(fd)
                self.last = time.monotonic()
                self.results.setdefault(rank, GlooRank(rank, "failed", error=self._died(rank)))
                continue
            self.buffers[rank] += chunk
            while len(self.buffers[rank]) >= 4:
                (size,) = struct.unpack("<I", self.buffers[rank][:4])
                if len(self.buffers[rank]) < 4 + size:
                    break
                message = pickle.loads(self.buffers[rank][4:4 + size])
                self.buffers[rank] = self.buffers[rank][4 + size:]
                self._take(rank, message)
        return bool(ready)

    def _take(self, rank: int, message: tuple) -> None:
        kind, at, *rest = message
        if kind == "joined":
            self.joined.add(rank)
            self.joined_at = max(self.joined_at, at)
            return
        if kind == "undefined":
            self.undefined.append(f"rank {rank}: {rest[0]}")
            return
        self.last = max(self.last, at)
        if kind == "returned":
            self.results[rank] = GlooRank(rank, "returned", output=rest[0])
        else:
            self.results[rank] = GlooRank(rank, "failed", error=(rest[0], rest[1]))

    def _died(self, rank: int) -> tuple[str, str]:
        """(signal or exit, what the process said last: a C++ exception's ``what()``)."""
        _, status = os.waitpid(self.pids[rank], 0)
        how = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) \
            else f"exit {os.WEXITSTATUS(status)}"
        self.stderr[rank].seek(0)
        lines = self.stderr[rank].read().decode(errors="replace").splitlines()
        said = [line.split("what():", 1)[1].strip() for line in lines if "what():" in line]
        return how, (said or [line for line in lines if line.strip()] or [""])[-1]

    def _unfinished(self) -> dict[int, int]:
        """rank -> pid of the ranks with no result yet."""
        return {r: p for r, p in enumerate(self.pids) if r not in self.results}


def run_gloo(job: JobSpec, case: CaseSpec, timeout_s: float = TIMEOUT_S) -> GlooCase:
    """Run ``job``'s function for ``case`` on gloo ranks; how each rank ended."""
    with GlooRun(job, case, timeout_s) as run:
        return run.result()
