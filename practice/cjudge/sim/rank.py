"""One simulated rank's life: load the learner's module, call the graded function, report.

Shared by the CPython runtime (a thread per rank) and the browser (a suspended stack or a worker
per rank): they differ only in the port to the switch and in who watches the ranks.
"""

from __future__ import annotations

import contextvars
import sys
import types

from ..contract import values
from ..contract.protocol import JobSpec, RankReport, TensorData
from ..rank.learner import MODULE_PREFIX, classify_error, exec_learner, graded_call, learner_function
from ..switch.port import Port
from . import comm, rng
from .capture import Capture, OutputLimitExceeded, capture_here
from .context import RankContext, enter
from .factories import from_data, to_data
from .modules import modules
from .tensor import Tensor


def _data(value: object) -> TensorData | None:
    return to_data(value) if isinstance(value, Tensor) else None


def install_modules() -> None:
    """Make ``import torch`` and ``import torch.distributed`` give the simulation, and forget any
    real torch this process imported (its ``torch.nn`` … would otherwise stay importable)."""
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        del sys.modules[name]
    sys.modules.update(modules())


def _body(job: JobSpec, rank: int, port: Port, code: types.CodeType,
          capture: Capture) -> RankReport:
    ctx = RankContext(rank, port.world, port, job["filename"], frozenset(job["allowed"]))
    enter(ctx)
    rng.set_default_generator(rng.Generator())
    capture_here(capture, rank)
    try:
        namespace = exec_learner(code, f"{MODULE_PREFIX}{rank}")
        learner_function(namespace, job["function"])
        mine = comm.posted(port.begin)
        if mine is None:
            raise RuntimeError("the judge sent no input for this rank")
        try:
            output = graded_call(namespace, job["function"], job["output"], mine, from_data,
                                 _data, port, job["filename"])
        finally:
            port.end()
        report = RankReport(rank=rank, state="returned", output=values.encode(output, _data),
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
