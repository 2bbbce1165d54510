"""Loading a learner's file on a rank, and showing its errors in the learner's own terms.

Runtime-agnostic (no torch import): the real runtime, the simulation and ``bench`` use it.
"""

from __future__ import annotations

import linecache
import os
import signal
import sys
import traceback
import types
from collections.abc import Callable, Mapping
from typing import Any

from ..contract import values
from ..contract.primitives import DISPLAY
from ..contract.protocol import ErrorKind, RankError, bilingual
from . import judge_fns

#: the learner's functions are compiled under this name prefix so that tracebacks can be told apart
MODULE_PREFIX = "learner_rank"


class ForbiddenPrimitive(RuntimeError):
    """A communication call the exercise does not allow, raised at the call (either runtime)."""

    def __init__(self, op: str, allowed: frozenset[str] | list[str], api: str | None = None):
        self.op = op
        self.api = api or DISPLAY.get(op, op)
        names = ", ".join(DISPLAY.get(a, a) for a in sorted(allowed)) or "nothing"
        super().__init__(f"{self.api} is not allowed in this exercise; allowed here: {names}")


ForbiddenPrimitive.__module__ = "torch.distributed"  # how a learner's traceback names it


def classify_error(exc: BaseException, filename: str) -> RankError:
    """A rank's exception as a :class:`RankError`: forbidden call, out of memory, or other."""
    if isinstance(exc, ForbiddenPrimitive):
        error = learner_error(exc, filename, kind="forbidden")
        error["op"] = exc.op
        return error
    if isinstance(exc, MemoryError) or "can't allocate memory" in str(exc):
        return learner_error(exc, filename, kind="memory")
    return learner_error(exc, filename)


def exit_error(status: int, process: tuple[str, str], before: tuple[str, str]) -> RankError:
    """How the learner's code ended ``process`` (a wait status) without a report: a signal, or
    an exit. A SIGKILL is not taken for the out-of-memory killer: a sandbox that sees the OOM
    killer fire says so itself (``memory_limit``); the learner's own code can send one too."""
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        return RankError(kind="signal", type=name, message=f"killed by {name}", traceback="",
                         line=None, message_zh=f"被 {name} 终止")
    code = os.WEXITSTATUS(status)
    return RankError(kind="exception", type="SystemExit", traceback="", line=None,
                     message=f"{process[0]} exited with status {code} {before[0]}",
                     message_zh=f"{process[1]}{before[1]}以状态 {code} 退出")


def compile_learner(code: str, filename: str) -> types.CodeType:
    """Compile the learner's source; a ``SyntaxError`` propagates with line and column.

    The source is also registered with ``linecache`` so that tracebacks show the learner's lines.
    """
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    return compile(code, filename, "exec", dont_inherit=True)


def exec_learner(codeobj: types.CodeType, module_name: str) -> dict[str, object]:
    """Run the learner's module-level code in a fresh module namespace and return it.

    The module is registered in ``sys.modules`` while it runs so that dataclasses, pickling
    and ``__name__`` checks behave as in a normal import (``__name__`` is not ``"__main__"``).
    """
    module = types.ModuleType(module_name)
    module.__file__ = codeobj.co_filename
    sys.modules[module_name] = module
    exec(codeobj, module.__dict__)  # noqa: S102 - running the learner's code is the point
    return module.__dict__


def learner_function(namespace: dict[str, object], name: str) -> Callable[..., Any]:
    """The learner's function ``name``; a :class:`NameError` that says what to define."""
    function = namespace.get(name)
    if not callable(function):
        raise bilingual(NameError, f"your file must define a function `{name}`",
                        f"你的文件需要定义函数 `{name}`")
    return function


def graded_call(namespace: dict[str, object], function: str, output: str,
                rank_input: Mapping[str, Any], tensor: Callable[[Any], Any],
                to_data: Callable[[Any], Any], port: Any, filename: str) -> Any:
    """Make the graded call(s) with this rank's input (``values.call_of``: tensors made by
    ``tensor``, the judge's functions applied by the switch behind ``port``, tensors read back
    by ``to_data``); what is graded: the first argument afterwards (``output`` "inplace") or
    what the last call returned ("return")."""
    names, raw = values.call_of(rank_input, function)
    callables = [learner_function(namespace, name) for name in names]
    args = values.decode(raw, tensor, lambda handle: judge_fns.make(
        handle, port, tensor, to_data, lambda: caller_line(filename)))
    returned = callables[0](*args)
    for then in callables[1:]:
        returned = then(returned)
    return args[0] if output == "inplace" else returned


def learner_frames(tb: types.TracebackType | None, filename: str) -> list[traceback.FrameSummary]:
    """The frames of ``tb`` that belong to the learner's file, outermost first."""
    return [f for f in traceback.extract_tb(tb) if f.filename == filename]


def learner_error(exc: BaseException, filename: str, kind: ErrorKind = "exception") -> RankError:
    """Describe ``exc`` with only the learner's frames and line numbers."""
    frames = learner_frames(exc.__traceback__, filename)
    lines = ["Traceback (most recent call last):\n"]
    lines += traceback.format_list(frames)
    lines += traceback.format_exception_only(type(exc), exc)
    error = RankError(
        kind=kind,
        type=type(exc).__name__,
        message=str(exc),
        traceback="".join(lines),
        line=frames[-1].lineno if frames else None,
    )
    zh = getattr(exc, "zh", None)
    if isinstance(zh, str):
        error["message_zh"] = zh
    return error


def caller_line(filename: str) -> int | None:
    """The line of the innermost frame on the current stack that belongs to the learner's file."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            return frame.f_lineno
        frame = frame.f_back
    return None
