"""The simulated ``torch.distributed`` API, process-group objects included.

Every communication call first passes the rules (``context.check``: a forbidden primitive fails
at the call), then is validated, recorded once (``context.record``) and performed (``comm``).
The process-group methods go through the same path, so the rules hold there too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import comm
from .comm import ReduceOp, Work
from .context import Call, check, current, in_rank, record
from .dtypes import to_array
from .errors import Unsupported, UnsupportedAttribute
from .tensor import Tensor

# ---- process groups ----------------------------------------------------------------------------


class ProcessGroup:
    """A group of ranks (``torch.distributed.ProcessGroup``); ``ranks`` None means all of them."""

    def __init__(self, gid: int, ranks: tuple[int, ...] | None) -> None:
        self._gid = gid
        self._members = ranks

    def _ranks(self) -> list[int]:
        return list(self._members) if self._members is not None else list(range(current().world))

    def rank(self) -> int:
        """This rank's index in the group (-1 if it is not a member)."""
        ranks = self._ranks()
        me = current().rank
        return ranks.index(me) if me in ranks else -1

    def size(self) -> int:
        """The number of ranks in the group."""
        return len(self._ranks())

    def name(self) -> str:
        """The backend's name."""
        return "gloo"

    def __repr__(self) -> str:
        return f"<ProcessGroup {self._gid} ranks={self._members or 'all'}>"

    # The methods take group-local ranks and lists of tensors, like torch's ProcessGroup.

    def send(self, tensors: Sequence[Tensor], dstRank: int, tag: int = 0) -> Work:
        """``ProcessGroup.send``."""
        return _isend(_one(tensors), None, self, tag, "ProcessGroup.send", group_dst=dstRank)

    def recv(self, tensors: Sequence[Tensor], srcRank: int, tag: int = 0) -> Work:
        """``ProcessGroup.recv``."""
        return _irecv(_one(tensors), None, self, tag, "ProcessGroup.recv", group_src=srcRank)

    def recv_anysource(self, tensors: Sequence[Tensor], tag: int = 0) -> Work:
        """``ProcessGroup.recv_anysource``."""
        return _irecv(_one(tensors), None, self, tag, "ProcessGroup.recv_anysource")

    def allreduce(self, tensors: Any, opts: Any = None, op: ReduceOp = ReduceOp.SUM,
                  timeout: Any = None) -> Work:
        """``ProcessGroup.allreduce``."""
        return _all_reduce(_one(tensors), _op(opts, op), self, "ProcessGroup.allreduce")

    def broadcast(self, tensors: Any, opts: Any = None, root: int = 0, timeout: Any = None) -> Work:
        """``ProcessGroup.broadcast`` (``root`` group-local)."""
        root = getattr(opts, "rootRank", opts if isinstance(opts, int) else root)
        return _broadcast(_one(tensors), None, root, self, "ProcessGroup.broadcast")

    def allgather(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> Work:
        """``ProcessGroup.allgather``."""
        outputs = output_tensors[0] if output_tensors and isinstance(output_tensors[0], list) \
            else output_tensors
        return _all_gather(list(outputs), _one(input_tensors), self, "ProcessGroup.allgather")

    def _allgather_base(self, output: Tensor, input: Tensor, opts: Any = None) -> Work:
        return _all_gather_into(output, input, self, "ProcessGroup._allgather_base")

    all_gather_single = _allgather_base

    def reduce_scatter(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> Work:
        """``ProcessGroup.reduce_scatter``."""
        inputs = input_tensors[0] if input_tensors and isinstance(input_tensors[0], list) \
            else input_tensors
        return _reduce_scatter(_one(output_tensors), list(inputs), _op(opts, ReduceOp.SUM), self,
                               "ProcessGroup.reduce_scatter")

    def _reduce_scatter_base(self, output: Tensor, input: Tensor, opts: Any = None) -> Work:
        return _reduce_scatter_tensor(output, input, _op(opts, ReduceOp.SUM), self,
                                      "ProcessGroup._reduce_scatter_base")

    reduce_scatter_single = _reduce_scatter_base

    def alltoall_base(self, output: Tensor, input: Tensor,
                      output_split_sizes: Sequence[int] | None = None,
                      input_split_sizes: Sequence[int] | None = None, opts: Any = None) -> Work:
        """``ProcessGroup.alltoall_base``."""
        return _all_to_all_single(output, input, output_split_sizes or None,
                                  input_split_sizes or None, self, "ProcessGroup.alltoall_base")

    all_to_all_single = alltoall_base

    def alltoall(self, output_tensors: list[Tensor], input_tensors: list[Tensor],
                 opts: Any = None) -> Work:
        """``ProcessGroup.alltoall``."""
        return _all_to_all(output_tensors, input_tensors, self, "ProcessGroup.alltoall")

    def reduce(self, tensors: Any, opts: Any = None, root: int = 0,
               op: ReduceOp = ReduceOp.SUM) -> Work:
        """``ProcessGroup.reduce`` (``root`` group-local)."""
        root = getattr(opts, "rootRank", root)
        return _reduce(_one(tensors), None, root, _op(opts, op), self, "ProcessGroup.reduce")

    def gather(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> Work:
        """``ProcessGroup.gather`` (root from ``opts.rootRank``, default 0)."""
        outputs = output_tensors[0] if output_tensors else None
        return _gather(_one(input_tensors), outputs, None, getattr(opts, "rootRank", 0), self,
                       "ProcessGroup.gather")

    def scatter(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> Work:
        """``ProcessGroup.scatter`` (root from ``opts.rootRank``, default 0)."""
        inputs = input_tensors[0] if input_tensors else None
        return _scatter(_one(output_tensors), inputs, None, getattr(opts, "rootRank", 0), self,
                        "ProcessGroup.scatter")

    def barrier(self, opts: Any = None) -> Work:
        """``ProcessGroup.barrier``."""
        return _barrier(self, "ProcessGroup.barrier")

    def __getattr__(self, name: str) -> Any:
        raise UnsupportedAttribute(f"ProcessGroup.{name}")


WORLD = ProcessGroup(0, None)


class group:
    """``torch.distributed.group``: ``group.WORLD`` is the default group."""

    WORLD = WORLD


class GroupMember:
    """``torch.distributed.GroupMember``."""

    WORLD = WORLD
    NON_GROUP_MEMBER = object()


def _one(tensors: Any) -> Tensor:
    if isinstance(tensors, Tensor):
        return tensors
    if isinstance(tensors, (list, tuple)) and len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return tensors[0]
    raise Unsupported("process-group calls with several tensors per rank")


def _op(opts: Any, default: ReduceOp) -> ReduceOp:
    if isinstance(opts, ReduceOp):
        return opts
    return getattr(opts, "reduceOp", default)


def _resolve(group: Any) -> ProcessGroup:
    if group is None:
        return WORLD
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(group).__name__}")
    return group


def _tensor(t: Any, what: str = "tensor") -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type "
                        f"torch.Tensor but got {type(t).__name__} instead.")
    return t


def _contiguous(t: Tensor) -> Tensor:
    if not t.is_contiguous():
        raise RuntimeError("input tensor has to be contiguous")
    return t


def _peer(peer: int | None, group_peer: int | None, group: ProcessGroup, role: str) -> int:
    """The global rank of a p2p peer given as a global or a group rank; validated."""
    ranks = group._ranks()
    if group_peer is not None:
        if peer is not None:
            raise ValueError(f"Cannot specify both {role} and group_{role}")
        peer = ranks[group_peer]
    if peer is None:
        raise ValueError(f"{role} rank must be given")
    peer = int(peer)
    ctx = current()
    if peer not in ranks:
        raise ValueError(f"Invalid {role} rank {peer}: the group holds ranks {ranks}")
    if peer == ctx.rank:
        raise ValueError(
            f"Invalid {'destination' if role == 'dst' else 'source'} rank: "
            f"{'destination' if role == 'dst' else 'source'} rank should not be the same as "
            "the rank of the current process."
        )
    return peer


def _member(group: ProcessGroup) -> tuple[list[int], int] | None:
    ranks = group._ranks()
    me = current().rank
    return (ranks, ranks.index(me)) if me in ranks else None


def _finish(work: Work, async_op: bool) -> Work | None:
    if async_op:
        return work
    work.wait()
    return None


def _record(call: Call | None, t: Tensor, group: ProcessGroup, *, peer: int | None = None,
            nbytes: int | None = None, root: int | None = None,
            split_bytes: list[int] | None = None) -> None:
    ranks = group._ranks()
    record(call, peer=peer, nbytes=t.nbytes if nbytes is None else nbytes, count=t.numel(),
           dtype=t.dtype.name, group_rank=ranks.index(current().rank), group_size=len(ranks),
           root=None if root is None else ranks.index(root), split_bytes=split_bytes)


# ---- point to point ----------------------------------------------------------------------------


def _isend(t: Any, dst: int | None, group: Any, tag: int, api: str,
           group_dst: int | None = None) -> Work:
    call = check(api, "send")
    g = _resolve(group)
    t = _contiguous(_tensor(t))
    peer = _peer(dst, group_dst, g, "dst")
    _record(call, t, g, peer=peer)
    return comm.isend(current(), t, peer, f"p{g._gid}.{tag}")


def _irecv(t: Any, src: int | None, group: Any, tag: int, api: str,
           group_src: int | None = None) -> Work:
    call = check(api, "recv")
    g = _resolve(group)
    t = _contiguous(_tensor(t))
    peer = None if src is None and group_src is None else _peer(src, group_src, g, "src")
    _record(call, t, g, peer=peer)
    return comm.irecv(current(), t, peer, f"p{g._gid}.{tag}")


def isend(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
          group_dst: int | None = None) -> Work:
    """Send ``tensor`` to ``dst`` without waiting; ``wait()`` the returned Work."""
    return _isend(tensor, dst, group, tag, "isend", group_dst)


def irecv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
          group_src: int | None = None) -> Work:
    """Receive into ``tensor`` from ``src`` (None: any) without waiting; ``wait()`` the Work."""
    return _irecv(tensor, src, group, tag, "irecv", group_src)


def send(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
         group_dst: int | None = None) -> None:
    """Send ``tensor`` to ``dst``; returns once ``dst`` has posted the matching receive."""
    _isend(tensor, dst, group, tag, "send", group_dst).wait()


def recv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into ``tensor`` from ``src`` (None: any); returns the sender's rank."""
    work = _irecv(tensor, src, group, tag, "recv", group_src)
    work.wait()
    return work.source_rank()


class P2POp:
    """One operation of ``batch_isend_irecv``: ``P2POp(dist.isend or dist.irecv, tensor, peer)``."""

    def __init__(self, op: Callable[..., Any], tensor: Tensor, peer: int | None = None,
                 group: Any = None, tag: int = 0, group_peer: int | None = None) -> None:
        if op is not isend and op is not irecv:
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                "``torch.distributed.irecv``."
            )
        self.op = op
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag
        self.group_peer = group_peer


def batch_isend_irecv(p2p_op_list: Sequence[P2POp]) -> list[Work]:
    """Post every operation of the list; returns their Works, to ``wait()``."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(_isend(p.tensor, p.peer, p.group, p.tag, "batch_isend_irecv",
                                p.group_peer))
        else:
            works.append(_irecv(p.tensor, p.peer, p.group, p.tag, "batch_isend_irecv",
                                p.group_peer))
    return works


# ---- collectives -------------------------------------------------------------------------------


def _all_reduce(t: Any, op: ReduceOp, group: Any, api: str) -> Work:
    call = check(api, "all_reduce")
    g = _resolve(group)
    t = _tensor(t)
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    _record(call, t, g)

    def done(parts: list[bytes]) -> None:
        values = [comm.values_of(p, t.dtype) for p in parts]
        t._write(comm.reduce_values(op, values, t.dtype, "all_reduce"))

    return comm.exchange(current(), g._gid, member[0], "all_reduce", comm.payload_of(t), done)


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> Work | None:
    """Reduce ``tensor`` elementwise over all ranks, in place on every rank."""
    return _finish(_all_reduce(tensor, op, group, "all_reduce"), async_op)


def _reduce_scatter_tensor(output: Any, input: Any, op: ReduceOp, group: Any,
                           api: str) -> Work:
    call = check(api, "reduce_scatter")
    g = _resolve(group)
    output, input = _tensor(output, "output"), _tensor(input, "input")
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    if input.numel() != output.numel() * len(member[0]):
        raise ValueError(
            f"reduce_scatter_tensor: the input must hold world_size × the output's elements "
            f"({len(member[0])} × {output.numel()}), it holds {input.numel()}"
        )
    _record(call, input, g)
    return _reduce_scatter_exchange(output, input, op, g, member)


def _reduce_scatter_exchange(output: Tensor, flat: Tensor, op: ReduceOp, g: ProcessGroup,
                             member: tuple[list[int], int]) -> Work:
    """Reduce ``flat`` over the group; this rank keeps its block in ``output``."""
    ranks, me = member
    n = output.numel()

    def done(parts: list[bytes]) -> None:
        values = [comm.values_of(p, flat.dtype)[me * n:(me + 1) * n] for p in parts]
        output._write(to_array(comm.reduce_values(op, values, flat.dtype, "reduce_scatter"),
                               output.dtype, flat.dtype))

    return comm.exchange(current(), g._gid, ranks, "reduce_scatter", comm.payload_of(flat), done)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: Any = None, async_op: bool = False) -> Work | None:
    """Reduce ``input`` over all ranks; rank r keeps the r-th of ``world_size`` equal blocks."""
    return _finish(_reduce_scatter_tensor(output, input, op, group, "reduce_scatter_tensor"),
                   async_op)


def _reduce_scatter(output: Any, input_list: list[Tensor], op: ReduceOp, group: Any,
                    api: str) -> Work:
    from .functional import cat

    call = check(api, "reduce_scatter")
    g = _resolve(group)
    output = _tensor(output, "output")
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    if len(input_list) != len(member[0]):
        raise ValueError("reduce_scatter: input_list must hold one tensor per rank of the group")
    flat = cat([_tensor(t, "input_list").reshape(-1) for t in input_list])
    if flat.numel() != output.numel() * len(member[0]):
        raise ValueError("reduce_scatter: every tensor of input_list must have the output's size")
    _record(call, output, g, nbytes=flat.nbytes)
    return _reduce_scatter_exchange(output, flat, op, g, member)


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: ReduceOp = ReduceOp.SUM,
                   group: Any = None, async_op: bool = False) -> Work | None:
    """Reduce the lists over all ranks; rank r keeps the reduction of everyone's r-th tensor."""
    return _finish(_reduce_scatter(output, input_list, op, group, "reduce_scatter"), async_op)


def _gathered(parts: list[bytes], dtype: Any) -> list[Any]:
    return [comm.values_of(p, dtype) for p in parts]


def _all_gather(tensor_list: list[Tensor], t: Any, group: Any, api: str) -> Work:
    call = check(api, "all_gather")
    g = _resolve(group)
    t = _tensor(t)
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    if len(tensor_list) != len(member[0]):
        raise ValueError("all_gather: tensor_list must hold one tensor per rank of the group")
    outputs = [_tensor(o, "tensor_list") for o in tensor_list]
    _record(call, t, g, nbytes=sum(o.nbytes for o in outputs))

    def done(parts: list[bytes]) -> None:
        for o, values in zip(outputs, _gathered(parts, t.dtype), strict=True):
            if len(values) != o.numel():
                raise RuntimeError(f"all_gather: a rank sent {len(values)} elements into a "
                                   f"tensor of {o.numel()}")
            o._write(to_array(values, o.dtype, t.dtype))

    return comm.exchange(current(), g._gid, member[0], "all_gather", comm.payload_of(t), done)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: Any = None,
               async_op: bool = False) -> Work | None:
    """Every rank's ``tensor`` into ``tensor_list`` (one entry per rank) on every rank."""
    return _finish(_all_gather(tensor_list, tensor, group, "all_gather"), async_op)


def _all_gather_into(output: Any, input: Any, group: Any, api: str) -> Work:
    call = check(api, "all_gather")
    g = _resolve(group)
    output, input = _tensor(output, "output_tensor"), _tensor(input, "input_tensor")
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    if output.numel() != input.numel() * len(member[0]):
        raise ValueError(
            f"all_gather_into_tensor: the output must hold world_size × the input's elements "
            f"({len(member[0])} × {input.numel()}), it holds {output.numel()}"
        )
    _record(call, input, g, nbytes=output.nbytes)

    def done(parts: list[bytes]) -> None:
        values = comm.values_of(b"".join(parts), input.dtype)
        output._write(to_array(values, output.dtype, input.dtype))

    return comm.exchange(current(), g._gid, member[0], "all_gather", comm.payload_of(input), done)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                           async_op: bool = False) -> Work | None:
    """Every rank's ``input_tensor``, concatenated in rank order, into ``output_tensor``."""
    return _finish(_all_gather_into(output_tensor, input_tensor, group, "all_gather_into_tensor"),
                   async_op)


def _all_to_all_single(output: Any, input: Any, output_split_sizes: Sequence[int] | None,
                       input_split_sizes: Sequence[int] | None, group: Any, api: str) -> Work:
    call = check(api, "all_to_all")
    g = _resolve(group)
    output, input = _tensor(output, "output"), _tensor(input, "input")
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    ranks, me = member
    n = len(ranks)
    in_rows = _splits(input, input_split_sizes, n)
    out_rows = _splits(output, output_split_sizes, n)
    row = input.numel() // input.shape[0] if input.dim() and input.shape[0] else 1
    payloads, start = [], 0
    values = input._read()
    for rows in in_rows:
        payloads.append(values[start * row:(start + rows) * row].tobytes())
        start += rows
    _record(call, input, g, split_bytes=[r * row * input.element_size() for r in in_rows]
            if input_split_sizes is not None else None)

    def done(parts: list[bytes]) -> None:
        got = [comm.values_of(p, input.dtype) for p in parts]
        for i, values in enumerate(got):
            if len(values) != out_rows[i] * row:
                raise RuntimeError("Split sizes doesn't match total dim 0 size")
        output._write(to_array([v for values in got for v in values], output.dtype, input.dtype))

    return comm.exchange(current(), g._gid, ranks, "all_to_all", payloads, done)


def _splits(t: Tensor, sizes: Sequence[int] | None, n: int) -> list[int]:
    rows = t.shape[0] if t.dim() else 1
    if sizes is None:
        if rows % n:
            raise RuntimeError(f"Tensor's dim 0 does not divide equally across group size "
                               f"(dim 0 is {rows}, the group has {n} ranks)")
        return [rows // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or sum(sizes) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    return sizes


def all_to_all_single(output: Tensor, input: Tensor,
                      output_split_sizes: Sequence[int] | None = None,
                      input_split_sizes: Sequence[int] | None = None, group: Any = None,
                      async_op: bool = False) -> Work | None:
    """Split ``input`` along dim 0 (equally, or by ``input_split_sizes``); block i goes to rank
    i; ``output`` receives rank j's block in position j."""
    return _finish(_all_to_all_single(output, input, output_split_sizes, input_split_sizes,
                                      group, "all_to_all_single"), async_op)


def _all_to_all(output_list: list[Tensor], input_list: list[Tensor], group: Any, api: str) -> Work:
    call = check(api, "all_to_all")
    g = _resolve(group)
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    ranks, _ = member
    if len(output_list) != len(ranks) or len(input_list) != len(ranks):
        raise ValueError("all_to_all: the lists must hold one tensor per rank of the group")
    outputs = [_tensor(o, "output_tensor_list") for o in output_list]
    inputs = [_tensor(t, "input_tensor_list") for t in input_list]
    sizes = [t.nbytes for t in inputs]
    record(call, peer=None, nbytes=sum(sizes), count=sum(t.numel() for t in inputs),
           dtype=inputs[0].dtype.name, group_rank=member[1], group_size=len(ranks),
           split_bytes=sizes)

    def done(parts: list[bytes]) -> None:
        for o, p, src in zip(outputs, parts, inputs, strict=True):
            values = comm.values_of(p, src.dtype)
            if len(values) != o.numel():
                raise RuntimeError(f"all_to_all: a rank sent {len(values)} elements into a "
                                   f"tensor of {o.numel()}")
            o._write(to_array(values, o.dtype, src.dtype))

    return comm.exchange(current(), g._gid, ranks, "all_to_all",
                         [comm.payload_of(t) for t in inputs], done)


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor],
               group: Any = None, async_op: bool = False) -> Work | None:
    """``input_tensor_list[i]`` goes to rank i; ``output_tensor_list[j]`` comes from rank j."""
    return _finish(_all_to_all(output_tensor_list, input_tensor_list, group, "all_to_all"),
                   async_op)


def _root(root: int | None, group_root: int | None, g: ProcessGroup, what: str) -> int:
    ranks = g._ranks()
    if group_root is not None:
        root = ranks[group_root]
    if root is None:
        root = ranks[0]
    if root not in ranks:
        raise ValueError(f"{what}: rank {root} is not in the group (ranks {ranks})")
    return int(root)


def _broadcast(t: Any, src: int | None, group_src: int | None, group: Any, api: str) -> Work:
    call = check(api, "broadcast")
    g = _resolve(group)
    t = _tensor(t)
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    ranks, _ = member
    root = _root(src, group_src, g, "broadcast")
    _record(call, t, g, peer=root, root=root)
    me = current().rank
    payload = comm.payload_of(t) if me == root else b""

    def done(parts: list[bytes]) -> None:
        if me != root:
            values = comm.values_of(parts[ranks.index(root)], t.dtype)
            if len(values) != t.numel():
                raise RuntimeError(f"broadcast: rank {root} sent {len(values)} elements into a "
                                   f"tensor of {t.numel()}")
            t._write(values)

    return comm.exchange(current(), g._gid, ranks, "broadcast", payload, done)


def broadcast(tensor: Tensor, src: int | None = None, group: Any = None, async_op: bool = False,
              group_src: int | None = None) -> Work | None:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank."""
    return _finish(_broadcast(tensor, src, group_src, group, "broadcast"), async_op)


def _reduce(t: Any, dst: int | None, group_dst: int | None, op: ReduceOp, group: Any,
            api: str) -> Work:
    call = check(api, "reduce")
    g = _resolve(group)
    t = _tensor(t)
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    ranks, _ = member
    root = _root(dst, group_dst, g, "reduce")
    _record(call, t, g, peer=root, root=root)
    me = current().rank
    payload = [comm.payload_of(t) if r == root else b"" for r in ranks]

    def done(parts: list[bytes]) -> None:
        if me == root:
            values = [comm.values_of(p, t.dtype) for p in parts]
            t._write(comm.reduce_values(op, values, t.dtype, "reduce"))

    return comm.exchange(current(), g._gid, ranks, "reduce", payload, done)


def reduce(tensor: Tensor, dst: int | None = None, op: ReduceOp = ReduceOp.SUM,
           group: Any = None, async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """Reduce ``tensor`` over all ranks into rank ``dst``'s ``tensor``."""
    return _finish(_reduce(tensor, dst, group_dst, op, group, "reduce"), async_op)


def _gather(t: Any, gather_list: list[Tensor] | None, dst: int | None, group_dst: int | None,
            group: Any, api: str) -> Work:
    call = check(api, "gather")
    g = _resolve(group)
    t = _tensor(t)
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    ranks, _ = member
    root = _root(dst, group_dst, g, "gather")
    me = current().rank
    if me == root and (gather_list is None or len(gather_list) != len(ranks)):
        raise ValueError("gather: the destination rank must pass gather_list with one tensor "
                         "per rank of the group")
    if me != root and gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    _record(call, t, g, peer=root, root=root)
    payload = [comm.payload_of(t) if r == root else b"" for r in ranks]

    def done(parts: list[bytes]) -> None:
        if me == root and gather_list is not None:
            for o, values in zip(gather_list, _gathered(parts, t.dtype), strict=True):
                if len(values) != o.numel():
                    raise RuntimeError(f"gather: a rank sent {len(values)} elements into a "
                                       f"tensor of {o.numel()}")
                o._write(to_array(values, o.dtype, t.dtype))

    return comm.exchange(current(), g._gid, ranks, "gather", payload, done)


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None,
           group: Any = None, async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    return _finish(_gather(tensor, gather_list, dst, group_dst, group, "gather"), async_op)


def _scatter(t: Any, scatter_list: list[Tensor] | None, src: int | None, group_src: int | None,
             group: Any, api: str) -> Work:
    call = check(api, "scatter")
    g = _resolve(group)
    t = _tensor(t)
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    ranks, _ = member
    root = _root(src, group_src, g, "scatter")
    me = current().rank
    if me == root and (scatter_list is None or len(scatter_list) != len(ranks)):
        raise ValueError("scatter: the source rank must pass scatter_list with one tensor per "
                         "rank of the group")
    if me != root and scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    pieces = [_tensor(s, "scatter_list") for s in scatter_list] if me == root and scatter_list \
        else []
    total = sum(s.nbytes for s in pieces) if pieces else t.nbytes * len(ranks)
    _record(call, t, g, peer=root, root=root, nbytes=total)
    payload = [comm.payload_of(s) for s in pieces] if pieces else [b""] * len(ranks)

    def done(parts: list[bytes]) -> None:
        values = comm.values_of(parts[ranks.index(root)], pieces[0].dtype if pieces else t.dtype)
        if len(values) != t.numel():
            raise RuntimeError(f"scatter: rank {root} sent {len(values)} elements into a tensor "
                               f"of {t.numel()}")
        t._write(to_array(values, t.dtype, t.dtype))

    return comm.exchange(current(), g._gid, ranks, "scatter", payload, done)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None,
            group: Any = None, async_op: bool = False, group_src: int | None = None) -> Work | None:
    """Rank ``src``'s ``scatter_list[i]`` into ``tensor`` on rank i."""
    return _finish(_scatter(tensor, scatter_list, src, group_src, group, "scatter"), async_op)


def _barrier(group: Any, api: str) -> Work:
    call = check(api, "barrier")
    g = _resolve(group)
    member = _member(g)
    if member is None:
        return Work(lambda: None, lambda: True)
    ranks, me = member
    record(call, peer=None, nbytes=0, count=0, dtype="none", group_rank=me, group_size=len(ranks))
    return comm.exchange(current(), g._gid, ranks, "barrier", b"", lambda parts: None)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Work | None:
    """Wait until every rank of the group reaches the barrier."""
    return _finish(_barrier(group, "barrier"), async_op)


def monitored_barrier(group: Any = None, timeout: Any = None, wait_all_ranks: bool = False) -> None:
    """``barrier`` (there is nothing to monitor here)."""
    _barrier(group, "monitored_barrier").wait()


# ---- set-up and queries ------------------------------------------------------------------------


def init_process_group(backend: Any = None, init_method: Any = None, timeout: Any = None,
                       world_size: int = -1, rank: int = -1, **kwargs: Any) -> None:
    """Nothing to do: the judge creates the process group before the learner's code runs."""
    current()


def destroy_process_group(group: Any = None) -> None:
    """Nothing to do inside the judge (it tears the group down itself)."""


def is_initialized() -> bool:
    """Whether the process group exists (always, on a rank)."""
    return in_rank()


def is_available() -> bool:
    """``torch.distributed`` is available."""
    return True


def is_gloo_available() -> bool:
    """The simulated backend stands for gloo."""
    return True


def is_nccl_available() -> bool:
    """No NCCL here."""
    return False


def is_mpi_available() -> bool:
    """No MPI here."""
    return False


def is_torchelastic_launched() -> bool:
    """The ranks are launched as torchrun would."""
    return True


def get_backend(group: Any = None) -> str:
    """The backend's name."""
    return "gloo"


def get_rank(group: Any = None) -> int:
    """This rank's index in ``group`` (default: the world), or -1 if not a member."""
    return _resolve(group).rank()


def get_world_size(group: Any = None) -> int:
    """The number of ranks in ``group`` (default: the world)."""
    return _resolve(group).size()


def get_process_group_ranks(group: Any) -> list[int]:
    """The global ranks of a group."""
    return _resolve(group)._ranks()


def get_global_rank(group: Any, group_rank: int) -> int:
    """The global rank of a group rank."""
    return _resolve(group)._ranks()[group_rank]


def get_group_rank(group: Any, global_rank: int) -> int:
    """The group rank of a global rank."""
    return _resolve(group)._ranks().index(global_rank)


def new_group(ranks: Sequence[int] | None = None, timeout: Any = None, backend: Any = None,
              pg_options: Any = None, use_local_synchronization: bool = False,
              group_desc: str | None = None) -> Any:
    """A group of ``ranks`` (default: all). Every rank must call it, in the same order."""
    ctx = current()
    ctx.groups_made += 1
    members = tuple(sorted(int(r) for r in ranks)) if ranks is not None else None
    if members is not None and any(not 0 <= r < ctx.world for r in members):
        raise ValueError(f"new_group: ranks must lie in 0..{ctx.world - 1}, got {list(members)}")
    if members is not None and ctx.rank not in members:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(ctx.groups_made, members)
