"""One case in the browser: its :class:`~cjudge.switch.core.Switch`, in the judge's interpreter.

Whichever way the ranks run (suspended stacks in this Pyodide, or a worker each), every request
of theirs is a call on this one switch, and the case ends by the rule every runtime applies,
``cjudge.switch.ending.ended``: every rank finished, or the ranks printed too much, flooded the
switch, are deadlocked (not a deadlock when a rank failed: its peers hang because of it) or ran
past the time limit. At that moment the outcome is fixed; ranks still blocked are then woken
with :class:`Aborted` and unwind.

Under JSPI a rank runs here (:meth:`BrowserCase.run_rank`): its posts call the switch directly
and its ``wait`` suspends it (``run_sync``) on the JavaScript scheduler's promise, which the
scheduler (``web/src/runner/coordinator.js``) resolves once the switch has put it on ``woken``.
"""

from __future__ import annotations

import json
import sys
import time
import types
from collections.abc import Sequence
from inspect import isawaitable
from typing import Any

from pyodide.ffi import run_sync, to_js

from cjudge.contract.protocol import CaseSpec, JobSpec, RankReport, RawCase, Stop, TensorData
from cjudge.rank.learner import compile_learner, learner_error
from cjudge.sim.capture import Capture, Router
from cjudge.sim.rank import install_modules, run_rank
from cjudge.switch.core import Switch
from cjudge.switch.ending import ended, start_clock

assert sys.__stdout__ is not None  # Pyodide's stdout, where no rank is running
sys.stdout = sys.stderr = Router(sys.__stdout__)

#: what the scheduler resolves a blocked rank's promise with
RESUME, ABORT = 1, 0


def settled(answer: Any) -> Any:
    """A JavaScript answer as a value: under JSPI a promise suspends this stack until it settles."""
    return run_sync(answer) if isawaitable(answer) else answer


_compiled: dict[tuple[str, str], types.CodeType] = {}


def compiled(code: str, filename: str) -> types.CodeType:
    """The learner's file compiled (``compile_learner``), once for every case of a run: the
    latest file only is kept, and since every compile here goes through this, ``linecache``
    still holds that file's lines for its tracebacks."""
    key = (code, filename)
    if key not in _compiled:
        _compiled.clear()
        _compiled[key] = compile_learner(code, filename)
    return _compiled[key]


class Aborted(BaseException):
    """The case is over while this rank still runs: unwind, communicate no more."""


class BrowserCase:
    """The switch of one case, the reports of its ranks, and when the case is over."""

    def __init__(self, job: JobSpec, spec: CaseSpec) -> None:
        self.job, self.spec = job, spec
        self.world = spec["world_size"]
        self.switch = Switch.for_case(job, spec)
        self.capture = Capture(self.world, job["output_limit_bytes"])
        self.reports: list[RankReport | None] = [None] * self.world
        self.raw: RawCase | None = None
        self.started = time.monotonic()
        self.deadline = start_clock(self.switch, job, self.started)
        self.code: types.CodeType | None = None
        try:
            self.code = compiled(job["code"], job["filename"])
        except (SyntaxError, ValueError) as exc:  # as runtime_sim: every rank fails, none runs
            error = learner_error(exc, job["filename"])
            self.reports = [RankReport(rank=r, state="failed", output=None, error=error)
                            for r in range(self.world)]
            self._close(None)

    @property
    def limit_s(self) -> float:
        """The time limit the ranks run under (the page's watchdog waits past it)."""
        assert self.switch.limit_s is not None  # set with the clock, in __init__
        return self.switch.limit_s

    @property
    def over(self) -> bool:
        """Whether the outcome is fixed (the ranks may still be unwinding)."""
        return self.raw is not None

    def start(self) -> None:
        """The ranks start now: the time limit counts from here. They share one fresh simulated
        torch, as the simulated runtime's threads of one case do (a rank's calls find their rank
        by its context)."""
        install_modules()
        self.started = time.monotonic()
        self.deadline = start_clock(self.switch, self.job, self.started)

    def finish(self, rank: int, report: RankReport) -> None:
        """Rank ``rank`` ended with ``report`` (ignored once the case is over)."""
        if self.over:
            return
        self.reports[rank] = report
        self.switch.finish(rank, report["state"])

    def take_woken(self) -> Any:
        """The ranks whose waited request completed since the last call (a JavaScript array)."""
        woken = list(self.switch.woken)
        self.switch.woken.clear()
        return to_js(woken)

    def check(self) -> bool:
        """Whether the case is over; the first time it is, its outcome is fixed."""
        if self.over:
            return True
        end = ended(self.switch, time.monotonic(), self.capture.exceeded)
        if end is None:
            return False
        self._close(end.stop)
        return True

    def result(self) -> RawCase:
        """The case's :class:`RawCase` (call it once every rank has finished or unwound)."""
        if not self.check():
            raise RuntimeError("the ranks are done but the case is not over")
        assert self.raw is not None
        return self.raw

    def _close(self, stop: Stop | None) -> None:
        switch = self.switch
        if stop == "deadlock":
            switch.mark_deadlock()
        ranks = switch.reports(self.reports, stop)
        trace = json.loads(json.dumps(switch.trace()))  # unwinding ranks must not change it
        self.raw = RawCase(name=self.spec["name"], ranks=ranks, trace=trace,
                           stdout=self.capture.merged(), stop=stop,
                           wall_ms=(time.monotonic() - self.started) * 1000)

    # ---- JSPI: ranks as suspended stacks of this interpreter -----------------------------

    def run_rank(self, rank: int, scheduler: Any) -> None:
        """Run ``rank`` here to its end (call it with ``callPromising``)."""
        if self.code is None:  # it did not compile: every rank's report is in, none runs
            return
        port = StackPort(self, rank, scheduler)
        try:
            report = run_rank(self.job, rank, port, self.code, self.capture)
        except Aborted as exc:
            if self.over:
                return
            report = RankReport(rank=rank, state="failed", output=None,  # raised by the learner
                                error=learner_error(exc, self.job["filename"]))
        except BaseException as exc:  # noqa: BLE001 - a learner's own BaseException subclass
            report = RankReport(rank=rank, state="failed", output=None,
                                error=learner_error(exc, self.job["filename"]))
        self.finish(rank, report)


class StackPort:
    """A rank's door to the switch of its case, the rank a suspended stack (``port.Port``)."""

    def __init__(self, case: BrowserCase, rank: int, scheduler: Any) -> None:
        self.case, self.switch, self.scheduler = case, case.switch, scheduler
        self.rank, self.world = rank, case.world

    def _open(self) -> Switch:
        if self.case.over:
            raise Aborted()
        return self.switch

    def new_group(self, ranks: Sequence[int]) -> int:
        return self._open().new_group(self.rank, ranks)

    def post_send(self, group: int, dst: int, tag: int, payload: bytes, dtype: str,
                  line: int | None, api: str) -> int:
        return self._open().post_send(self.rank, group, dst, tag, payload, dtype, line, api)

    def post_recv(self, group: int, src: int | None, tag: int, capacity: int, dtype: str,
                  line: int | None, api: str) -> int:
        return self._open().post_recv(self.rank, group, src, tag, capacity, dtype, line, api)

    def post_collective(self, group: int, kind: str, payload: bytes, dtype: str, *,
                        line: int | None, api: str, op: str | None = None,
                        root: int | None = None, splits: list[int] | None = None) -> int:
        return self._open().post_collective(self.rank, group, kind, payload, dtype, line=line,
                                            api=api, op=op, root=root, splits=splits)

    def test(self, handle: int) -> bool:
        """Whether the request is done; first a turn for the others (a rank may poll in a loop)."""
        self._open()
        if settled(self.scheduler.pause()) == ABORT:
            raise Aborted()
        return self._open().test(self.rank, handle)

    def wait(self, handle: int, line: int | None = None) -> tuple[int | None, bytes]:
        """Suspend this stack until the switch completes the request (waited at ``line``)."""
        if not self._open().wait(self.rank, handle, line) and \
                settled(self.scheduler.block(self.rank)) == ABORT:
            raise Aborted()
        return self.switch.result(self.rank, handle)

    def compute(self, handle: int, payload: bytes, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        return self._open().compute(self.rank, handle, payload, dtype, shape, args, line)

    def begin(self) -> TensorData | None:
        return self._open().begin(self.rank)

    def end(self) -> None:
        self._open().end(self.rank)
