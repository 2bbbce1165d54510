"""One simulated rank's life: load the learner's module, call the graded function, report.

Shared by the CPython runtime (a thread per rank) and the browser (a suspended stack or a worker
per rank): they differ only in the port to the switch and in who watches the ranks.
"""

from __future__ import annotations

import contextvars
import sys
import types

from ..learner import MODULE_PREFIX, classify_error, exec_learner
from ..protocol import JobSpec, RankReport
from ..switch.port import Port
from . import comm, rng
from .capture import Capture, OutputLimitExceeded, capture_here
from .context import RankContext, enter
from .factories import from_data, to_data
from .modules import modules
from .tensor import Tensor


def install_modules() -> None:
    """Make ``import torch`` and ``import torch.distributed`` give the simulation."""
    sys.modules.update(modules())


def _body(job: JobSpec, rank: int, port: Port, code: types.CodeType,
          capture: Capture) -> RankReport:
    ctx = RankContext(rank, port.world, port, job["filename"], frozenset(job["allowed"]))
    enter(ctx)
    rng.set_default_generator(rng.Generator())
    capture_here(capture, rank)
    try:
        namespace = exec_learner(code, f"{MODULE_PREFIX}{rank}")
        function = namespace.get(job["function"])
        if not callable(function):
            raise NameError(f"your file must define a function `{job['function']}` "
                            f"(你的文件需要定义函数 `{job['function']}`)")
        mine = comm.posted(port.begin)
        if mine is None:
            raise RuntimeError("the judge sent no input for this rank")
        argument = from_data(mine)
        try:
            returned = function(argument, *mine.get("args", ()))
        finally:
            port.end()
        output = argument if job["output"] == "inplace" else returned
        report = RankReport(rank=rank, state="returned",
                            output=to_data(output) if isinstance(output, Tensor) else None,
                            error=None)
    except OutputLimitExceeded:
        return RankReport(rank=rank, state="killed", output=None, error=None)
    except (Exception, SystemExit) as exc:
        report = RankReport(rank=rank, state="failed", output=None,
                            error=classify_error(exc, job["filename"]))
    return report


def run_rank(job: JobSpec, rank: int, port: Port, code: types.CodeType,
             capture: Capture) -> RankReport:
    """Run one rank to its end and report how it ended.

    Call it with the simulated modules installed (:func:`install_modules`); ``code`` is the
    learner's file compiled with ``learner.compile_learner``. The rank runs in a fresh
    ``contextvars.Context`` of its own, so ranks interleaved in one thread (JSPI) stay apart.
    The switch records every call; printed output goes to ``capture`` (install a
    ``capture.Router`` as ``sys.stdout``). Exceptions other than the learner's (``Exception``,
    ``SystemExit``) propagate: a port may abort a blocked rank that way. A rank that prints
    past the limit is reported ``killed``; the caller stops the case (``capture.exceeded``).
    """
    return contextvars.Context().run(_body, job, rank, port, code, capture)
