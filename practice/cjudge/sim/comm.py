"""Moving tensors between ranks through the switch: Work handles, p2p and collective requests.

Nothing here checks rules or records bytes: the switch does both, for every runtime alike.
"""

from __future__ import annotations

import enum
from array import array
from collections.abc import Callable
from typing import Any, TypeVar

from ..contract.protocol import bilingual
from ..rank.learner import ForbiddenPrimitive, caller_line
from ..switch.core import Forbidden, SwitchError
from .context import Call, RankContext, current_allowed
from .dtypes import DType
from .errors import Unsupported
from .tensor import Tensor


class ReduceOp(enum.Enum):
    """``torch.distributed.ReduceOp``."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"


T = TypeVar("T")

#: the reduce ops the switch performs
_SUPPORTED = frozenset({ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX,
                        ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR})


class Work:
    """A pending communication (``torch.distributed.Work``): ``wait()`` completes it."""

    def __init__(self, finish: Callable[[], object], probe: Callable[[], bool],
                 result: list[Tensor] | None = None) -> None:
        self._finish = finish
        self._probe = probe
        self._done = False
        self._result = result or []
        self._source: int | None = None

    def wait(self, timeout: Any = None) -> bool:
        """Block until the communication is done (the received data is then in place)."""
        if not self._done:
            self._finish()
            self._done = True
        return True

    def is_completed(self) -> bool:
        """Whether it is done; if it just became done, its data is put in place now."""
        if not self._done and self._probe():
            self.wait()
        return self._done

    def is_success(self) -> bool:
        """Whether it completed (failures raise instead)."""
        return self.is_completed()

    def exception(self) -> None:
        """Failures raise at ``wait``; there is never a stored exception."""
        return None

    def source_rank(self) -> int:
        """The rank a completed receive got its message from."""
        if self._source is None:
            raise RuntimeError("source_rank() is only available for a completed receive")
        return self._source

    def result(self) -> list[Tensor]:
        """The tensors the communication was about."""
        return self._result

    def synchronize(self) -> None:
        """Nothing to do on the CPU."""

    def get_future(self) -> Any:
        raise Unsupported("Work.get_future()")


def payload_of(t: Tensor) -> bytes:
    """A tensor's elements as raw bytes (row-major)."""
    return t._read().tobytes()


def _raw_span(t: Tensor) -> slice:
    end = t._offset + t.numel()
    if end > len(t._store):
        raise RuntimeError("a non-contiguous tensor reaches past the end of its storage when read "
                           "from its first element on, as gloo reads it")
    return slice(t._offset, end)


def raw_payload(t: Tensor) -> bytes:
    """gloo's view of a tensor: ``numel`` elements of memory from the first one, strides ignored."""
    return t._store[_raw_span(t)].tobytes()


def raw_write(t: Tensor, values: array[Any]) -> None:
    """Write ``values`` into memory from ``t``'s first element on, as gloo does (strides ignored)."""
    span = _raw_span(t)
    t._store[span.start:span.start + len(values)] = values


def values_of(payload: bytes, dtype: DType) -> array[Any]:
    """Raw bytes read as elements of ``dtype`` (trailing partial elements dropped)."""
    values = array(dtype.typecode)
    values.frombytes(payload[:len(payload) - len(payload) % dtype.itemsize])
    return values


def _wait(ctx: RankContext, handle: int) -> tuple[int | None, bytes]:
    """Wait on a request; the switch's refusal becomes the learner's ``RuntimeError``."""
    try:
        return ctx.port.wait(handle, caller_line(ctx.filename))
    except SwitchError as exc:
        raise bilingual(RuntimeError, exc.en, exc.zh) from None


def posted(post: Callable[[], T]) -> T:
    """Post a request; a forbidden call becomes the learner's ``ForbiddenPrimitive``."""
    try:
        return post()
    except Forbidden as exc:
        raise ForbiddenPrimitive(exc.kind, current_allowed(), exc.api) from None
    except SwitchError as exc:
        raise bilingual(RuntimeError, exc.en, exc.zh) from None


def isend(ctx: RankContext, t: Tensor, gid: int, dst: int, tag: int, call: Call) -> Work:
    """Post a send of ``t`` (its values now) to global rank ``dst``."""
    handle = posted(lambda: ctx.port.post_send(gid, dst, tag, payload_of(t), t.dtype.name,
                                               call.line, call.api))
    return Work(lambda: _wait(ctx, handle), lambda: ctx.port.test(handle), [t])


def irecv(ctx: RankContext, t: Tensor, gid: int, src: int | None, tag: int, call: Call) -> Work:
    """Post a receive into ``t`` from global rank ``src`` (None: any)."""
    handle = posted(lambda: ctx.port.post_recv(gid, src, tag, t.nbytes, t.dtype.name,
                                               call.line, call.api))

    def finish() -> None:
        work._source, payload = _wait(ctx, handle)
        values = values_of(payload, t.dtype)
        t.view(-1)[:len(values)]._write(values)

    work = Work(finish, lambda: ctx.port.test(handle), [t])
    return work


def collective(ctx: RankContext, gid: int, kind: str, payload: bytes, dtype: DType, call: Call,
               done: Callable[[bytes], None], *, op: ReduceOp | None = None,
               root: int | None = None, splits: list[int] | None = None) -> Work:
    """Post this rank's part of a built-in collective; ``done`` gets the switch's result."""
    if op is not None:
        check_op(op, dtype)
    handle = posted(lambda: ctx.port.post_collective(
        gid, kind, payload, dtype.name, line=call.line, api=call.api,
        op=op.name.lower() if op is not None else None, root=root, splits=splits))

    def finish() -> None:
        done(_wait(ctx, handle)[1])

    return Work(finish, lambda: ctx.port.test(handle))


def check_op(op: ReduceOp, dtype: DType) -> None:
    """torch's checks of a reduce op against a dtype, made before the call reaches the backend."""
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be a torch.distributed.ReduceOp, got {op!r}")
    if op not in _SUPPORTED:
        raise Unsupported(f"ReduceOp.{op.name}")
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind == 2:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op is ReduceOp.AVG and dtype.kind != 2:
        raise RuntimeError("Cannot use ReduceOp.AVG with integral dtype")
