"""``torch.ops.c10d.*`` given a judge group: the same request to the switch as ``dist.*`` makes.

Those ops want a C++ process group and refuse a Python one with a type error a learner cannot
read; routed here, they reach :class:`~cjudge.real.judge_group.JudgeGroup` like every other door, so
a forbidden one is refused by the switch at the call and an allowed one works. This is an API
translation, not a guard: the switch enforces the rules whatever door a request comes through.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import torch
import torch.distributed as dist

from .judge_group import JudgeGroup


def _op(value: Any) -> Any:
    """A ReduceOp as the group's options carry it (a TorchScript ``ReduceOp()`` is SUM, its
    only constructor's default)."""
    return value if isinstance(value, dist.ReduceOp.RedOpType) else dist.ReduceOp.SUM


def _o(**fields: Any) -> SimpleNamespace:
    return SimpleNamespace(**fields)


#: op name -> how its arguments become a group call (``a``: the op's positional arguments)
ROUTES: dict[str, Callable[[JudgeGroup, tuple[Any, ...]], Any]] = {
    "allreduce_": lambda g, a: (a[0], g.allreduce(a[0], _o(reduceOp=_op(a[2])))),
    "broadcast_": lambda g, a: (a[0], g.broadcast(a[0], _o(rootRank=a[2]))),
    "reduce_": lambda g, a: g.reduce(a[0], _o(reduceOp=_op(a[2]), rootRank=a[3])),
    "send": lambda g, a: g.send(a[0], a[2], a[3]),
    "recv_": lambda g, a: g.recv(a[0], a[2], a[3]),
    "recv_any_source_": lambda g, a: g.recv_anysource(a[0], a[2]),
    "allgather_": lambda g, a: (a[0], g.allgather(a[0], a[1])),
    "_allgather_base_": lambda g, a: (a[0], g.all_gather_single(a[0], a[1])),
    "reduce_scatter_": lambda g, a: (a[0], g.reduce_scatter(a[0], a[1], _o(reduceOp=_op(a[3])))),
    "_reduce_scatter_base_": lambda g, a: (
        a[0], g.reduce_scatter_single(a[0], a[1], _o(reduceOp=_op(a[3])))),
    "alltoall_base_": lambda g, a: g.alltoall_base(a[0], a[1], a[3], a[4]),
    "alltoall_": lambda g, a: (a[0], g.alltoall(a[0], a[1])),
    "gather_": lambda g, a: g.gather(a[0], a[1], _o(rootRank=a[3])),
    "scatter_": lambda g, a: (a[0], g.scatter(a[0], a[1], _o(rootRank=a[3]))),
    "barrier": lambda g, a: g.barrier(),
}


class _Routed:
    """Stands in for one ``torch.ops.c10d`` op packet (calls and ``.default``)."""

    def __init__(self, name: str, packet: Any) -> None:
        self._name, self._packet = name, packet

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        group = next((a for a in args if isinstance(a, JudgeGroup)), None)
        if group is None:
            return self._packet(*args, **kwargs)
        return ROUTES[self._name](group, args)

    @property
    def default(self) -> _Routed:
        """The default overload, routed like the packet."""
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(self._packet, name)


def route_c10d_ops() -> None:
    """Route every ``torch.ops.c10d`` communication op given a judge group (once per process:
    the zygote does it before forking any rank)."""
    for name in ROUTES:
        packet = getattr(torch.ops.c10d, name)
        if not isinstance(packet, _Routed):
            setattr(torch.ops.c10d, name, _Routed(name, packet))
