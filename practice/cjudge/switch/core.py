"""The message switch: every communication of a case passes through here, and is recorded here.

Pure Python and runtime-independent: the real runtime drives it from the judge's event loop
(one request per rank message), the simulation from its rank threads, the browser from its
suspended ranks. Nothing here blocks: :meth:`Switch.wait` says whether a request is done and,
if not, remembers that the rank waits on it; when it completes, the rank is put on
:attr:`Switch.woken` for the runtime to resume.

Semantics are gloo's. Point-to-point posts match FIFO per (group, source, destination, tag),
a receive from any source taking the oldest fitting send; a send completes only when its
receive is posted (rendezvous: two ranks that both block in ``send`` first deadlock at any size).
A rank's k-th collective call on a group meets every other member's k-th call there; the
switch then performs it (reductions in group order) and completes every member's request.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..contract import values
from ..contract.primitives import ALIASES, DISPLAY, P2P_OPS, blocks_of, bytes_sent, equal_blocks
from ..contract.protocol import CaseSpec, JobSpec, RankError, RankReport, Stop, TensorData
from . import functions, symm
from .accounting import charged
from .reduce import DTYPES, OPS, OutOfTime, ReduceError, itemsize, reduce_bytes, values_of
from .trace import Collective, Compute, Message, Refusal, Request, SwitchTrace, Wait, WaitEdge, recorded

#: collectives whose result is an elementwise reduction
REDUCING = frozenset({"all_reduce", "reduce", "reduce_scatter"})
#: collectives with a root
ROOTED = frozenset({"broadcast", "reduce", "gather", "scatter"})
#: barriers: the process group's, and symmetric memory's (``switch.symm``: the judge's own,
#: never refused)
BARRIERS = frozenset({"barrier", symm.BARRIER})
COLLECTIVES = frozenset({"all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast",
                         "reduce", "gather", "scatter", *BARRIERS})
MAX_TAG = 2**31 - 1


class SwitchError(Exception):
    """A request the switch refuses or cannot complete; the rank raises it (``runtime_error``).

    ``zh`` is the Chinese text of the same message.
    """

    def __init__(self, en: str, zh: str | None = None) -> None:
        super().__init__(en)
        self.en, self.zh = en, zh or en


class Forbidden(SwitchError):
    """A call the exercise does not allow (``forbidden_primitive``)."""

    def __init__(self, kind: str, api: str) -> None:
        name = DISPLAY.get(kind, kind)  # the switch's kind of call, not what the rank called it
        super().__init__(f"{name} is not allowed in this exercise", f"本题不允许使用 {name}")
        self.kind, self.api = kind, api


class Flooded(SwitchError):
    """More requests than the switch records for one case: the case stops."""


class Late(SwitchError):
    """A judge's function call that cannot end, or did not end, before the case's deadline:
    the case stops (``time_limit``)."""


def _call(req: _Req) -> tuple[Any, ...]:
    """What members of one collective must agree on."""
    rec = req.record
    return rec["kind"], rec["peer"], rec["dtype"], req.op


def _named(rec: Request) -> tuple[str, str]:
    """A request as a message names it (the switch's kind of call, its line), in English and
    Chinese."""
    name = DISPLAY.get(rec["kind"], rec["kind"])
    if rec["line"] is None:
        return f"the {name}", f"{name} "
    return f"the {name} at line {rec['line']}", f"第 {rec['line']} 行的 {name} "


def _never_completed(rec: Request) -> RankError:
    """The error of a rank that returned while its graded request ``rec`` never completed."""
    what, what_zh = _named(rec)
    if rec["kind"] == "send":
        en = (f"{what} (to rank {rec['peer']}, tag {rec['tag']}) was never received: every send "
              "must be matched by a receive before the ranks' functions return")
        zh = (f"{what_zh}（发往 rank {rec['peer']}，tag {rec['tag']}）从未被接收：每个发送都必须在"
              "各 rank 的函数返回之前被一个接收匹配")
    elif rec["kind"] == "recv":
        src = "any rank" if rec["peer"] is None else f"rank {rec['peer']}"
        src_zh = "任意 rank" if rec["peer"] is None else f"rank {rec['peer']}"
        en = (f"{what} (from {src}, tag {rec['tag']}) never received a message: every receive "
              "must be matched by a send before the ranks' functions return")
        zh = (f"{what_zh}（来自 {src_zh}，tag {rec['tag']}）从未收到消息：每个接收都必须在各 rank "
              "的函数返回之前被一个发送匹配")
    else:
        en = (f"{what} never completed: not every rank of its group made the same call before "
              "the ranks' functions returned")
        zh = f"{what_zh}从未完成：在各 rank 的函数返回之前，进程组中并非每个 rank 都做了同样的调用"
    return RankError(kind="exception", type="RuntimeError", message=en, message_zh=zh,
                     traceback="", line=rec["line"])


def empty_trace(world: int) -> SwitchTrace:
    """The trace of a case in which nothing reached the switch."""
    return Switch(world, frozenset()).trace()


class Parcel(ABC):
    """A send's payload still where its rank put it (the real runtime: the rank's shared area),
    copied as the switch handles the post, so that the rank's later writes change nothing sent:
    into the switch's own bytes, or straight to the receiver (``Switch._copied``)."""

    @abstractmethod
    def __len__(self) -> int:
        """The payload's bytes."""

    @abstractmethod
    def take(self) -> bytes:
        """The payload, copied out: the switch's from now on."""

    @abstractmethod
    def hand(self, rank: int, request: int) -> bool:
        """Copy the payload straight to ``rank``, for the reply that gives it the result of its
        receive ``request`` (which the send meets; its result is then empty); whether it
        could."""


@dataclass(eq=False)
class _Req:
    """A posted request and, once done, its outcome."""

    record: Request
    payload: bytes = b""
    op: str | None = None
    splits: list[int] | None = None
    done: bool = False
    result: bytes | None = None
    src: int | None = None
    error: SwitchError | None = None
    wait: Wait | None = None
    #: bytes the switch holds for it: its payload, or its result once done (a collective's
    #: result is charged when it is posted: ``Switch._result_bytes``)
    charge: int = 0

    @property
    def rank(self) -> int:
        return self.record["rank"]


@dataclass
class Limits:
    """How much one case may put through the switch."""

    #: calls counted (requests, refusals, groups, computes) before the case is stopped
    #: (``Flooded``)
    requests: int = 20_000
    #: payload bytes held at once (posted sends, undelivered results, unread replies)
    held_bytes: int = 1 << 30
    refusals: int = 100  # refusals recorded in the trace; the rest are only counted
    message_bytes: int = 256 << 20  # bytes of one request's payload
    #: elements of graded messages' payloads kept in the trace (what a grader may label)
    recorded_values: int = 1 << 16
    #: elements of one judge's function call's input (the switch computes it in pure Python)
    compute_elements: int = 1 << 20

    @classmethod
    def for_sizes(cls, input_bytes: int, world: int) -> Limits:
        """The limits of a case whose ranks each hold ``input_bytes`` of input: the defaults,
        grown with the case so that its honest traffic never meets them (one message may be
        an all_gather's result, ``world`` inputs; twice that may be in flight on every rank)."""
        base = cls()
        return cls(message_bytes=max(base.message_bytes, 2 * world * input_bytes),
                   held_bytes=max(base.held_bytes, 4 * world * input_bytes))


@dataclass
class Switch:
    """One case's switch: ``world`` ranks, ``allowed`` canonical ops inside the graded call."""

    world: int
    allowed: frozenset[str]
    inputs: list[TensorData] = field(default_factory=list)  # each rank's case input, by rank
    limits: Limits = field(default_factory=Limits)
    #: ``time.monotonic()`` at which the case's time limit passes, once the runtime knows it
    deadline: float | None = None
    #: the time limit the ranks run under, once their clock started (``ending.start_clock``)
    limit_s: float | None = None
    #: the case's dtype, at whose width a narrower floating-point payload is charged
    #: (``accounting.charged``; None: as sent)
    charge_dtype: str | None = None

    @classmethod
    def for_case(cls, job: JobSpec, case: CaseSpec) -> Switch:
        """The switch of one case: its ranks and their inputs, the exercise's allowed calls,
        how its payloads are charged, and limits that grow with its sizes."""
        return cls(case["world_size"], frozenset(job["allowed"]), inputs=case["inputs"],
                   charge_dtype=case.get("charge_dtype"),
                   limits=Limits.for_sizes(values.input_bytes(case), case["world_size"]))

    def __post_init__(self) -> None:
        self.t = 0
        self._calls = 0  # counted toward ``limits.requests``
        self._refused_more = 0  # refusals past ``limits.refusals``
        self.groups: list[list[int]] = [list(range(self.world))]
        self._groups_made: dict[tuple[int, tuple[int, ...]], int] = {}
        self._groups_of: dict[tuple[int, ...], list[int]] = {}  # members -> groups, in order
        self._reqs: dict[int, _Req] = {}
        self._requests: list[Request] = []
        self._messages: list[Message] = []
        self._collectives: list[Collective] = []
        self._waits: list[Wait] = []
        self._refused: list[Refusal] = []
        self._computes: list[Compute] = []
        self._yielded: dict[tuple[int, int], int] = {}  # (rank, generator's handle) -> items
        self._memory: symm.Memory | None = None  # the symmetric buffers, once a rank uses them
        self._barriers: list[list[_Req]] = [[] for _ in range(self.world)]  # graded, the world's
        # each rank's judge functions, by handle (its input keeps only the handles)
        split = [functions.split(value) for value in self.inputs]
        self.inputs = [value for value, _ in split]
        self._functions = [table for _, table in split]
        self._delivered: dict[tuple[int, str], int] = {}  # (dst, payload digest) -> message id
        # (rank, digest of a call's output or of one unit of it) -> the call's index in computes
        self._outputs: dict[tuple[int, str], int] = {}
        self._recordable = self.limits.recorded_values * 8  # payload bytes left to record
        self._sends: dict[tuple[int, int, int], list[_Req]] = {}  # (group, dst, tag) -> unmatched
        self._recvs: dict[tuple[int, int, int], list[_Req]] = {}
        # a collective's members meet by (group, graded, seq): the k-th call of one epoch
        self._arrived: dict[tuple[int, bool, int], dict[int, _Req]] = {}  # ... -> rank -> req
        self._coll_seq: dict[tuple[int, bool, int], int] = {}  # (group, graded, rank) -> calls
        self._held = 0
        self.graded = [False] * self.world
        self.ended = [False] * self.world  # the graded call returned or raised
        self.finished: dict[int, str] = {}  # rank -> "returned" | "failed" | "killed"
        self.waiting: dict[int, _Req] = {}
        self.woken: list[int] = []
        self.flooded = False
        #: a reduction or a judge's function ran (or would run) past the deadline: the case is
        #: over (``time_limit``)
        self.late = False
        self._deadlock: list[WaitEdge] = []

    # ---- phases ----------------------------------------------------------------------------

    def begin(self, rank: int) -> TensorData | None:
        """The rank's graded call starts: the rules and byte accounting apply from here; the
        rank's case input (it gets it only now, and only once).

        One graded epoch: what the rank posted before and has not completed is cancelled (its
        wait raises), and nothing posted before a rank's ``begin`` ever matches anything posted
        after it (point-to-point posts and collectives meet only within their epoch)."""
        self._open(rank)
        if self.graded[rank]:
            raise SwitchError("the graded call has started already", "被评测的调用已经开始")
        self.graded[rank] = True
        self._cancel_pending(rank)
        return self.inputs[rank] if rank < len(self.inputs) else None

    def end(self, rank: int) -> None:
        """The rank's graded call ended (only after it began, and once): the switch accepts no
        more communication from it."""
        self._member_rank(rank)
        if not self.graded[rank]:
            raise SwitchError("the graded call can end only once, after it began",
                              "被评测的调用只能在开始之后结束，且只能结束一次")
        self.graded[rank], self.ended[rank] = False, True

    def compute(self, rank: int, handle: int, payload: bytes, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        """The rank calls the judge's function ``handle`` of its input on a tensor (``payload``
        of ``dtype`` and ``shape``) and small integer ``args``: the switch applies it, records
        the call (charged by its units, with its input's and output's digests and the message
        that delivered the input, if one did) and returns the output's bytes."""
        self._open(rank)
        table = self._functions[rank] if rank < len(self._functions) else []
        if not self.graded[rank] or isinstance(handle, bool) or not isinstance(handle, int) \
                or not 0 <= handle < len(table):
            raise SwitchError(f"unknown judge function {handle!r}", f"未知的评测机函数 {handle!r}")
        name, params = table[handle]
        if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
            line = None
        if name == functions.MEMORY:
            return self._access(rank, params, payload, dtype, shape, args, line)
        if args is not None and (not isinstance(args, list) or len(args) > 4096 or any(
                isinstance(a, bool) or not isinstance(a, int) for a in args)):
            raise SwitchError("malformed compute call", "计算调用格式错误")
        try:
            cut = functions.front(name, args)
            elements = self._compute_elements(payload, dtype, shape, cut)
            self._count_one()
            if name in functions.GENERATORS:  # its next item: charged by the item's size
                out, dtype, elements = functions.next_item(
                    params, self._yielded, (rank, handle),
                    (dtype, elements) if name in functions.FED else None)
            else:
                out = self._apply(name, params, payload, dtype, shape, args)
        except functions.FunctionError as exc:
            raise SwitchError(exc.en, exc.zh) from None
        cut *= DTYPES[dtype][1]
        record = Compute(rank=rank, name=name, line=line, t=self.t,
                         units=functions.units(params, elements), dtype=dtype, elements=elements,
                         input=functions.digest(payload[cut:]), output=functions.digest(out))
        if cut:
            record["inputs"] = [functions.digest(payload[:cut]), record["input"]]
        message = self._delivered.get((rank, record["input"]))
        if message is not None:
            record["message"] = message
        self._computes.append(record)
        for piece in functions.pieces(out, functions.unit_bytes(params, dtype)):
            self._outputs[(rank, functions.digest(piece))] = len(self._computes) - 1
        return out

    def _access(self, rank: int, params: functions.FnParams, payload: bytes, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        """A load from or a store into a rank's symmetric buffer (``switch.symm``), done now and
        recorded as a request of the rank's, waited on at once, and a message from the buffer's
        owner (a load) or to it (a store): the model's NVLink load or store. Its bytes are the rank's when the
        buffer is another rank's."""
        try:
            if self._memory is None:
                self._memory = symm.make(self.world, params)
            count = self._compute_elements(payload, dtype, shape)
            op, owner, offset = self._memory.check(args, dtype, count)
        except functions.FunctionError as exc:
            raise SwitchError(exc.en, exc.zh) from None
        self._count_one()
        done = [q for q in self._barriers[rank] if q.done and q.wait is not None]
        epoch = (len(done), len(self._barriers[rank]))
        if op == symm.LOAD:
            assert args is not None  # checked
            payload = functions.pack(self._memory.load(rank, owner, offset, args[3], *epoch, line),
                                     dtype)
            src, dst = owner, rank
        else:
            self._memory.store(rank, owner, offset, values_of(payload, dtype) or [], *epoch, line)
            src, dst = rank, owner
        rid, nbytes = len(self._requests) + 1, len(payload)
        message = Message(id=len(self._messages) + 1, group=0, src=src, dst=dst, tag=0,
                          bytes=nbytes, send=rid, recv=rid, matched=self.t)
        if nbytes <= self._recordable:
            data = recorded(payload, dtype)
            if data is not None:
                message["data"] = data
                self._recordable -= max(nbytes, 1)
        self._messages.append(message)
        self._requests.append(Request(
            id=rid, rank=rank, kind=symm.KINDS[op], group=0, peer=owner, tag=0, bytes=nbytes,
            sent=nbytes if owner != rank else 0, dtype=dtype, line=line,
            api=DISPLAY[symm.KINDS[op]], graded=True, posted=self.t, completed=self.t,
            message=message["id"], collective=None))
        self.t += 1  # the rank had it done when the call returned (the model overlaps them)
        self._waits.append(Wait(rank=rank, request=rid, begin=self.t, end=self.t))
        return payload if op == symm.LOAD else b""

    def _compute_elements(self, payload: bytes, dtype: str, shape: list[int],
                          before: int = 0) -> int:
        """The elements of a compute call's (last) tensor, once its bytes, dtype and shape
        agree, with ``before`` elements of a first tensor ahead of it."""
        if not isinstance(dtype, str) or dtype not in DTYPES or not isinstance(shape, list) or \
                len(shape) > 16 or any(isinstance(d, bool) or not isinstance(d, int) or d < 0
                                       for d in shape):
            raise SwitchError("malformed compute call", "计算调用格式错误")
        elements = 1
        for d in shape:
            elements *= d
        if elements + before > self.limits.compute_elements:
            raise SwitchError(f"a judge's function takes at most {self.limits.compute_elements} "
                              f"elements at once, not {elements + before}",
                              f"评测机的函数一次最多处理 {self.limits.compute_elements} 个元素，"
                              f"而不是 {elements + before} 个")
        if (elements + before) * DTYPES[dtype][1] != len(payload):
            raise SwitchError("malformed compute call: the tensor's bytes do not fit its shape",
                              "计算调用格式错误：张量的字节数与形状不符")
        return elements

    def _apply(self, name: str, params: functions.FnParams, payload: bytes, dtype: str, shape: list[int],
               args: list[int] | None) -> bytes:
        """``functions.apply``, its cost bounded before it runs (``functions.cost``): an output
        larger than the judge computes at once is refused as an input would be; work that
        cannot end before the deadline, or is still running when it passes, stops the case."""
        before = functions.front(name, args)
        out, seconds = functions.cost(name, params, before,
                                      len(payload) // DTYPES[dtype][1] - before)
        if out > self.limits.compute_elements:
            raise SwitchError(f"a judge's function answers at most {self.limits.compute_elements} "
                              f"elements at once, not {out}: call it on smaller blocks",
                              f"评测机的函数一次最多返回 {self.limits.compute_elements} 个元素，"
                              f"而不是 {out} 个：请分成更小的块调用")
        try:
            if self.deadline is not None and time.monotonic() + seconds > self.deadline:
                raise OutOfTime
            return functions.apply(name, params, payload, dtype, shape, args, self.deadline)
        except OutOfTime:
            self.late = True
            raise Late(f"the judge's {name} could not finish this call before the case's time "
                       "limit: the work it was given is too large",
                       f"评测机的 {name} 无法在用例的时限之前完成这次调用：交给它的工作量太大") \
                from None

    def finish(self, rank: int, state: str) -> None:
        """The rank's process is gone (or will never communicate again)."""
        self.finished[rank] = state
        self.waiting.pop(rank, None)

    # ---- groups ----------------------------------------------------------------------------

    def new_group(self, rank: int, ranks: Iterable[int]) -> int:
        """The group a member's call ``new_group(ranks)`` makes: its k-th call with these ranks
        meets every other member's k-th call with the same ranks (non-members make none)."""
        self._open(rank)
        self._count_one()
        members = sorted({self._member_rank(r) for r in ranks})
        if rank not in members:
            raise SwitchError(f"rank {rank} is not in the group {members} it creates",
                              f"rank {rank} 不在它创建的进程组 {members} 中")
        key = (rank, tuple(members))
        k = self._groups_made.get(key, 0)
        self._groups_made[key] = k + 1
        same = self._groups_of.setdefault(key[1], [])  # looked up, never scanned: O(1) a call
        if k < len(same):
            return same[k]
        self.groups.append(members)
        same.append(len(self.groups) - 1)
        return same[-1]

    # ---- posting ---------------------------------------------------------------------------

    def post_send(self, rank: int, group: int, dst: int, tag: int, payload: bytes | Parcel,
                  dtype: str, line: int | None, api: str) -> int:
        """Post a send of ``payload`` to global rank ``dst``; never blocks."""
        req = self._new(rank, "send", group, dst, tag, len(payload), dtype, line, api, payload)
        req.record["sent"] = self._charged(len(payload), dtype) if req.record["graded"] else 0
        recv = self._meet(req, group, dst, tag)
        if isinstance(payload, Parcel):
            req.payload = self._copied(req, payload, recv)
        if req.record["graded"] and self._outputs:  # what a judge's function made, if it did
            made = self._outputs.get((rank, functions.digest(req.payload)))
            if made is not None:
                req.record["carries"] = made
        if recv is None:
            self._sends.setdefault((group, dst, tag), []).append(req)
        else:
            self._match(req, recv)
        return req.record["id"]

    def _meet(self, send: _Req, group: int, dst: int, tag: int) -> _Req | None:
        """The oldest posted receive ``send`` fits, taken off its queue; None if none does."""
        queue = self._recvs.get((group, dst, tag), [])
        for i, recv in enumerate(queue):
            if recv.record["peer"] in (None, send.rank) and \
                    recv.record["graded"] == send.record["graded"]:
                return queue.pop(i)
        return None

    def _copied(self, send: _Req, parcel: Parcel, recv: _Req | None) -> bytes:
        """The switch's copy of a parcel: empty once handed straight to the receiver (one
        copy, not two), which it is when the send meets a posted receive with room for it and
        nothing of its bytes is recorded (values, digests); else taken."""
        size, graded = len(parcel), send.record["graded"]
        recorded_here = graded and (bool(self._outputs) or any(self._functions)
                                    or size <= self._recordable)
        if recv is not None and size <= recv.record["bytes"] and not recorded_here and \
                parcel.hand(recv.rank, recv.record["id"]):
            return b""
        return parcel.take()

    def post_recv(self, rank: int, group: int, src: int | None, tag: int, capacity: int,
                  dtype: str, line: int | None, api: str) -> int:
        """Post a receive of at most ``capacity`` bytes from ``src`` (None: any source)."""
        req = self._new(rank, "recv", group, src, tag, capacity, dtype, line, api)
        queue = self._sends.get((group, rank, tag), [])
        for i, send in enumerate(queue):
            if (src is None or send.rank == src) and send.record["graded"] == req.record["graded"]:
                del queue[i]
                self._match(send, req)
                break
        else:
            self._recvs.setdefault((group, rank, tag), []).append(req)
        return req.record["id"]

    def post_collective(self, rank: int, group: int, kind: str, payload: bytes, dtype: str, *,
                        line: int | None, api: str, op: str | None = None,
                        root: int | None = None, splits: list[int] | None = None) -> int:
        """Post this rank's part of a collective (``root`` global; ``splits``: all_to_all's
        input bytes per destination, in group order); done when every member has posted."""
        def check() -> None:
            self._check_collective(kind, rank, self.groups[group], len(payload), dtype, op, root,
                                   splits)

        req = self._new(rank, kind, group, root, 0, len(payload), dtype, line, api, payload, check)
        req.op, req.splits = op, splits
        if kind == "all_to_all" and splits is not None:
            req.record["splits"] = list(splits)
        members = self.groups[group]
        n, me = len(members), members.index(rank)
        nbytes = self._charged(len(payload), dtype) * (n if kind == "all_gather" else 1)
        local_root = members.index(root) if root is not None else None
        charged = [self._charged(b, dtype) for b in splits] \
            if kind == "all_to_all" and splits is not None else splits  # checked: ints
        req.record["sent"] = bytes_sent(kind, n, me, nbytes, local_root, charged) \
            if req.record["graded"] else 0
        epoch = req.record["graded"]
        if epoch and kind in BARRIERS and group == 0:  # what orders symmetric-memory accesses
            self._barriers[rank].append(req)
        seq = self._coll_seq.get((group, epoch, rank), 0)
        self._coll_seq[(group, epoch, rank)] = seq + 1
        arrived = self._arrived.setdefault((group, epoch, seq), {})
        arrived[rank] = req
        if len(arrived) == n and self._agree([arrived[r] for r in members]):
            del self._arrived[(group, epoch, seq)]
            self._perform(group, seq, [arrived[r] for r in members])
        return req.record["id"]

    # ---- completion ------------------------------------------------------------------------

    def test(self, rank: int, handle: int) -> bool:
        """Whether the rank's request is done (its :meth:`result` is then ready)."""
        return self._own(rank, handle).done

    def wait(self, rank: int, handle: int, line: int | None = None) -> bool:
        """The rank waits on its request, at the learner's ``line`` (its ``wait()``, which a
        deadlock names beside the post's line): True if it is done already, else the rank is
        marked waiting and put on :attr:`woken` when it completes."""
        req = self._own(rank, handle)
        self.t += 1
        req.wait = Wait(rank=rank, request=handle, begin=self.t, end=self.t if req.done else None)
        if line is not None:
            req.wait["line"] = line
        self._waits.append(req.wait)
        if not req.done:
            self.waiting[rank] = req
        return req.done

    def result(self, rank: int, handle: int) -> tuple[int | None, bytes]:
        """A done request's outcome, once: (source rank, received bytes); raises its error."""
        req = self._own(rank, handle)
        if not req.done:
            raise SwitchError("the request is not complete yet", "请求尚未完成")
        del self._reqs[handle]
        self._held -= req.charge
        if req.error is not None:
            raise req.error
        return req.src, req.result or b""

    # ---- state -----------------------------------------------------------------------------

    def unfinished(self) -> list[int]:
        """Ranks still expected to act: neither ended their graded call nor gone."""
        return [r for r in range(self.world) if r not in self.finished and not self.ended[r]]

    def deadlocked(self) -> bool:
        """Every unfinished rank waits on a request no posted operation can complete."""
        left = self.unfinished()
        return bool(left) and all(r in self.waiting for r in left)

    def stuck(self) -> Literal["deadlock", "failed"] | None:
        """Why the case can go no further, once it can't: ``"failed"`` when a rank failed (its
        peers hang because of it: the failure is the learner's error to see), else
        ``"deadlock"``. None while it can, or while a rank whose graded call ended has not yet
        said how it ended (:meth:`finish`)."""
        if self.late or not self.deadlocked() or any(self.ended[r] and r not in self.finished
                                                     for r in range(self.world)):
            return None
        return "failed" if "failed" in self.finished.values() else "deadlock"

    def reports(self, known: Sequence[RankReport | None], stop: Stop | None) -> list[RankReport]:
        """Every rank's report when the case ends: ``known`` where the runtime has one (None:
        the rank never ended, :meth:`unfinished_report`). A case whose every rank returned holds
        each to its graded requests: a rank that returned while one of them never completed (a
        receive never matched, a send never received) failed, naming the call and its line, as
        gloo would hang or complain at ``destroy`` (where a rank failed, its error explains its
        peers' requests). The one place every runtime applies it."""
        out = [report or self.unfinished_report(rank) for rank, report in enumerate(known)]
        if stop is not None or any(report["state"] != "returned" for report in out):
            return out
        for i, report in enumerate(out):
            left = next((q for q in self._reqs.values() if q.rank == report["rank"]
                         and q.record["graded"] and not q.done), None)
            if left is not None:
                out[i] = RankReport(rank=report["rank"], state="failed", output=None,
                                    error=_never_completed(left.record))
        return out

    def hold(self, nbytes: int) -> None:
        """Bytes a runtime keeps for a rank until the rank reads them (a queued reply) count as
        held too; ``-nbytes`` once it has read them. Posts past the limit are refused."""
        self._held += nbytes

    @property
    def held(self) -> int:
        """Payload bytes held now (``Limits.held_bytes`` bounds them)."""
        return self._held

    def unfinished_report(self, rank: int) -> RankReport:
        """How a rank that never ended stands when the case stops: blocked in what, or running."""
        waiting = self.waiting.get(rank)
        return RankReport(rank=rank, state="blocked" if waiting else "running", output=None,
                          error=None, waiting=waiting.record["kind"] if waiting else None)

    def mark_deadlock(self) -> None:
        """Record who waits on whom (call when the case is stopped as a deadlock)."""
        edges: list[WaitEdge] = []
        for rank, req in sorted(self.waiting.items()):
            rec = req.record
            if rec["kind"] in P2P_OPS:
                peers = [rec["peer"]] if rec["peer"] is not None else \
                    [r for r in self.groups[rec["group"]] if r != rank]
            else:  # members that never made the call, or made another one
                got = next(got for got in self._arrived.values() if got.get(rank) is req)
                peers = [r for r in self.groups[rec["group"]]
                         if r not in got or _call(got[r]) != _call(req)]
            edges += [WaitEdge(rank=rank, on=p, request=rec["id"]) for p in peers]
        self._deadlock = edges

    def trace(self) -> SwitchTrace:
        """The record of everything so far (JSON-ready)."""
        out = SwitchTrace(world_size=self.world, groups=[list(g) for g in self.groups],
                          requests=self._requests, messages=self._messages,
                          collectives=self._collectives, waits=self._waits,
                          refused=self._refused, deadlock=self._deadlock)
        if self._refused_more:
            out["refused_more"] = self._refused_more
        if self._computes:
            out["computes"] = self._computes
        race = self._memory.race() if self._memory is not None else None
        if race is not None:
            out["race"] = race
        if self.limit_s is not None:
            out["limit_s"] = self.limit_s
        if self.flooded:
            out["limit"] = "requests"
        elif self.late:
            out["limit"] = "time"
        return out

    # ---- internals -------------------------------------------------------------------------

    def _member_rank(self, rank: object) -> int:
        if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < self.world:
            raise SwitchError(f"invalid rank {rank!r}: ranks are 0..{self.world - 1}",
                              f"无效的 rank {rank!r}：rank 的范围是 0..{self.world - 1}")
        return rank

    def _group(self, group: object) -> list[int]:
        if isinstance(group, bool) or not isinstance(group, int) or \
                not 0 <= group < len(self.groups):
            raise SwitchError(f"unknown process group {group!r}", f"未知的进程组 {group!r}")
        return self.groups[group]

    def _open(self, rank: int) -> None:
        """Refuse any request from a rank whose graded call has ended."""
        self._member_rank(rank)
        if self.ended[rank] or rank in self.finished:
            raise SwitchError(
                f"rank {rank} communicated after its graded function returned; every "
                "communication must happen inside the function",
                f"rank {rank} 在被评测函数返回后仍在通信；所有通信都必须在函数内部完成")
        if self.flooded:
            raise Flooded("too many communication calls", "通信调用过多")

    def _count_one(self) -> None:
        """One more counted call (a request, refused or not, a group, a compute), and the time
        moves on; :class:`Flooded` past the limit."""
        if self._calls >= self.limits.requests:
            self.flooded = True
            raise Flooded(f"more than {self.limits.requests} communication calls in one case",
                          f"单个用例中的通信调用超过 {self.limits.requests} 次")
        self._calls += 1
        self.t += 1

    def _cancel_pending(self, rank: int) -> None:
        """Complete with an error every request ``rank`` posted that is not done (it is
        starting its graded call, so they were all posted before), and unqueue them."""
        pending = [q for q in self._reqs.values() if q.rank == rank and not q.done]
        if not pending:
            return
        for queues in (self._sends, self._recvs):
            for queue in queues.values():
                queue[:] = [q for q in queue if q.rank != rank]
        for arrived in self._arrived.values():
            arrived.pop(rank, None)
        for req in pending:
            what, what_zh = _named(req.record)
            self._complete(req, error=SwitchError(
                f"{what} was posted before the graded call started and had not completed then, "
                "so the judge cancelled it: wait for module-level communication before the "
                "graded function is called (nothing posted before it may match anything inside "
                "it)",
                f"{what_zh}在被评测的调用开始之前发出，且当时尚未完成，评测机已将其取消：请在被评测"
                "函数被调用之前等待模块级别的通信完成（之前发出的通信不会与函数内部的通信匹配）"))

    def _new(self, rank: int, kind: str, group: int, peer: int | None, tag: int, nbytes: int,
             dtype: str, line: int | None, api: str, payload: bytes | Parcel = b"",
             check: Callable[[], None] | None = None) -> _Req:
        """Validate and record a request (refusing a forbidden one, recording the refusal).
        Every post counts toward the request cap, refused or not."""
        self._open(rank)
        self._count_one()
        graded = self.graded[rank]
        if not isinstance(api, str) or len(api) > 100:
            api = kind
        api = ALIASES.get(api, api)  # one name for a call, whatever torch or runtime made it
        if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
            line = None
        self._admit(rank, kind, api, line, graded)
        members = self._group(group)
        self._check_ends(rank, kind, group, members, peer, tag)
        dtype = self._check_data(kind, nbytes, dtype, check)
        charge = max(len(payload), self._result_bytes(kind, members, rank, peer, len(payload)))
        if self._held + charge > self.limits.held_bytes:
            raise SwitchError("too much data in flight: receive what you send and wait for what "
                              "you post", "在途数据过多：请先接收已发送的数据，并等待已发出的请求完成")
        record = Request(id=len(self._requests) + 1, rank=rank, kind=kind, group=group, peer=peer,
                         tag=tag, bytes=nbytes, sent=0, dtype=dtype, line=line, api=api,
                         graded=graded, posted=self.t, completed=None, message=None,
                         collective=None)
        self._requests.append(record)
        req = _Req(record, b"" if isinstance(payload, Parcel) else payload, charge=charge)
        self._held += charge
        self._reqs[record["id"]] = req
        return req

    def _admit(self, rank: int, kind: str, api: str, line: int | None, graded: bool) -> None:
        """Refuse an unknown kind of request, and a call the graded function may not make
        (recording that refusal, up to the limit)."""
        if kind not in P2P_OPS and kind not in COLLECTIVES:
            raise SwitchError(f"unknown collective {str(kind)[:40]!r}",
                              f"未知的集合通信 {str(kind)[:40]!r}")
        if graded and kind not in self.allowed and kind != symm.BARRIER:
            if len(self._refused) < self.limits.refusals:
                self._refused.append(Refusal(rank=rank, kind=kind, api=api, line=line, t=self.t))
            else:
                self._refused_more += 1
            raise Forbidden(kind, api)

    def _check_ends(self, rank: int, kind: str, group: int, members: list[int], peer: int | None,
                    tag: int) -> None:
        """Refuse a rank outside the group, and a point-to-point request's invalid peer or tag."""
        if rank not in members:
            raise SwitchError(f"rank {rank} is not a member of group {group} ({members})",
                              f"rank {rank} 不属于进程组 {group}（{members}）")
        if kind in P2P_OPS:
            if peer is not None:
                self._member_rank(peer)
                if peer not in members or peer == rank:
                    raise SwitchError(f"invalid peer rank {peer} for rank {rank} in group {members}",
                                      f"rank {rank} 的对端 rank {peer} 无效（进程组 {members}）")
            if isinstance(tag, bool) or not isinstance(tag, int) or not 0 <= tag <= MAX_TAG:
                raise SwitchError(f"invalid tag {tag!r}", f"无效的 tag {tag!r}")

    def _check_data(self, kind: str, nbytes: int, dtype: str, check: Callable[[], None] | None
                    ) -> str:
        """Refuse a message over the size limit, an unknown dtype and what ``check`` refuses; the
        request's dtype (``none`` for a barrier)."""
        if not isinstance(nbytes, int) or nbytes < 0 or nbytes > self.limits.message_bytes:
            raise SwitchError(f"a message of {nbytes} bytes is larger than the judge allows "
                              f"({self.limits.message_bytes} bytes)",
                              f"消息大小 {nbytes} 字节超过评测机允许的上限")
        if kind in BARRIERS:
            dtype = "none"
        try:
            if kind not in BARRIERS:
                itemsize(dtype)
            if check is not None:
                check()
        except ReduceError as exc:
            raise SwitchError(str(exc)) from None
        return dtype

    @staticmethod
    def _result_bytes(kind: str, members: list[int], rank: int, root: int | None,
                      size: int) -> int:
        """The bytes of a collective's result for ``rank`` where they exceed its input (what the
        members' inputs do not already account for)."""
        if kind == "all_gather" or (kind == "gather" and rank == root):
            return size * len(members)
        return 0

    def _charged(self, nbytes: int, dtype: str) -> int:
        """The bytes a payload is charged at in this case (``accounting.charged``)."""
        return charged(nbytes, dtype, self.charge_dtype)

    def _own(self, rank: int, handle: object) -> _Req:
        req = self._reqs.get(handle) if isinstance(handle, int) else None
        if req is None or req.rank != rank:
            raise SwitchError(f"unknown request {handle!r}", f"未知的请求 {handle!r}")
        return req

    def _complete(self, req: _Req, result: bytes | None = None, src: int | None = None,
                  error: SwitchError | None = None) -> None:
        req.done, req.result, req.src, req.error = True, result, src, error
        req.record["completed"] = self.t
        if error is not None:
            req.record["failed"] = True
        self._held += len(result or b"") - req.charge
        req.payload, req.charge = b"", len(result or b"")
        if req.wait is not None and req.wait["end"] is None:
            req.wait["end"] = self.t
            if self.waiting.get(req.rank) is req:
                del self.waiting[req.rank]
                self.woken.append(req.rank)

    def _match(self, send: _Req, recv: _Req) -> None:
        self.t += 1
        s, r = send.record, recv.record
        message = Message(id=len(self._messages) + 1, group=s["group"], src=s["rank"],
                          dst=r["rank"], tag=s["tag"], bytes=self._charged(s["bytes"], s["dtype"]),
                          send=s["id"],
                          recv=r["id"], matched=self.t)
        self._messages.append(message)
        s["message"] = r["message"] = message["id"]
        payload, size = send.payload, s["bytes"]  # empty if handed to the receiver already
        if s["graded"] and any(self._functions):  # what a judge's function may be given
            self._delivered[(r["rank"], functions.digest(payload))] = message["id"]
        if s["graded"] and size <= self._recordable:
            data = recorded(payload, s["dtype"])
            if data is not None:
                message["data"] = data
                self._recordable -= max(size, 1)
        self._complete(send)
        if size > r["bytes"]:
            self._complete(recv, src=s["rank"], error=SwitchError(
                f"Received data size doesn't match expected size: {size} vs "
                f"{r['bytes']} bytes (rank {s['rank']} sent more than the receiving tensor "
                "holds). Is there a mismatch between the sent and the received tensors?",
                f"接收的数据大小与预期不符：{size} 对 {r['bytes']} 字节（rank {s['rank']} "
                "发送的数据多于接收张量的容量）。发送和接收的张量大小是否不一致？"))
        else:
            self._complete(recv, payload, s["rank"])

    @staticmethod
    def _check_collective(kind: str, rank: int, members: list[int], size: int, dtype: str,
                          op: str | None, root: int | None, splits: list[int] | None) -> None:
        """The checks of one member's arguments alone (the others' come in :meth:`_perform`)."""
        n = len(members)
        unit = itemsize(dtype) if kind not in BARRIERS else 1
        if kind in REDUCING and op not in OPS:
            raise SwitchError(f"{kind}: unknown reduce op {op!r}", f"{kind}：未知的归约操作 {op!r}")
        if kind in ROOTED and root not in members:
            raise SwitchError(f"{kind}: root {root!r} is not in the group {members}",
                              f"{kind}：root {root!r} 不在进程组 {members} 中")
        if kind == "all_to_all":
            if splits is None or len(splits) != n or any(
                    isinstance(s, bool) or not isinstance(s, int) or s < 0 or s % unit
                    for s in splits) or sum(splits) != size:
                raise SwitchError("all_to_all: the input's split sizes must give one block per "
                                  "rank of the group and add up to the input",
                                  "all_to_all：输入的切分必须为组内每个 rank 各给一块，且总和等于输入")
        scattered = kind == "reduce_scatter" or (kind == "scatter" and rank == root)
        if scattered and size % (n * unit):
            raise SwitchError(f"{kind}: the input of {size // unit} elements does not split into "
                              f"{n} equal blocks",
                              f"{kind}：{size // unit} 个元素的输入无法均分为 {n} 块")

    def _perform(self, group: int, seq: int, reqs: list[_Req]) -> None:
        """Every member arrived: check they agree, compute each one's result, complete them."""
        self.t += 1
        first = reqs[0].record
        members = self.groups[group]
        coll = Collective(id=len(self._collectives) + 1, kind=first["kind"], group=group,
                          ranks=list(members), seq=seq, requests=[q.record["id"] for q in reqs],
                          bytes=[q.record["sent"] for q in reqs],
                          size=[self._charged(q.record["bytes"], q.record["dtype"]) for q in reqs],
                          root=first["peer"],
                          op=reqs[0].op, started=self.t)
        self._collectives.append(coll)
        self._record_inputs(coll, reqs)
        for q in reqs:
            q.record["collective"] = coll["id"]
        try:
            results = self._results(reqs, members)
        except OutOfTime:  # the case is over; its members stay waiting
            self.late = True
            return
        except (SwitchError, ReduceError) as exc:
            error = exc if isinstance(exc, SwitchError) else SwitchError(f"{first['kind']}: {exc}")
            for q in reqs:
                self._complete(q, error=error)
            return
        for q, result in zip(reqs, results, strict=True):
            self._complete(q, result)

    def _record_inputs(self, coll: Collective, reqs: list[_Req]) -> None:
        """Each member's input into ``coll`` while the record has room (graded calls only)."""
        size = sum(max(len(q.payload), 1) for q in reqs)
        if size > self._recordable or not all(q.record["graded"] for q in reqs):
            return
        data = [recorded(q.payload, q.record["dtype"]) for q in reqs]
        if all(d is not None for d in data):
            coll["data"] = [d for d in data if d is not None]
            self._recordable -= size

    @staticmethod
    def _agree(reqs: list[_Req]) -> bool:
        """Whether every member made the same call (kind, root, op, dtype). If not, none of
        them completes: under gloo they would hang, and the deadlock names the calls."""
        return all(_call(q) == _call(reqs[0]) for q in reqs[1:])

    def _reduced(self, reqs: list[_Req], dtype: str, op: str) -> bytes:
        """The reduction of every member's payload, made in the first one's buffer where it
        can be: the payloads are the switch's own, and no longer needed once reduced."""
        payloads = [q.payload for q in reqs]
        for q in reqs:  # the result replaces them (``_complete``)
            q.payload = b""
        return reduce_bytes(op, payloads, dtype, self.deadline, spend_first=True)

    def _results(self, reqs: list[_Req], members: list[int]) -> list[bytes]:
        first = reqs[0].record
        kind, n = first["kind"], len(reqs)
        payloads = [q.payload for q in reqs]
        dtype, op = first["dtype"], reqs[0].op or "sum"
        root = members.index(first["peer"]) if first["peer"] is not None else 0
        if kind in ("all_reduce", "reduce", "reduce_scatter", "all_gather", "broadcast") and \
                len({len(p) for p in payloads}) > 1:
            raise SwitchError("the ranks' tensors have different sizes ("
                              + ", ".join(str(len(p)) for p in payloads) + " bytes)",
                              "各 rank 的张量大小不同（" + "、".join(str(len(p)) for p in payloads)
                              + " 字节）")
        if kind == "all_reduce":
            return [self._reduced(reqs, dtype, op)] * n
        if kind == "reduce":
            return [self._reduced(reqs, dtype, op) if i == root else b"" for i in range(n)]
        if kind == "reduce_scatter":
            blocks = [equal_blocks(p, n) for p in payloads]
            return [reduce_bytes(op, [b[i] for b in blocks], dtype, self.deadline) for i in range(n)]
        if kind == "all_gather":
            return [b"".join(payloads)] * n
        if kind == "gather":
            return [b"".join(payloads) if i == root else b"" for i in range(n)]
        if kind == "broadcast":
            return [payloads[root]] * n
        if kind == "scatter":
            return equal_blocks(payloads[root], n)
        if kind == "all_to_all":  # rank j gets block j of every member's input, in group order
            blocks = [blocks_of(q.payload, q.splits or []) for q in reqs]
            return [b"".join(blocks[i][j] for i in range(n)) for j in range(n)]
        return [b""] * n  # barrier
