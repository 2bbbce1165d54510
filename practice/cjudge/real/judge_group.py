"""A rank's process group on real torch: every call is a request to the judge's switch.

``torch.distributed`` hands each call of a group to its process group object; here that object
is :class:`JudgeGroup`, a Python ``ProcessGroup`` registered as the backend ``"judge"``. It sends
the tensors' bytes to the switch over the rank's private channel (:class:`ChannelPort`) and
writes what the switch answers back into the tensors, as gloo would (``all_reduce``,
``broadcast``, ``reduce``, ``scatter`` and ``all_to_all_single``'s output use a tensor's memory
from its first element on, ignoring strides; the other calls respect strides). No gloo, no TCP
store, no connection between ranks: nothing but this channel leaves the rank.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from types import FrameType
from typing import Any, cast

import torch
import torch.distributed as dist

from ..contract.primitives import blocks_of, check_sizes, equal_blocks, row_elements, same_shapes, split_rows
from ..contract.protocol import TensorData, bilingual
from ..rank.learner import ForbiddenPrimitive, caller_line
from ..switch import packed, shm
from ..switch.wire import EndRecord, Reply, head_of, read_frame, read_hello

BACKEND = "judge"
#: payload bytes of quiet posts a rank holds back before it sends them anyway
HELD_BYTES = 8388608
#: seconds a quiet post waits for the rank's next request before it goes alone: a rank that
#: posts and then computes must not hold back what its peers wait for (gloo would deliver it)
HELD_S = 0.002
#: torch's files whose functions are what a learner calls (their names go into the trace)
_API_FILES = ("distributed_c10d.py", "_functional_collectives.py")
_REDUCE_OPS = {dist.ReduceOp.SUM: "sum", dist.ReduceOp.AVG: "avg", dist.ReduceOp.PRODUCT: "product",
               dist.ReduceOp.MIN: "min", dist.ReduceOp.MAX: "max", dist.ReduceOp.BAND: "band",
               dist.ReduceOp.BOR: "bor", dist.ReduceOp.BXOR: "bxor"}


class ChannelPort:
    """The rank's door to the switch over its channel (``switch.port.Port``); blocking calls."""

    def __init__(self, sock: socket.socket, rank: int, world: int, allowed: Sequence[str],
                 filename: str) -> None:
        self.sock, self.rank, self.world = sock, rank, world
        self.allowed, self.filename = frozenset(allowed), filename
        self.graded = False  # inside the graded call: the exercise's rules apply
        self.posts = 0  # this rank's request numbers so far
        #: quiet posts not sent yet (``hold``): each one's header and payload, encoded only as
        #: they are sent, so that a wait on the last one can still join its header (``wait``)
        self._held: list[tuple[dict[str, object], Sequence[packed.Raw]]] = []
        self._held_bytes = 0
        self._writing = False  # inside ``send``, ``hold`` or ``_flush``: the alarm waits
        self._armed = False  # an alarm is set to send what is held (``_on_alarm``)
        self.segment: shm.Segment | None = None  # shared with the judge, once it said hello
        signal.signal(signal.SIGALRM, self._on_alarm)
        # the alarm restarts the system calls it lands in: torch's threads and C++ code need
        # not retry an EINTR the learner never caused (Python retries its own either way)
        signal.siginterrupt(signal.SIGALRM, False)

    def send(self, header: Mapping[str, object], parts: Sequence[packed.Raw]) -> None:
        """One frame whose payload is ``parts`` one after another, sent without joining them,
        after the quiet posts held back (one write, one wake-up of the judge, for all)."""
        self._writing = True
        try:
            self._held.append(self._frame(header, parts))
            self._flush()
        finally:
            self._writing = False

    def hold(self, header: Mapping[str, object], payload: packed.Raw) -> None:
        """A quiet post: it needs no answer, so it goes with the rank's next request (whatever
        it waits for is that request's), or alone :data:`HELD_S` later if the rank computes
        meanwhile; past :data:`HELD_BYTES` held it goes now."""
        self._writing = True
        try:
            self._held.append(self._frame(header, (payload,)))
            self._held_bytes += memoryview(payload).nbytes
            if self._held_bytes > HELD_BYTES:
                self._flush()
            elif not self._armed:
                self._arm()
        finally:
            self._writing = False

    def _frame(self, header: Mapping[str, object],
               parts: Sequence[packed.Raw]) -> tuple[dict[str, object], Sequence[packed.Raw]]:
        """A request's header and payload, the payload placed in the shared segment if it fits
        there (the header then names its place, and the frame carries none)."""
        at = None if self.segment is None else self.segment.place(parts)
        if at is None:  # in the frame: a copy, as the tensor may change before it is sent
            return dict(header), [p if isinstance(p, bytes) else bytes(p) for p in parts]
        return {**header, shm.FIELD: at}, ()

    def hello(self) -> None:
        """Join the switch as this rank; map the segment it shares with this rank, if any."""
        self.send({"request": "hello", "rank": self.rank}, ())
        header, fd = read_hello(self.sock)
        if "error" in header:
            raise bilingual(RuntimeError, header["error"], header.get("zh"))
        if fd is not None:
            try:
                self.segment = shm.Segment(fd, header.get("area", 0))
            finally:
                os.close(fd)

    def _arm(self) -> None:
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, HELD_S)

    def _on_alarm(self, signum: int, frame: FrameType | None) -> None:
        """The rank computed past :data:`HELD_S` after a quiet post: send what is held (unless
        the rank is writing to its channel right now: then a little later)."""
        self._armed = False
        if self._writing and self._held:
            self._arm()
        elif self._held:
            self._flush()

    def _flush(self) -> None:
        """Write every frame held, in order."""
        out = [piece for header, parts in self._held for piece in _frame(header, parts)]
        self._held, self._held_bytes = [], 0
        while out:
            sent = self.sock.sendmsg(out[:64])
            while sent and sent >= out[0].nbytes:
                sent -= out.pop(0).nbytes
            if sent:
                out[0] = out[0][sent:]

    def call(self, request: str, payload: packed.Raw = b"", parts: Sequence[packed.Raw] = (),
             **fields: Any) -> tuple[Reply, bytearray | memoryview]:
        """One request (its payload ``payload``, or ``parts``) and its reply; the switch's
        refusal raised as torch would raise it."""
        self.send({"request": request, **fields}, parts or (payload,))
        return self._answer()

    def _answer(self) -> tuple[Reply, bytearray | memoryview]:
        """The reply to the request just sent; the switch's refusal raised as torch would."""
        header, framed = read_frame(self.sock)
        data: bytearray | memoryview = framed
        if self.segment is not None:
            self.segment.replied()
            if "shm" in header:  # the reply's payload is in the judge's area
                data = self.segment.reply(header["shm"])
        if "error" in header:
            if "forbidden" in header:
                raise ForbiddenPrimitive(header["forbidden"], self.allowed, header.get("api"))
            raise bilingual(RuntimeError, header["error"], header.get("zh"))
        return header, data

    def where(self) -> tuple[int | None, str]:
        """The learner's line making the call, and the torch.distributed function it called."""
        api: str | None = None
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename.endswith(_API_FILES):
                api = frame.f_code.co_name
            elif api is not None:
                break
            frame = frame.f_back
        return caller_line(self.filename), api or ""

    def post(self, request: str, op_kind: str, payload: packed.Raw, **fields: Any) -> int:
        """Post a request under the rank's next number, without waiting for an answer: what the
        switch refuses is raised at the number's ``test`` or ``wait``. A call the exercise
        forbids waits for the switch's refusal, so that it fails at the call."""
        self.posts += 1
        quiet = not self.graded or op_kind in self.allowed
        if quiet:
            self.hold({"request": request, "handle": self.posts, "quiet": True, **fields},
                      payload)
        else:
            self.call(request, payload, handle=self.posts, quiet=False, **fields)
        return self.posts

    def new_group(self, ranks: Sequence[int]) -> int:
        return cast(int, self.call("new_group", ranks=list(ranks))[0]["ok"])

    def post_send(self, group: int, dst: int, tag: int, payload: packed.Raw, dtype: str) -> int:
        line, api = self.where()
        return self.post("post_send", "send", payload, group=group, dst=dst, tag=tag,
                         dtype=dtype, line=line, api=api or "ProcessGroup.send")

    def post_recv(self, group: int, src: int | None, tag: int, capacity: int, dtype: str) -> int:
        line, api = self.where()
        return self.post("post_recv", "recv", b"", group=group, src=src, tag=tag,
                         capacity=capacity, dtype=dtype, line=line,
                         api=api or "ProcessGroup.recv")

    def post_collective(self, group: int, kind: str, payload: packed.Raw, dtype: str,
                        method: str = "",
                        op: str | None = None, root: int | None = None,
                        splits: list[int] | None = None, *, line: int | None = None,
                        api: str | None = None) -> int:
        """Post a collective; ``line`` and ``api`` default to the learner's call of a torch
        function (the judge's own calls, symmetric memory's, give theirs)."""
        if api is None:
            line, api = self.where()
        return self.post("post_collective", kind, payload, group=group, kind=kind, dtype=dtype,
                         line=line, api=api or f"ProcessGroup.{method}", op=op, root=root,
                         splits=splits)

    def test(self, handle: int) -> bool:
        return cast(bool, self.call("test", handle=handle)[0]["ok"])

    def wait(self, handle: int, line: int | None = None) -> tuple[int | None, bytes]:
        """Wait on request ``handle`` (at the learner's ``line``). A wait on the quiet post held
        last, a blocking call's, joins that post's frame: one frame for the judge to read and
        handle, post then wait, as two frames in a row would be."""
        self._writing = True  # the alarm must not send the post before the wait joins it
        try:
            last = self._held[-1][0] if self._held else None
            if last is not None and last["handle"] == handle:
                last.update(wait=True, wait_line=line)
                self._flush()
            else:
                self.send({"request": "wait", "handle": handle, "line": line}, ())
        finally:
            self._writing = False
        header, data = self._answer()
        # the frame's bytearray, or a view of the shared area that the caller's ``done`` copies
        # out before the rank's next request
        return header["src"], data  # type: ignore[return-value]

    def compute(self, handle: int, payload: packed.Raw, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        _, data = self.call("compute", payload, handle=handle, dtype=dtype, shape=shape,
                            args=args, line=line)
        # the frame's bytearray as it is; the shared area copied (the caller keeps it)
        return bytes(data) if isinstance(data, memoryview) else data  # type: ignore[return-value]

    def begin(self) -> TensorData | None:
        """The rank's case input, each tensor's ``data`` a tensor over the reply's bytes."""
        header, data = self.call("begin")
        self.graded = True
        mine: TensorData | None = packed.unpack(header["ok"], data, _tensor_over)
        return mine

    def end(self, record: EndRecord) -> None:
        """The rank's last word: its result, tensors packed as bytes (``packed``), or error."""
        self.graded = False
        output, parts = packed.pack(record.get("output"))
        self.call("end", parts=parts, output=output, error=record.get("error"))


def _tensor_over(view: memoryview, dtype: str) -> torch.Tensor:
    """A flat tensor of ``view``'s bytes, in storage of its own (resizable, as any tensor)."""
    kind = getattr(torch, dtype)
    return torch.frombuffer(view, dtype=kind).clone() if view.nbytes else \
        torch.empty(0, dtype=kind)


def _frame(header: Mapping[str, object], parts: Sequence[packed.Raw]) -> list[memoryview]:
    """A frame's pieces: its lengths and header, then its payload's parts (none empty)."""
    size = sum(memoryview(p).nbytes for p in parts)
    return [memoryview(b) for b in (head_of(header, size), *parts) if len(b)]


def _bytes(t: torch.Tensor) -> packed.Raw:
    """A contiguous tensor's memory: a view of it that keeps it alive (the port copies it when
    it posts it), or a copy for a dtype numpy lacks or where numpy is not installed (torch
    does not need it)."""
    if not t.numel():
        return b""
    try:
        return t.detach().reshape(-1).numpy().data.cast("B")
    except (TypeError, RuntimeError):  # bfloat16, say; RuntimeError: "Numpy is not available"
        return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def payload_of(t: torch.Tensor) -> packed.Raw:
    """The tensor's elements in row-major order (strides respected)."""
    return _bytes(t.detach().contiguous())


def _raw(t: torch.Tensor) -> torch.Tensor:
    """gloo's view of a tensor: ``numel`` elements of memory from the first one."""
    return t.as_strided((t.numel(),), (1,))


def raw_payload(t: torch.Tensor) -> packed.Raw:
    """gloo's view of a tensor's memory (strides ignored)."""
    return _bytes(_raw(t.detach()))


def _values(data: packed.Raw, dtype: torch.dtype) -> torch.Tensor:
    """The whole elements of ``data`` (a received buffer is used in place, not copied)."""
    count = len(data) // dtype.itemsize
    if not count:
        return torch.empty(0, dtype=dtype)
    buffer = data if isinstance(data, (bytearray, memoryview)) else bytearray(data)
    return torch.frombuffer(buffer, dtype=dtype, count=count)


def write(t: torch.Tensor, data: bytes, what: str) -> None:
    """Write ``data`` into ``t`` (strides respected); it must fill it exactly."""
    values = _values(data, t.dtype)
    if values.numel() != t.numel():
        raise RuntimeError(f"{what}: a rank sent {values.numel()} elements into a tensor of "
                           f"{t.numel()}")
    with torch.no_grad():
        t.copy_(values.view(t.shape))


def raw_write(t: torch.Tensor, data: bytes) -> None:
    """Write ``data`` into memory from ``t``'s first element on, as gloo does."""
    values = _values(data, t.dtype)
    with torch.no_grad():
        _raw(t)[:values.numel()].copy_(values)


class JudgeWork(dist._Work):
    """A pending request: ``wait()`` blocks on the switch, then puts the result in place."""

    def __init__(self, port: ChannelPort, handle: int, done: Callable[[bytes], None],
                 tensors: Sequence[torch.Tensor] = ()) -> None:
        super().__init__()
        self._port, self._handle, self._done_fn = port, handle, done
        self._tensors, self._finished, self._src = list(tensors), False, -1

    def wait(self, timeout: timedelta | None = None) -> bool:
        if not self._finished:
            self._finished = True
            src, data = self._port.wait(self._handle, caller_line(self._port.filename))
            self._src = -1 if src is None else src
            self._done_fn(data)
        return True

    def is_completed(self) -> bool:
        if not self._finished and self._port.test(self._handle):
            self.wait()
        return self._finished

    def is_success(self) -> bool:
        return self.is_completed()

    def exception(self) -> None:
        return None

    def _source_rank(self) -> int:
        return self._src

    def source_rank(self) -> int:
        return self._src

    def result(self) -> list[torch.Tensor]:
        return self._tensors

    def synchronize(self) -> None:
        return None


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _one(tensors: Any) -> torch.Tensor:
    if isinstance(tensors, torch.Tensor):
        return tensors
    if isinstance(tensors, (list, tuple)) and len(tensors) == 1:
        return cast(torch.Tensor, tensors[0])
    raise RuntimeError("the judge's process group takes one tensor per rank and call")


def _inner(lists: Any) -> list[torch.Tensor]:
    return list(lists[0]) if lists and isinstance(lists[0], (list, tuple)) else list(lists)


class JudgeGroup(dist.ProcessGroup):
    """A process group whose every operation goes through the judge's switch."""

    def __init__(self, port: ChannelPort, gid: int, ranks: list[int]) -> None:
        # torch's stubs list only the (store, rank, size) constructor; a Python backend has none
        rank, size = ranks.index(port.rank), len(ranks)
        super().__init__(rank, size)  # type: ignore[call-arg]  # the stubs' (store, rank, size)
        self.port, self.gid, self.ranks = port, gid, ranks
        self._group_name = ""

    def getBackendName(self) -> str:  # noqa: N802 - torch's name
        return BACKEND

    @property
    def group_name(self) -> str:  # type: ignore[override]  # the stubs' GroupName is a NewType of str
        """The name torch registered the group under (functional collectives look it up)."""
        return self._group_name

    def _set_group_name(self, name: str) -> None:
        self._group_name = name

    # ---- point-to-point ----------------------------------------------------------------------

    def send(self, tensors: list[torch.Tensor], dstRank: int, tag: int = 0) -> JudgeWork:  # noqa: N803
        t = _one(tensors)
        if not t.is_contiguous():
            raise RuntimeError("input tensor has to be contiguous")
        handle = self.port.post_send(self.gid, self._peer(dstRank, "destination"), tag, _bytes(t),
                                     _name(t.dtype))
        return JudgeWork(self.port, handle, lambda data: None, [t])

    def _recv(self, tensors: list[torch.Tensor], src: int | None, tag: int) -> JudgeWork:
        t = _one(tensors)
        if not t.is_contiguous():
            raise RuntimeError("input tensor has to be contiguous")
        handle = self.port.post_recv(self.gid, src, tag, t.numel() * t.element_size(),
                                     _name(t.dtype))

        def done(data: bytes) -> None:
            values = _values(data, t.dtype)
            with torch.no_grad():
                t.view(-1)[:values.numel()].copy_(values)

        return JudgeWork(self.port, handle, done, [t])

    def recv(self, tensors: list[torch.Tensor], srcRank: int, tag: int = 0) -> JudgeWork:  # noqa: N803
        return self._recv(tensors, self._peer(srcRank, "source"), tag)

    def recv_anysource(self, tensors: list[torch.Tensor], tag: int = 0) -> JudgeWork:
        return self._recv(tensors, None, tag)

    # ---- collectives -------------------------------------------------------------------------

    def _post(self, kind: str, payload: packed.Raw, dtype: torch.dtype, done: Callable[[bytes], None],
              method: str, **kw: Any) -> JudgeWork:
        handle = self.port.post_collective(self.gid, kind, payload, _name(dtype), method, **kw)
        return JudgeWork(self.port, handle, done)

    def _global(self, group_rank: int) -> int:
        """The global rank of a rank of this group (torch's error for one it lacks)."""
        if not isinstance(group_rank, int) or not 0 <= group_rank < len(self.ranks):
            raise ValueError(f"Invalid rank {group_rank}: the group holds {len(self.ranks)} ranks "
                             f"(global ranks {self.ranks})")
        return self.ranks[group_rank]

    def _peer(self, group_rank: int, word: str) -> int:
        """The global rank of a point-to-point peer, which cannot be this rank itself."""
        peer = self._global(group_rank)
        if peer == self.port.rank:
            raise RuntimeError(f"Invalid {word} rank: {word} rank should not be the same as the "
                               "rank of the current process.")
        return peer

    def _root(self, opts: Any) -> int:
        return self._global(int(getattr(opts, "rootRank", 0)))

    def allreduce(  # type: ignore[override]  # c10d's backend form: (tensors, options)
            self, tensors: Any, opts: Any = None) -> JudgeWork:
        t = _one(tensors)
        return self._post("all_reduce", raw_payload(t), t.dtype, lambda d: raw_write(t, d),
                          "allreduce", op=_op(opts))

    def broadcast(  # type: ignore[override]  # c10d's backend form: (tensors, options)
            self, tensors: Any, opts: Any = None) -> JudgeWork:
        t, root = _one(tensors), self._root(opts)

        def done(data: bytes) -> None:
            if self.port.rank != root:
                raw_write(t, data)

        return self._post("broadcast", raw_payload(t), t.dtype, done, "broadcast", root=root)

    def reduce(  # type: ignore[override]  # c10d's backend form: (tensors, options)
            self, tensors: Any, opts: Any = None) -> JudgeWork:
        t, root = _one(tensors), self._root(opts)

        def done(data: bytes) -> None:
            if self.port.rank == root:
                raw_write(t, data)

        return self._post("reduce", raw_payload(t), t.dtype, done, "reduce", op=_op(opts),
                          root=root)

    def allgather(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> JudgeWork:
        outputs, t = _inner(output_tensors), _one(input_tensors)
        if len(outputs) != len(self.ranks):
            raise RuntimeError("ProcessGroupGloo::allgather: tensor_list must hold one tensor "
                               "per rank of the group")

        def done(data: bytes) -> None:
            for o, part in zip(outputs, equal_blocks(data, len(outputs)), strict=True):
                write(o, part, "all_gather")

        return self._post("all_gather", payload_of(t), t.dtype, done, "allgather")

    def all_gather_single(self, output: torch.Tensor, input: torch.Tensor,
                          opts: Any = None) -> JudgeWork:
        check_sizes("allgather_into_tensor", output, input, len(self.ranks))
        return self._post("all_gather", payload_of(input), input.dtype,
                          lambda d: write(output, d, "all_gather"), "all_gather_single")

    _allgather_base = all_gather_single

    def reduce_scatter(  # type: ignore[override]  # c10d's backend form: (tensors, options)
            self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> JudgeWork:
        output, inputs = _one(output_tensors), _inner(input_tensors)
        if len(inputs) != len(self.ranks) or any(t.numel() != output.numel() for t in inputs):
            raise RuntimeError("ProcessGroupGloo::reduce_scatter: input_list must hold one tensor "
                               "of the output's size per rank of the group")
        payload = b"".join(payload_of(t) for t in inputs)
        return self._post("reduce_scatter", payload, output.dtype,
                          lambda d: write(output, d, "reduce_scatter"), "reduce_scatter",
                          op=_op(opts))

    def reduce_scatter_single(self, output: torch.Tensor, input: torch.Tensor,
                              opts: Any = None) -> JudgeWork:
        check_sizes("reduce_scatter_tensor", input, output, len(self.ranks))
        return self._post("reduce_scatter", payload_of(input), input.dtype,
                          lambda d: write(output, d, "reduce_scatter"), "reduce_scatter_single",
                          op=_op(opts))

    _reduce_scatter_base = reduce_scatter_single  # type: ignore[assignment]  # the same backend form

    def alltoall_base(self, output: torch.Tensor, input: torch.Tensor,
                      output_split_sizes: list[int], input_split_sizes: list[int],
                      opts: Any = None) -> JudgeWork:
        if not input.is_contiguous():
            raise ValueError("Tensors must be contiguous")
        n = len(self.ranks)
        row, out_row = row_elements(input), row_elements(output)
        in_rows = split_rows(input, input_split_sizes, n)
        out_rows = split_rows(output, output_split_sizes, n)
        size = input.element_size()

        def done(data: bytes) -> None:
            if len(data) != sum(r * out_row * size for r in out_rows):
                raise RuntimeError("Split sizes doesn't match total dim 0 size")
            raw_write(output, data)

        return self._post("all_to_all", _bytes(input), input.dtype, done, "alltoall_base",
                          splits=[r * row * size for r in in_rows])

    def alltoall(self, output_tensors: list[torch.Tensor], input_tensors: list[torch.Tensor],
                 opts: Any = None) -> JudgeWork:
        if len(output_tensors) != len(self.ranks) or len(input_tensors) != len(self.ranks):
            raise RuntimeError("ProcessGroupGloo::alltoall: the lists must hold one tensor per "
                               "rank of the group")
        same_shapes("alltoall", [list(t.shape) for t in input_tensors])
        same_shapes("alltoall", [list(t.shape) for t in output_tensors])
        sizes = [o.numel() * o.element_size() for o in output_tensors]

        def done(data: bytes) -> None:
            if len(data) != sum(sizes):
                raise RuntimeError("all_to_all: the ranks' blocks do not fit the output tensors")
            for o, part in zip(output_tensors, blocks_of(data, sizes), strict=True):
                write(o, part, "all_to_all")

        payloads = [payload_of(t) for t in input_tensors]
        return self._post("all_to_all", b"".join(payloads), input_tensors[0].dtype, done,
                          "alltoall", splits=[len(p) for p in payloads])

    def gather(  # type: ignore[override]  # c10d's backend form: (tensors, options)
            self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> JudgeWork:
        t, root = _one(input_tensors), self._root(opts)
        outputs = _inner(output_tensors) if self.port.rank == root else []

        def done(data: bytes) -> None:
            for o, part in zip(outputs, equal_blocks(data, len(outputs)), strict=True):
                write(o, part, "gather")

        return self._post("gather", payload_of(t), t.dtype, done, "gather", root=root)

    def scatter(  # type: ignore[override]  # c10d's backend form: (tensors, options)
            self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> JudgeWork:
        t, root = _one(output_tensors), self._root(opts)
        pieces = _inner(input_tensors) if self.port.rank == root else []

        def done(data: bytes) -> None:
            if len(data) != t.numel() * t.element_size():
                raise RuntimeError(f"scatter: rank {root} sent {len(data) // t.element_size()} "
                                   f"elements into a tensor of {t.numel()}")
            raw_write(t, data)

        return self._post("scatter", b"".join(raw_payload(p) for p in pieces), t.dtype, done,
                          "scatter", root=root)

    def barrier(self, opts: Any = None) -> JudgeWork:
        return self._post("barrier", b"", torch.float32, lambda d: None, "barrier")

    monitored_barrier = barrier


def _op(opts: Any) -> str:
    op = getattr(opts, "reduceOp", dist.ReduceOp.SUM)
    for known, name in _REDUCE_OPS.items():
        if op == known:
            return name
    return str(op)




class _Ranks:
    """The one rank this process is: its channel and the groups made so far."""

    port: ChannelPort | None = None
    made: list[int] = []


def _create(opts: Any, _backend_options: Any) -> JudgeGroup:
    """torch's constructor of a ``judge`` group: the first is the world, each later one a
    group the switch makes."""
    port = _Ranks.port
    if port is None:
        raise RuntimeError("no channel to the judge in this process")
    ranks = list(opts.global_ranks_in_group) or list(range(port.world))
    gid = port.new_group(ranks) if _Ranks.made else 0
    _Ranks.made.append(gid)
    return JudgeGroup(port, gid, ranks)


def register_backend() -> None:
    """Register the ``judge`` backend with torch, once per process (the zygote does it before
    forking any rank)."""
    if BACKEND not in dist.Backend.backend_list:
        dist.Backend.register_backend(BACKEND, _create, extended_api=True, devices=["cpu"])


def install(port: ChannelPort) -> None:
    """Make the rank's default group on the ``judge`` backend: each group it makes goes
    through ``port``."""
    register_backend()
    _Ranks.port, _Ranks.made = port, []
    dist.init_process_group(BACKEND, store=dist.HashStore(), rank=port.rank,
                            world_size=port.world)
