"""Collective calls: all_reduce, reduce_scatter(_tensor), all_gather(_into_tensor),
all_to_all(_single), broadcast, reduce, gather, scatter, barrier.

Each is one request to the switch (``comm.collective``), which performs the collective once every
member of the group has made the call, and a local write of the switch's result. They behave
as gloo does in torch 2.13, measured here: ``all_reduce``, ``broadcast``, ``reduce`` and
``scatter`` (and ``all_to_all_single``'s output) use a tensor's memory from its first element on,
ignoring its strides, so a strided view gives the same wrong result as under gloo;
``all_to_all_single`` refuses a non-contiguous input; the other calls respect strides. Checks
torch makes in Python come before the call is traced, the backend's after.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..contract.primitives import blocks_of, check_sizes, equal_blocks, row_elements, same_shapes, split_rows
from . import comm, groups
from .comm import ReduceOp, Work
from .context import Call, check, current
from .dtypes import float32
from .tensor import Tensor


def call_all_reduce(t: Any, op: ReduceOp, group: Any, api: str) -> Work:
    call = check(api, "all_reduce")
    g = groups.resolve(group)
    t = groups.tensor_arg(t)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    payload = comm.raw_payload(t)

    def done(result: bytes) -> None:
        comm.raw_write(t, comm.values_of(result, t.dtype))

    return comm.collective(current(), g._gid, "all_reduce", payload, t.dtype, call, done, op=op)


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> Work | None:
    """Reduce ``tensor`` elementwise over all ranks, in place on every rank."""
    return groups.finish(call_all_reduce(tensor, op, group, "all_reduce"), async_op)


def _scattered(output: Tensor, flat: Tensor, op: ReduceOp, g: groups.Group, call: Call) -> Work:
    """Reduce ``flat`` over the group; this rank keeps its block in ``output``."""

    def done(result: bytes) -> None:
        output._write(comm.values_of(result, flat.dtype))

    return comm.collective(current(), g._gid, "reduce_scatter", comm.payload_of(flat), flat.dtype,
                           call, done, op=op)




def call_reduce_scatter_tensor(output: Any, input: Any, op: ReduceOp, group: Any,
                           api: str) -> Work:
    call = check(api, "reduce_scatter")
    g = groups.resolve(group)
    output, input = groups.tensor_arg(output, "output"), groups.tensor_arg(input, "input")
    member = groups.member(g)
    if member is None:
        return groups.idle()
    check_sizes("reduce_scatter_tensor", input, output, len(member[0]))
    return _scattered(output, input, op, g, call)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: Any = None, async_op: bool = False) -> Work | None:
    """Reduce ``input`` over all ranks; rank r keeps the r-th of ``world_size`` equal blocks."""
    return groups.finish(call_reduce_scatter_tensor(output, input, op, group,
                                                "reduce_scatter_tensor"), async_op)


def call_reduce_scatter(output: Any, input_list: Any, op: ReduceOp, group: Any, api: str) -> Work:
    from .functional import cat

    call = check(api, "reduce_scatter")
    g = groups.resolve(group)
    output = groups.tensor_arg(output, "output")
    inputs = groups.tensor_list(input_list, "input_list")
    groups.same_dtype(output, inputs)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    if len(inputs) != len(member[0]) or any(t.numel() != output.numel() for t in inputs):
        raise RuntimeError("ProcessGroupGloo::reduce_scatter: input_list must hold one tensor "
                           "of the output's size per rank of the group")
    return _scattered(output, cat([t.reshape(-1) for t in inputs]), op, g, call)


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: ReduceOp = ReduceOp.SUM,
                   group: Any = None, async_op: bool = False) -> Work | None:
    """Reduce the lists over all ranks; rank r keeps the reduction of everyone's r-th tensor."""
    return groups.finish(call_reduce_scatter(output, input_list, op, group, "reduce_scatter"),
                         async_op)


def _write_each(outputs: Sequence[Tensor], parts: list[bytes], what: str) -> None:
    """Write each rank's contribution into the output tensor of the same position."""
    for o, p in zip(outputs, parts, strict=True):
        values = comm.values_of(p, o.dtype)
        if len(values) != o.numel():
            raise RuntimeError(f"{what}: a rank sent {len(values)} elements into a tensor of "
                               f"{o.numel()}")
        o._write(values)


def call_all_gather(tensor_list: Any, t: Any, group: Any, api: str) -> Work:
    call = check(api, "all_gather")
    g = groups.resolve(group)
    outputs = groups.tensor_list(tensor_list, "tensor_list")
    t = groups.tensor_arg(t)
    groups.same_dtype(outputs, t)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    if len(outputs) != len(member[0]):
        raise RuntimeError("ProcessGroupGloo::allgather: tensor_list must hold one tensor per "
                           "rank of the group")
    return comm.collective(current(), g._gid, "all_gather", comm.payload_of(t), t.dtype, call,
                           lambda result: _write_each(outputs, equal_blocks(result, len(outputs)),
                                                      "all_gather"))


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: Any = None,
               async_op: bool = False) -> Work | None:
    """Every rank's ``tensor`` into ``tensor_list`` (one entry per rank) on every rank."""
    return groups.finish(call_all_gather(tensor_list, tensor, group, "all_gather"), async_op)


def call_all_gather_into(output: Any, input: Any, group: Any, api: str) -> Work:
    call = check(api, "all_gather")
    g = groups.resolve(group)
    output = groups.tensor_arg(output, "output_tensor")
    input = groups.tensor_arg(input, "input_tensor")
    member = groups.member(g)
    if member is None:
        return groups.idle()
    check_sizes("allgather_into_tensor", output, input, len(member[0]))

    def done(result: bytes) -> None:
        output._write(comm.values_of(result, input.dtype))

    return comm.collective(current(), g._gid, "all_gather", comm.payload_of(input), input.dtype,
                           call, done)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                           async_op: bool = False) -> Work | None:
    """Every rank's ``input_tensor``, concatenated in rank order, into ``output_tensor``."""
    return groups.finish(call_all_gather_into(output_tensor, input_tensor, group,
                                          "all_gather_into_tensor"), async_op)


def call_all_to_all_single(output: Any, input: Any, output_split_sizes: Sequence[int] | None,
                       input_split_sizes: Sequence[int] | None, group: Any, api: str) -> Work:
    call = check(api, "all_to_all")
    g = groups.resolve(group)
    output, input = groups.tensor_arg(output, "output"), groups.tensor_arg(input, "input")
    groups.same_dtype(output, input)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    ranks = member[0]
    in_splits = [int(s) for s in input_split_sizes or []]
    out_splits = [int(s) for s in output_split_sizes or []]
    if not input.is_contiguous():
        raise ValueError("Tensors must be contiguous")
    in_rows, out_rows = split_rows(input, in_splits, len(ranks)), split_rows(output, out_splits, len(ranks))
    row, out_row = row_elements(input), row_elements(output)
    values = input._read()
    splits = [rows * row * input.element_size() for rows in in_rows]

    def done(result: bytes) -> None:
        if len(result) != sum(rows * out_row * input.element_size() for rows in out_rows):
            raise RuntimeError("Split sizes doesn't match total dim 0 size")
        comm.raw_write(output, comm.values_of(result, input.dtype))

    return comm.collective(current(), g._gid, "all_to_all", values.tobytes(), input.dtype, call,
                           done, splits=splits)


def all_to_all_single(output: Tensor, input: Tensor,
                      output_split_sizes: Sequence[int] | None = None,
                      input_split_sizes: Sequence[int] | None = None, group: Any = None,
                      async_op: bool = False) -> Work | None:
    """Split ``input`` along dim 0 (equally, or by ``input_split_sizes``); block i goes to rank
    i; ``output`` receives rank j's block in position j."""
    return groups.finish(call_all_to_all_single(output, input, output_split_sizes,
                                            input_split_sizes, group, "all_to_all_single"),
                         async_op)


def call_all_to_all(output_list: Any, input_list: Any, group: Any, api: str) -> Work:
    call = check(api, "all_to_all")
    g = groups.resolve(group)
    outputs = groups.tensor_list(output_list, "output_tensor_list")
    inputs = groups.tensor_list(input_list, "input_tensor_list")
    groups.same_dtype(outputs, inputs)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    ranks = member[0]
    if len(outputs) != len(ranks) or len(inputs) != len(ranks):
        raise RuntimeError("ProcessGroupGloo::alltoall: the lists must hold one tensor per rank "
                           "of the group")
    same_shapes("alltoall", [list(t.shape) for t in inputs])
    same_shapes("alltoall", [list(t.shape) for t in outputs])
    sizes = [o.nbytes for o in outputs]

    def done(result: bytes) -> None:
        if len(result) != sum(sizes):
            raise RuntimeError("all_to_all: the ranks' blocks do not fit the output tensors")
        _write_each(outputs, blocks_of(result, sizes),
                    "all_to_all")

    return comm.collective(current(), g._gid, "all_to_all",
                           b"".join(comm.payload_of(t) for t in inputs), inputs[0].dtype, call,
                           done, splits=[t.nbytes for t in inputs])


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor],
               group: Any = None, async_op: bool = False) -> Work | None:
    """``input_tensor_list[i]`` goes to rank i; ``output_tensor_list[j]`` comes from rank j."""
    return groups.finish(call_all_to_all(output_tensor_list, input_tensor_list, group, "all_to_all"),
                         async_op)


def call_broadcast(t: Any, src: int | None, group_src: int | None, group: Any, api: str) -> Work:
    call = check(api, "broadcast")
    g = groups.resolve(group)
    t = groups.tensor_arg(t)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    ranks, me = member
    root = groups.root(src, group_src, g, "broadcast")
    mine = ranks[me] == root

    def done(result: bytes) -> None:
        if not mine:
            values = comm.values_of(result, t.dtype)
            if len(values) != t.numel():
                raise RuntimeError(f"broadcast: rank {root} sent {len(values)} elements into a "
                                   f"tensor of {t.numel()}")
            comm.raw_write(t, values)

    return comm.collective(current(), g._gid, "broadcast", comm.raw_payload(t), t.dtype, call,
                           done, root=root)


def broadcast(tensor: Tensor, src: int | None = None, group: Any = None, async_op: bool = False,
              group_src: int | None = None) -> Work | None:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank."""
    return groups.finish(call_broadcast(tensor, src, group_src, group, "broadcast"), async_op)


def call_reduce(t: Any, dst: int | None, group_dst: int | None, op: ReduceOp, group: Any,
            api: str) -> Work:
    call = check(api, "reduce")
    g = groups.resolve(group)
    t = groups.tensor_arg(t)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    ranks, me = member
    root = groups.root(dst, group_dst, g, "reduce")

    def done(result: bytes) -> None:
        if ranks[me] == root:
            comm.raw_write(t, comm.values_of(result, t.dtype))

    return comm.collective(current(), g._gid, "reduce", comm.raw_payload(t), t.dtype, call, done,
                           op=op, root=root)


def reduce(tensor: Tensor, dst: int | None = None, op: ReduceOp = ReduceOp.SUM,
           group: Any = None, async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """Reduce ``tensor`` over all ranks into rank ``dst``'s ``tensor``."""
    return groups.finish(call_reduce(tensor, dst, group_dst, op, group, "reduce"), async_op)


def _root_list(ts: Any, is_root: bool, n: int, what: str, role: str) -> list[Tensor]:
    """The list a rooted call takes on its root only (torch's checks, made in Python)."""
    if not is_root:
        if ts:
            raise ValueError(f"Argument ``{what}`` must NOT be specified on non-{role} ranks.")
        return []
    tensors = groups.tensor_list(ts, what)
    if len(tensors) != n:
        raise ValueError(f"{what} on the {role} rank must hold one tensor per rank of the group")
    return tensors


def call_gather(t: Any, gather_list: Any, dst: int | None, group_dst: int | None, group: Any,
            api: str) -> Work:
    call = check(api, "gather")
    g = groups.resolve(group)
    t = groups.tensor_arg(t)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    ranks, me = member
    root = groups.root(dst, group_dst, g, "gather")
    outputs = _root_list(gather_list, ranks[me] == root, len(ranks), "gather_list", "destination")
    groups.same_dtype(t, outputs)

    def done(result: bytes) -> None:
        if outputs:
            _write_each(outputs, equal_blocks(result, len(outputs)), "gather")

    return comm.collective(current(), g._gid, "gather", comm.payload_of(t), t.dtype, call, done,
                           root=root)


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None,
           group: Any = None, async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    return groups.finish(call_gather(tensor, gather_list, dst, group_dst, group, "gather"), async_op)


def call_scatter(t: Any, scatter_list: Any, src: int | None, group_src: int | None, group: Any,
             api: str) -> Work:
    call = check(api, "scatter")
    g = groups.resolve(group)
    t = groups.tensor_arg(t)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    ranks, me = member
    root = groups.root(src, group_src, g, "scatter")
    pieces = _root_list(scatter_list, ranks[me] == root, len(ranks), "scatter_list", "source")
    groups.same_dtype(t, pieces)

    def done(result: bytes) -> None:
        values = comm.values_of(result, t.dtype)
        if len(values) != t.numel():
            raise RuntimeError(f"scatter: rank {root} sent {len(values)} elements into a tensor "
                               f"of {t.numel()}")
        comm.raw_write(t, values)

    payload = b"".join(comm.raw_payload(s) for s in pieces)
    return comm.collective(current(), g._gid, "scatter", payload, t.dtype, call, done, root=root)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None,
            group: Any = None, async_op: bool = False, group_src: int | None = None) -> Work | None:
    """Rank ``src``'s ``scatter_list[i]`` into ``tensor`` on rank i."""
    return groups.finish(call_scatter(tensor, scatter_list, src, group_src, group, "scatter"),
                         async_op)


def call_barrier(group: Any, api: str) -> Work:
    call = check(api, "barrier")
    g = groups.resolve(group)
    member = groups.member(g)
    if member is None:
        return groups.idle()
    return comm.collective(current(), g._gid, "barrier", b"", float32, call, lambda result: None)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Work | None:
    """Wait until every rank of the group reaches the barrier."""
    return groups.finish(call_barrier(group, "barrier"), async_op)


def monitored_barrier(group: Any = None, timeout: Any = None, wait_all_ranks: bool = False) -> None:
    """``barrier`` (there is nothing to monitor here)."""
    call_barrier(group, "monitored_barrier").wait()
