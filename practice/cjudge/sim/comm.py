"""Moving tensors between ranks over the transport: Work handles, p2p, exchanges, reductions.

Nothing here checks rules or records bytes (``distributed.py`` does, once per learner call):
collectives are built from point-to-point messages under their own tags (see
``transport.py``), so they never count as the learner's sends.
"""

from __future__ import annotations

import enum
import operator
from array import array
from collections.abc import Callable
from typing import Any

from .context import RankContext
from .dtypes import DType, to_array
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


_COMBINE: dict[ReduceOp, Callable[[Any, Any], Any]] = {
    ReduceOp.SUM: operator.add, ReduceOp.AVG: operator.add, ReduceOp.PRODUCT: operator.mul,
    ReduceOp.MIN: min, ReduceOp.MAX: max, ReduceOp.BAND: operator.and_,
    ReduceOp.BOR: operator.or_, ReduceOp.BXOR: operator.xor,
}


class Work:
    """A pending communication (``torch.distributed.Work``): ``wait()`` completes it."""

    def __init__(self, finish: Callable[[], None], probe: Callable[[], bool],
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


def raw_write(t: Tensor, values: array) -> None:
    """Write ``values`` into memory from ``t``'s first element on, as gloo does (strides ignored)."""
    span = _raw_span(t)
    t._store[span.start:span.start + len(values)] = values


def values_of(payload: bytes, dtype: DType) -> array:
    """Raw bytes read as elements of ``dtype`` (trailing partial elements dropped)."""
    values = array(dtype.typecode)
    values.frombytes(payload[:len(payload) - len(payload) % dtype.itemsize])
    return values


def isend(ctx: RankContext, t: Tensor, dst: int, tag: str) -> Work:
    """Post a send of ``t`` (its values now) to global rank ``dst``."""
    handle = ctx.transport.post_send(ctx.rank, dst, tag, payload_of(t))

    def finish() -> None:
        ctx.transport.wait(ctx.rank, handle, "send")

    return Work(finish, lambda: ctx.transport.test(handle), [t])


def irecv(ctx: RankContext, t: Tensor, src: int | None, tag: str) -> Work:
    """Post a receive into ``t`` from global rank ``src`` (None: any)."""
    handle = ctx.transport.post_recv(ctx.rank, src, tag)

    def finish() -> None:
        got = ctx.transport.wait(ctx.rank, handle, "recv")
        assert got is not None
        work._source, payload = got
        if len(payload) > t.nbytes:
            raise RuntimeError(
                f"Received data size doesn't match expected size: {len(payload)} vs {t.nbytes} "
                f"bytes (rank {work._source} sent more than the receiving tensor holds). Is there "
                f"a mismatch between the sent and the received tensors?"
            )
        values = values_of(payload, t.dtype)
        t.view(-1)[:len(values)]._write(values)

    work = Work(finish, lambda: ctx.transport.test(handle), [t])
    return work


def exchange(ctx: RankContext, gid: int, ranks: list[int], op: str,
             payload: bytes | list[bytes], done: Callable[[list[bytes]], None]) -> Work:
    """Every member sends to every other member; ``done`` gets the contributions by group rank.

    ``payload`` is one message for all, or one per group rank. The tag names the group, the
    call's sequence number in it and the op, so different collectives never match.
    """
    seq = ctx.collective_seq.get(gid, 0)
    ctx.collective_seq[gid] = seq + 1
    tag = f"c{gid}.{seq}.{op}"
    me = ranks.index(ctx.rank)
    per_dst = payload if isinstance(payload, list) else [payload] * len(ranks)
    tr = ctx.transport
    recvs = [(i, tr.post_recv(ctx.rank, r, tag)) for i, r in enumerate(ranks) if i != me]
    sends = [tr.post_send(ctx.rank, r, tag, per_dst[i]) for i, r in enumerate(ranks) if i != me]

    def finish() -> None:
        parts = [b""] * len(ranks)
        parts[me] = per_dst[me]
        for i, h in recvs:
            got = tr.wait(ctx.rank, h, op)
            assert got is not None
            parts[i] = got[1]
        for h in sends:
            tr.wait(ctx.rank, h, op)
        done(parts)

    def probe() -> bool:
        return all(tr.test(h) for _, h in recvs) and all(tr.test(h) for h in sends)

    return Work(finish, probe)


def reduce_values(op: ReduceOp, parts: list[array], dtype: DType, what: str) -> array:
    """The elementwise reduction of equally long contributions, in rank order."""
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be a torch.distributed.ReduceOp, got {op!r}")
    if op not in _COMBINE:
        raise Unsupported(f"ReduceOp.{op.name}")
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind == 2:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op is ReduceOp.AVG and dtype.kind != 2:
        raise RuntimeError("Cannot use ReduceOp.AVG with integral dtype")
    sizes = {len(p) for p in parts}
    if len(sizes) > 1:
        raise RuntimeError(
            f"{what}: the tensors of the ranks have different numbers of elements "
            f"({', '.join(str(len(p)) for p in parts)}); every rank must pass the same size"
        )
    fn = _COMBINE[op]
    acc = parts[0]
    for part in parts[1:]:
        acc = to_array(list(map(fn, acc, part)), dtype, dtype)
    if op is ReduceOp.AVG:
        acc = to_array([v / len(parts) for v in acc], dtype, dtype)
    return acc
