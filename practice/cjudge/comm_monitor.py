"""Seeing every communication call a rank makes on real torch, through every door.

A learner reaches gloo through ``torch.distributed`` functions (which call the process group's
methods), the ``ProcessGroup`` object itself, its ``Backend`` object, or ``torch.ops.c10d.*``.
Each door is wrapped once at the Python level: the ``ProcessGroup``/``Backend`` class methods and
the ``torch.ops.c10d`` namespace. Below the wrappers everything is C++, so a call is counted once
(``dist.send`` is ``isend().wait()``, one ``ProcessGroup.send``). While :class:`CommMonitor` is
active a forbidden call raises before it runs and every allowed one becomes a trace event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from .learner import ForbiddenPrimitive, caller_line
from .primitives import bytes_sent
from .protocol import TraceEvent


@dataclass(frozen=True)
class CallShape:
    """Where a method finds what the trace needs: op, its tensor(s), its peer or root."""

    op: str
    tensors: int | None  # positional index of the tensor (list) the bytes are about
    peer: int | None = None  # positional index of the peer rank (p2p) or root rank
    root_in_opts: bool = False  # the root is an options object's ``rootRank``
    splits: int | None = None  # positional index of all_to_all's input split sizes


_R = CallShape
#: ProcessGroup / Backend method -> how to read it
METHODS: dict[str, CallShape] = {
    "send": _R("send", 0, peer=1), "recv": _R("recv", 0, peer=1),
    "recv_anysource": _R("recv", 0),
    "allreduce": _R("all_reduce", 0), "allreduce_coalesced": _R("all_reduce", 0),
    "broadcast": _R("broadcast", 0, root_in_opts=True),
    "reduce": _R("reduce", 0, root_in_opts=True),
    "allgather": _R("all_gather", 0), "all_gather_single": _R("all_gather", 0),
    "_allgather_base": _R("all_gather", 0), "allgather_coalesced": _R("all_gather", 0),
    "all_gather_single_coalesced": _R("all_gather", 0),
    "allgather_into_tensor_coalesced": _R("all_gather", 0),
    "gather": _R("gather", 1, root_in_opts=True),
    "scatter": _R("scatter", 0, root_in_opts=True),
    "reduce_scatter": _R("reduce_scatter", 1), "reduce_scatter_single": _R("reduce_scatter", 1),
    "_reduce_scatter_base": _R("reduce_scatter", 1),
    "reduce_scatter_single_coalesced": _R("reduce_scatter", 1),
    "reduce_scatter_tensor_coalesced": _R("reduce_scatter", 1),
    "all_to_all_single": _R("all_to_all", 1, splits=3), "alltoall_base": _R("all_to_all", 1, splits=3),
    "alltoall": _R("all_to_all", 1),
    "barrier": _R("barrier", None), "monitored_barrier": _R("barrier", None),
}
#: torch.ops.c10d op -> how to read it (positions in the op's schema)
C10D_OPS: dict[str, CallShape] = {
    "send": _R("send", 0, peer=2), "recv_": _R("recv", 0, peer=2),
    "recv_any_source_": _R("recv", 0),
    "allreduce_": _R("all_reduce", 0), "allreduce_coalesced_": _R("all_reduce", 0),
    "broadcast_": _R("broadcast", 0, peer=2), "reduce_": _R("reduce", 0, peer=3),
    "allgather_": _R("all_gather", 0), "_allgather_base_": _R("all_gather", 0),
    "allgather_coalesced_": _R("all_gather", 0),
    "allgather_into_tensor_coalesced_": _R("all_gather", 0),
    "reduce_scatter_": _R("reduce_scatter", 1), "_reduce_scatter_base_": _R("reduce_scatter", 1),
    "reduce_scatter_tensor_coalesced_": _R("reduce_scatter", 1),
    "alltoall_": _R("all_to_all", 1), "alltoall_base_": _R("all_to_all", 1, splits=4),
    "gather_": _R("gather", 1, peer=3), "scatter_": _R("scatter", 0, peer=3),
    "barrier": _R("barrier", None), "monitored_barrier_": _R("barrier", None),
}


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def _root(shape: CallShape, args: tuple, kwargs: dict) -> int | None:
    if shape.peer is not None and len(args) > shape.peer and isinstance(args[shape.peer], int):
        return args[shape.peer]
    if shape.root_in_opts:
        for value in (*args, *kwargs.values()):
            if hasattr(value, "rootRank"):
                return int(value.rootRank)
        ints = [a for a in args if isinstance(a, int)]
        return ints[0] if ints else None
    return None


class CommMonitor:
    """Wraps every door to gloo once per process; polices and records calls while active."""

    def __init__(self, rank: int, world: int, allowed: list[str], filename: str,
                 emit: Callable[[TraceEvent], None]):
        self.rank, self.world, self.allowed, self.filename = rank, world, allowed, filename
        self.emit, self.seq, self.active = emit, 0, False
        c10d = torch._C._distributed_c10d
        for cls in (c10d.ProcessGroup, c10d.Backend):
            for name, shape in METHODS.items():
                if name in cls.__dict__:
                    setattr(cls, name, self._guard(cls.__dict__[name], shape, f"pg.{name}"))
        for name, shape in C10D_OPS.items():
            packet = getattr(torch.ops.c10d, name)
            setattr(torch.ops.c10d, name, _GuardedOp(packet, self._guard(packet, shape,
                                                                         f"c10d.{name}")))

    def __enter__(self) -> CommMonitor:
        self.active = True
        return self

    def __exit__(self, *exc: object) -> None:
        self.active = False

    def _guard(self, original: Callable, shape: CallShape, api: str) -> Callable:
        monitor = self

        def guarded(*args: Any, **kwargs: Any) -> Any:
            if monitor.active:
                monitor.record(shape, api, args[1:] if api.startswith("pg.") else args, kwargs)
            return original(*args, **kwargs)

        guarded.__name__ = getattr(original, "__name__", api)
        return guarded

    def record(self, shape: CallShape, api: str, args: tuple, kwargs: dict) -> None:
        """Refuse a forbidden call, else emit its trace event."""
        if shape.op not in self.allowed:
            raise ForbiddenPrimitive(shape.op, self.allowed, api)
        if shape.tensors is None:
            tensors = []
        elif len(args) > shape.tensors:
            tensors = _tensors(args[shape.tensors])
        else:  # passed by keyword
            tensors = _tensors(list(kwargs.values()))
        sizes = [t.numel() * t.element_size() for t in tensors]
        nbytes = sum(sizes)
        root = _root(shape, args, kwargs)
        split_bytes = None
        if shape.op == "all_to_all":
            splits = list(args[shape.splits]) if shape.splits is not None and \
                len(args) > shape.splits and args[shape.splits] else []
            if splits:
                split_bytes = [s * nbytes // max(sum(splits), 1) for s in splits]
            elif shape.splits is None:
                split_bytes = sizes
        if shape.op == "scatter":
            nbytes *= self.world  # the root scatters ``world`` blocks of the output's size
        self.emit(TraceEvent(
            rank=self.rank, seq=self.seq, op=shape.op, peer=root,
            bytes=bytes_sent(shape.op, self.world, self.rank, nbytes, root=root,
                             split_bytes=split_bytes),
            count=sum(t.numel() for t in tensors),
            dtype=str(tensors[0].dtype).removeprefix("torch.") if tensors else "none",
            line=caller_line(self.filename), api=api))
        self.seq += 1


class _GuardedOp:
    """Stands in for a ``torch.ops.c10d`` op packet: calls and ``.default`` go through the guard."""

    def __init__(self, packet: Any, guarded: Callable):
        self._packet, self._guarded = packet, guarded

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._guarded(*args, **kwargs)

    @property
    def default(self) -> Callable:
        """The default overload, guarded like the packet."""
        return self._guarded

    def __getattr__(self, name: str) -> Any:
        return getattr(self._packet, name)
