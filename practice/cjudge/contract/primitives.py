"""The communication primitives a learner may call, and the bytes each one puts on the wire.

Both runtimes (real torch and the simulation) describe every communication call with one
*canonical op* and account its bytes with :func:`bytes_sent`, so their traces are comparable.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import Any

#: learner-facing name -> canonical op recorded in the trace
CANONICAL: dict[str, str] = {
    "send": "send",
    "isend": "send",
    "recv": "recv",
    "irecv": "recv",
    "batch_isend_irecv": "send",
    "all_reduce": "all_reduce",
    "reduce_scatter": "reduce_scatter",
    "reduce_scatter_tensor": "reduce_scatter",
    "reduce_scatter_single": "reduce_scatter",
    "all_gather": "all_gather",
    "all_gather_into_tensor": "all_gather",
    "all_gather_single": "all_gather",
    "all_to_all": "all_to_all",
    "all_to_all_single": "all_to_all",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "gather": "gather",
    "scatter": "scatter",
    "barrier": "barrier",
}

#: a process group's methods a learner may call directly (reported as ``ProcessGroup.<name>``
#: by both runtimes) -> the canonical op of the call
PROCESS_GROUP_METHODS: dict[str, str] = {
    "send": "send", "recv": "recv", "recv_anysource": "recv", "allreduce": "all_reduce",
    "broadcast": "broadcast", "reduce": "reduce", "allgather": "all_gather",
    "all_gather_single": "all_gather", "_allgather_base": "all_gather",
    "reduce_scatter": "reduce_scatter", "reduce_scatter_single": "reduce_scatter",
    "_reduce_scatter_base": "reduce_scatter", "alltoall": "all_to_all",
    "alltoall_base": "all_to_all", "gather": "gather", "scatter": "scatter",
    "barrier": "barrier",
}

#: a call's other names -> the one name every runtime records for it (the switch renames a
#: call as it enters the record): torch's names by version (2.13 forwards the learner's
#: ``reduce_scatter_tensor`` to ``reduce_scatter_single``, which is what the real runtime sees;
#: ``_reduce_scatter_base`` is its name before 1.13) and a process group's method's two names
ALIASES: dict[str, str] = {
    "reduce_scatter_single": "reduce_scatter_tensor",
    "_reduce_scatter_base": "reduce_scatter_tensor",
    "all_gather_single": "all_gather_into_tensor",
    "_all_gather_base": "all_gather_into_tensor",
    "ProcessGroup.reduce_scatter_single": "ProcessGroup._reduce_scatter_base",
    "ProcessGroup.all_gather_single": "ProcessGroup._allgather_base",
}

#: canonical ops that are point-to-point
P2P_OPS = frozenset({"send", "recv"})

#: canonical op -> the learner-facing name used in messages
DISPLAY: dict[str, str] = {
    "send": "send/isend",
    "recv": "recv/irecv",
    "all_reduce": "all_reduce",
    "reduce_scatter": "reduce_scatter_tensor",
    "all_gather": "all_gather_into_tensor",
    "all_to_all": "all_to_all_single",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "gather": "gather",
    "scatter": "scatter",
    "barrier": "barrier",
    "symm_read": "symm.read",  # symmetric memory (``switch.symm``): the judge's, never refused
    "symm_write": "symm.write",
    "symm_barrier": "symm.barrier",
}


def call_name(api: str, kind: str) -> str:
    """A recorded call as every message names it: the torch.distributed function the learner
    called, when it names a call of the switch's ``kind``; a process group's method with the
    kind beside it; else the kind's one name (never free text a rank reported)."""
    if CANONICAL.get(api) == kind or (api == "batch_isend_irecv" and kind in P2P_OPS):
        return api
    if api.startswith("ProcessGroup.") and \
            PROCESS_GROUP_METHODS.get(api.removeprefix("ProcessGroup.")) == kind:
        return f"{api} ({kind})"
    return DISPLAY.get(kind, "?")


def allowed_ops(names: list[str]) -> frozenset[str]:
    """Canonical ops allowed by an exercise's list of learner-facing names.

    ``batch_isend_irecv`` allows both directions of point-to-point traffic.
    """
    ops: set[str] = set()
    for name in names:
        if name not in CANONICAL:
            raise ValueError(f"unknown primitive {name!r}; known: {', '.join(sorted(CANONICAL))}")
        ops.add(CANONICAL[name])
        if name == "batch_isend_irecv":
            ops.add("recv")
    return frozenset(ops)


def bytes_sent(op: str, world: int, rank: int, nbytes: int, root: int | None = None,
               split_bytes: list[int] | None = None) -> int:
    """Bytes this rank sends for one call, by the bandwidth-optimal algorithm's volume.

    ``nbytes`` is the size of the tensor the op is about: the sent/received tensor for p2p,
    the reduced tensor for all_reduce, the *input* for reduce_scatter and scatter (root), the
    *output* for all_gather, the input for all_to_all (``split_bytes`` gives its blocks per
    destination when uneven) and the tensor for broadcast/reduce/gather.
    """
    n = world
    if op == "send":
        return nbytes
    if op in ("recv", "barrier", "symm_barrier") or n == 1:
        return 0
    if op == "all_reduce":
        return 2 * (n - 1) * nbytes // n
    if op in ("reduce_scatter", "all_gather"):
        return (n - 1) * nbytes // n
    if op == "all_to_all":
        if split_bytes is not None:
            return sum(b for dst, b in enumerate(split_bytes) if dst != rank)
        return (n - 1) * nbytes // n
    if op == "broadcast":
        return (n - 1) * nbytes if rank == root else 0
    if op in ("reduce", "gather"):
        return 0 if rank == root else nbytes
    if op == "scatter":
        return (n - 1) * nbytes // n if rank == root else 0
    raise ValueError(f"unknown canonical op {op!r}")


def _dims(shape: list[int]) -> str:
    return "(" + ", ".join(map(str, shape)) + ")"


def same_shapes(what: str, shapes: list[list[int]]) -> None:
    """gloo's check that the tensors of a list call share the first one's shape (RuntimeError)."""
    for index, shape in enumerate(shapes):
        if shape != shapes[0]:
            raise RuntimeError(f"ProcessGroupGloo::{what}: invalid tensor size at index {index} "
                               f"(expected {_dims(shapes[0])}, got {_dims(shape)})")


def split_rows(t: Any, sizes: Sequence[int], n: int) -> list[int]:
    """``all_to_all_single``'s rows of ``t`` (along dim 0) per rank: the given split sizes, or
    equal ones; torch's errors otherwise. ``t`` is a real or a simulated tensor."""
    rows = t.shape[0] if t.dim() else 1
    if not sizes:
        if rows % n:
            raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
        return [rows // n] * n
    if len(sizes) != n or sum(sizes) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    return [int(s) for s in sizes]


def row_elements(t: Any) -> int:
    """Elements in one row (along dim 0) of a real or simulated tensor: 1 for 0-d and 1-d; an
    empty tensor's rows are as wide as its shape says."""
    width = 1
    for d in list(t.shape)[1:]:
        width *= int(d)
    return width


def blocks_of(data: bytes, sizes: Sequence[int]) -> list[bytes]:
    """``data`` cut into consecutive blocks of ``sizes`` bytes, one per rank."""
    ends = list(accumulate(sizes))
    return [data[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def equal_blocks(data: bytes, n: int) -> list[bytes]:
    """``data`` cut into ``n`` equal blocks, one per rank."""
    return blocks_of(data, [len(data) // n] * n) if n else []


def check_sizes(name: str, big: Any, small: Any, n: int) -> None:
    """Gloo's rule for a fused all-gather / reduce-scatter: ``big`` holds ``n`` × ``small``, one
    dtype (either runtime's tensors: torch's or the simulation's)."""
    if big.dtype != small.dtype:
        raise RuntimeError(f"ProcessGroupGloo::{name}: tensors must have one dtype "
                           f"({big.dtype} and {small.dtype})")
    if big.numel() != small.numel() * n:
        raise RuntimeError(f"ProcessGroupGloo::{name}: the larger tensor must hold world_size "
                           f"({n}) × the smaller one's {small.numel()} elements, it holds "
                           f"{big.numel()}")
