"""The switch served to real rank processes: one Unix socket, one private connection per rank.

Every request a rank's process group makes arrives here as a frame (``wire``), is checked field
by field, and becomes one call of the :class:`~cjudge.switch.core.Switch`; the reply goes back on
the same connection (a ``wait``, or a quiet post that carries its wait, is answered when the
request completes). Nothing a rank sends can break the judge: a malformed request is answered
with an error, a malformed stream ends that rank's channel, and both are the rank's own
``runtime_error``.
"""

from __future__ import annotations

import selectors
import socket
import struct
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TypedDict, cast

from ..contract import values
from ..contract.protocol import RankError
from . import packed, shm
from .core import Forbidden, Parcel, Switch, SwitchError
from .wire import EndRecord, FrameReader, FrameTooLarge, Header, MalformedFrame, Reply, encode, head_of, widen

_INT, _OPT_INT, _STR, _OPT_STR, _LIST, _OPT_LIST = "int", "int?", "str", "str?", "list", "list?"
_OPT_BOOL = "bool?"
#: a post's own fields beside its kind's: whether it is quiet (answered at its wait, not now),
#: and whether the rank waits on it at once (``wait``, at the learner's ``wait_line``)
_POST = {"handle": _INT, "quiet": _OPT_BOOL, "wait": _OPT_BOOL, "wait_line": _OPT_INT}
#: request name -> its fields and their types
SCHEMA: dict[str, dict[str, str]] = {
    "hello": {"rank": _INT},
    "new_group": {"ranks": _LIST},
    "post_send": {**_POST, "group": _INT, "dst": _INT, "tag": _INT, "dtype": _STR,
                  "line": _OPT_INT, "api": _STR},
    "post_recv": {**_POST, "group": _INT, "src": _OPT_INT, "tag": _INT, "capacity": _INT,
                  "dtype": _STR, "line": _OPT_INT, "api": _STR},
    "post_collective": {**_POST, "group": _INT, "kind": _STR, "dtype": _STR, "line": _OPT_INT,
                        "api": _STR, "op": _OPT_STR, "root": _OPT_INT, "splits": _OPT_LIST},
    "test": {"handle": _INT}, "wait": {"handle": _INT, "line": _OPT_INT}, "begin": {}, "end": {},
    "compute": {"handle": _INT, "dtype": _STR, "shape": _LIST, "args": _OPT_LIST,
                "line": _OPT_INT},
}


class Fields(TypedDict, total=False):
    """A request's fields once :func:`checked` has checked them against ``SCHEMA``: each
    request has the fields its entry names, of these types."""

    rank: int
    ranks: list[int]
    handle: int
    quiet: bool | None
    wait: bool | None
    wait_line: int | None
    group: int
    dst: int
    src: int | None
    tag: int
    capacity: int
    dtype: str
    line: int | None
    api: str
    kind: str
    op: str | None
    root: int | None
    splits: list[int] | None
    shape: list[int]
    args: list[int] | None


_PEERCRED = struct.Struct("3i")
_IOV = 64  # buffers handed to one ``sendmsg``


class BadRequest(SwitchError):
    """A request that is not one the judge understands."""


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 200


def _is_list(value: object) -> bool:
    return isinstance(value, list) and len(value) <= 4096 and all(map(_is_int, value))


#: each type ``SCHEMA`` names -> the test of a value of it (``?``: None is one too)
_TESTS: dict[str, Callable[[object], bool]] = {"bool": _is_bool, "int": _is_int, "str": _is_str,
                                               "list": _is_list}
#: ``SCHEMA`` read once, not at every frame: request name -> each field, whether it may be
#: None and its type's test
_CHECKS = {op: [(name, kind.endswith("?"), _TESTS[kind.rstrip("?")])
                for name, kind in fields.items()] for op, fields in SCHEMA.items()}


def checked(header: Header) -> tuple[str, Fields]:
    """The request's name and fields, or :class:`BadRequest`."""
    op = header.get("request")
    if not isinstance(op, str) or op not in _CHECKS:
        raise BadRequest(f"unknown request {str(op)[:40]!r}", f"未知的请求 {str(op)[:40]!r}")
    fields: dict[str, object] = {}
    for name, nullable, test in _CHECKS[op]:
        value = header.get(name)
        if not (nullable if value is None else test(value)):
            raise BadRequest(f"request {op}: field {name!r} is malformed",
                             f"请求 {op}：字段 {name!r} 格式错误")
        fields[name] = value
    return op, cast(Fields, fields)  # each field checked against its type just above


def _a_result(header: Header) -> bool:
    """Whether ``header`` is a rank's ``end``: the one request whose size the learner does not
    choose call by call (a post past the switch's message limit is the learner's to split)."""
    try:
        return checked(header)[0] == "end"
    except BadRequest:
        return False


def result_record(header: Header, payload: bytes = b"",
                  elements: packed.Elements = packed.as_list) -> EndRecord:
    """A rank's end-of-call record (output or error) checked, or a record of why it is not;
    its tensors' elements may be packed in ``payload`` (``packed``), and are made ``elements``
    (lists of numbers, or views of the bytes for a record that is passed on packed)."""
    output, error = header.get("output"), header.get("error")
    if error is not None:
        if not isinstance(error, dict) or not all(
                isinstance(error.get(k), str) for k in ("kind", "type", "message", "traceback")) \
                or error["kind"] not in ("exception", "forbidden", "memory", "signal"):
            return {"output": None,
                    "error": _broken("its error report was malformed", "它的错误报告格式错误")}
        line = error.get("line")
        clean = RankError(kind=error["kind"], type=error["type"][:200],
                          message=error["message"][:20000], traceback=error["traceback"][:50000],
                          line=line if isinstance(line, int) and not isinstance(line, bool)
                          else None)
        if isinstance(error.get("op"), str):
            clean["op"] = error["op"][:40]
        if isinstance(error.get("message_zh"), str):
            clean["message_zh"] = error["message_zh"][:20000]
        return {"output": None, "error": clean}
    try:
        return {"output": packed.unpack(values.checked(output), payload, elements),
                "error": None}
    except values.Uncomparable as exc:  # the learner's to fix: say what, in both languages
        return {"output": None, "error": RankError(kind="exception", type="OverflowError",
                                                   message=exc.en, message_zh=exc.zh,
                                                   traceback="", line=None)}
    except ValueError:
        return {"output": None, "error": _broken("its result was malformed", "它的结果格式错误")}


def _consume(out: deque[memoryview], sent: int) -> bool:
    """Drop ``sent`` bytes from the front of ``out``; whether they were whole buffers."""
    while sent:
        if sent < len(out[0]):
            out[0] = out[0][sent:]
            return False
        sent -= len(out.popleft())
    return True


def judge_limit(why: str, why_zh: str) -> RankError:
    """A rank stopped by a limit of the judge (a ``judge_error``, never the learner's)."""
    return RankError(kind="judge", type="JudgeLimit", traceback="", line=None,
                     message=f"the judge cannot carry what this rank sent: {why}",
                     message_zh=f"评测机无法传送该 rank 发来的数据：{why_zh}")


def _broken(why: str, why_zh: str) -> RankError:
    return RankError(kind="exception", type="RuntimeError", traceback="", line=None,
                     message=f"the judge could not read this rank's channel: {why}",
                     message_zh=f"评测机无法读取该 rank 的通道：{why_zh}")


def _close_segment(conn: _Conn) -> None:
    if conn.segment is not None:
        conn.segment.close()
        conn.segment = None


@dataclass(eq=False)
class _Conn:
    sock: socket.socket
    reader: FrameReader
    pid: int
    rank: int | None = None
    #: replies not yet sent (headers and payloads, uncopied); while any is queued the rank's
    #: requests are not read (back-pressure), and their bytes count as the switch's held bytes
    out: deque[memoryview] = field(default_factory=deque)
    queued: int = 0  # bytes in ``out``
    frames: deque[tuple[Header, bytes]] = field(default_factory=deque)  # read, not served
    waiting: int | None = None  # the switch request whose reply is owed
    writing: bool = False  # registered for writability (not readability): replies are queued
    #: the rank's own request numbers -> the switch's request, or why the switch refused it
    handles: dict[int, int | SwitchError] = field(default_factory=dict)
    segment: shm.Mapped | None = None  # the rank's shared segment (``shm``), once it said hello
    #: the rank's area as the judge fills it (``shm.room``): payloads sends handed straight in
    #: (``_Parcel.hand``), by the switch's receive whose result each is, and what replies named
    #: there, the rank's to read until it sends its next request
    handed: dict[int, tuple[int, int]] = field(default_factory=dict)
    lent: list[tuple[int, int]] = field(default_factory=list)


class _Parcel(Parcel):
    """A send's payload in its rank's shared area, as the switch copies it (``core.Parcel``)."""

    def __init__(self, server: SwitchServer, segment: shm.Mapped, at: tuple[int, int]) -> None:
        self.server, self.segment, self.at = server, segment, at

    def __len__(self) -> int:
        return self.at[1]

    def take(self) -> bytes:
        return self.segment.take(self.at)

    def hand(self, rank: int, request: int) -> bool:
        conn = self.server.by_rank.get(rank)
        if conn is None or conn.segment is None:
            return False
        offset = self.server.room(conn, len(self))
        if offset is None:
            return False
        self.segment.hand(self.at, conn.segment, offset)
        conn.handed[request] = (offset, len(self))
        return True


class SwitchServer:
    """Serves one case's switch to its ranks over ``path``; poll it from the judge's loop.
    ``area``: the bytes of each area of a rank's shared segment (``shm``; 0: none)."""

    def __init__(self, path: Path, switch: Switch,
                 elements: packed.Elements = packed.as_list, area: int = shm.MIN_AREA) -> None:
        self.switch, self.area = switch, area
        self.elements = elements  # what the ranks' result tensors become (``result_record``)
        self.pids: list[int] | None = None  # each rank's process id, once the launcher knows
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(64)
        self.listener.setblocking(False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.by_rank: dict[int, _Conn] = {}
        self.records: dict[int, EndRecord] = {}  # rank -> its end-of-call record
        #: requests other than ``hello`` and posts, by name (``SCHEMA``'s other entries)
        self._handlers: dict[str, Callable[[_Conn, int, Fields, Header, bytes],
                                           tuple[Reply, bytes]]] = {
            "new_group": self._new_group, "test": self._test, "wait": self._wait,
            "begin": self._begin, "compute": self._compute, "end": self._end}

    def expect(self, pids: list[int]) -> None:
        """The ranks' process ids, once the launcher knows them."""
        self.pids = pids

    def poll(self, timeout: float) -> None:
        """Accept, read and answer whatever is ready within ``timeout``. While a reply waits in
        the judge for its rank to read it, no rank's requests are read: the judge never holds
        a large result and the ranks' next large payloads at once (the rank is blocked reading
        its reply, so the wait is short)."""
        held_back = False
        for key, events in self.selector.select(timeout):
            if key.fileobj is self.listener:
                self._accept()
                continue
            conn: _Conn = key.data
            if events & selectors.EVENT_WRITE:
                self._flush(conn)
            if events & selectors.EVENT_READ:
                if not any(c.out for c in self.by_rank.values()):
                    self._read(conn)
                else:
                    held_back = True
        self._answer_woken()
        if held_back:  # readable, not read: the next select would return at once
            time.sleep(timeout / 4)

    def joined(self) -> bool:
        """Whether every rank has connected."""
        return len(self.by_rank) == self.switch.world

    def peer_pids(self) -> list[int]:
        """The process ids of every connected rank."""
        return [c.pid for c in self.by_rank.values()]

    def close(self) -> None:
        """Close every connection and the listener."""
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]  # only sockets are registered
        self.selector.close()
        for conn in self.by_rank.values():
            _close_segment(conn)

    # ---- internals -------------------------------------------------------------------------

    def _accept(self) -> None:
        try:
            sock, _ = self.listener.accept()
        except BlockingIOError:
            return
        sock.setblocking(False)
        widen(sock)
        pid = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                               _PEERCRED.size))[0]
        conn = _Conn(sock, FrameReader(self.switch.limits.message_bytes), pid)
        self.selector.register(sock, selectors.EVENT_READ, conn)

    def _read(self, conn: _Conn) -> None:
        try:
            conn.frames.extend(conn.reader.read(conn.sock))
        except (BlockingIOError, InterruptedError):
            return
        except FrameTooLarge as exc:
            if _a_result(exc.header):  # a result too large for the judge: its limit, not a fault
                self._drop(conn, judge_limit(str(exc), f"帧超过了评测机的上限（{exc}）"))
            else:
                self._drop(conn, _broken(str(exc), f"通道上的字节不是有效的帧（{exc}）"))
            return
        except MalformedFrame as exc:
            self._drop(conn, _broken(str(exc), f"通道上的字节不是有效的帧（{exc}）"))
            return
        except OSError:  # the channel ended
            self._drop(conn, None)
            return
        self._serve(conn)

    def _serve(self, conn: _Conn) -> None:
        """Handle the rank's requests read so far, until a reply is left queued (the rank does
        not read what it is sent: it gets nothing more until it does)."""
        while conn.frames and not conn.out and conn.sock.fileno() >= 0:
            self._handle(conn, *conn.frames.popleft())

    def _handle(self, conn: _Conn, header: Header, payload: bytes) -> None:
        try:
            op, f = checked(header)
            if conn.rank is None:
                if op != "hello":
                    raise BadRequest("the first request must be hello")
                self._hello(conn, f["rank"])
                return
            conn.lent.clear()  # the rank read its replies before it sent this
            if conn.waiting is not None:
                raise BadRequest("a request arrived while the rank waits",
                                 "rank 在等待期间又发来了请求")
            parcel = self._parcel(conn, header[shm.FIELD], payload) if shm.FIELD in header \
                else None
            if op.startswith("post_"):
                if f["wait"] and not f["quiet"]:
                    raise BadRequest("only a quiet post can be waited on in its own frame",
                                     "只有静默提交的请求才能在同一帧中等待")
                self._post(conn, op, f, payload if parcel is None else parcel)
                if f["wait"] and conn.sock.fileno() >= 0:  # the post's wait, in its frame
                    self._reply(conn, *self._waited(conn, f["handle"], f["wait_line"]))
            elif op in self._handlers:
                if parcel is not None:
                    payload = parcel.take()
                self._reply(conn, *self._handlers[op](conn, conn.rank, f, header, payload))
            else:
                raise BadRequest(f"request {op} is not expected now", f"此时不应发送请求 {op}")
        except SwitchError as exc:
            reply = Reply(error=exc.en, zh=exc.zh)
            if isinstance(exc, Forbidden):
                reply["forbidden"], reply["api"] = exc.kind, exc.api
            if conn.rank is None:
                self._drop(conn, None)
            else:
                self._reply(conn, reply)

    def _hello(self, conn: _Conn, rank: int) -> None:
        expected = self.pids[rank] if self.pids and 0 <= rank < len(self.pids) else None
        if not 0 <= rank < self.switch.world or rank in self.by_rank or \
                (expected is not None and expected != conn.pid):
            raise BadRequest(f"rank {rank} cannot join")
        conn.rank = rank
        self.by_rank[rank] = conn
        conn.segment = shm.create(self.area) if self.area else None
        if conn.segment is None:
            self._reply(conn, {"ok": True, "area": 0})
            return
        frame = encode({"ok": True, "area": self.area})  # the first reply: the socket takes it
        try:
            sent = socket.send_fds(conn.sock, [frame], [conn.segment.fd])
        except OSError:
            sent = 0
        if sent != len(frame):
            self._drop(conn, _broken("its channel refused the judge's greeting",
                                     "它的通道拒绝了评测机的问候"))

    def _parcel(self, conn: _Conn, at: object, payload: bytes) -> _Parcel:
        """A request's payload in the rank's shared area at ``at`` (checked), to be copied out
        as the request is handled (the switch's from then on)."""
        try:
            if conn.segment is None or payload:
                raise ValueError("a payload both in the frame and in shared memory, or no segment")
            return _Parcel(self, conn.segment, shm.span(at, self.area))
        except ValueError as exc:
            raise BadRequest(f"a request's payload is malformed: {exc}",
                             f"请求的数据格式错误：{exc}") from None

    def _post(self, conn: _Conn, op: str, f: Fields, payload: bytes | _Parcel) -> None:
        """A post under the rank's own request number. A quiet one gets no reply: what the
        switch refused is answered at the number's ``test`` or ``wait``; a loud one (a call the
        rank expects to be refused) is answered now."""
        s, rank, local = self.switch, conn.rank, f["handle"]
        assert rank is not None
        if local in conn.handles or len(conn.handles) > 2 * s.limits.requests:
            self._drop(conn, _broken("it reused or hoarded request numbers",
                                     "它重复使用或囤积了请求编号"))
            return
        try:
            if op == "post_send":
                made = s.post_send(rank, f["group"], f["dst"], f["tag"], payload, f["dtype"],
                                   f["line"], f["api"])
            elif op == "post_recv":
                made = s.post_recv(rank, f["group"], f["src"], f["tag"], f["capacity"],
                                   f["dtype"], f["line"], f["api"])
            else:
                if isinstance(payload, _Parcel):
                    payload = payload.take()
                made = s.post_collective(rank, f["group"], f["kind"], payload, f["dtype"],
                                         line=f["line"], api=f["api"], op=f["op"],
                                         root=f["root"], splits=f["splits"])
        except SwitchError as exc:
            if not f["quiet"]:
                raise
            conn.handles[local] = exc
            return
        conn.handles[local] = made
        if not f["quiet"]:
            self._reply(conn, {"ok": local})

    def _request(self, conn: _Conn, local: int) -> int:
        """The switch's request behind the rank's number ``local`` (its refusal raised)."""
        made = conn.handles.get(local)
        if made is None:
            raise BadRequest(f"unknown request {local}", f"未知的请求 {local}")
        if isinstance(made, SwitchError):
            del conn.handles[local]
            raise made
        return made

    # ---- requests by name (each: the reply's header and payload; an empty header: later) ----

    def _new_group(self, conn: _Conn, rank: int, f: Fields, header: Header,
                   payload: bytes) -> tuple[Reply, bytes]:
        return {"ok": self.switch.new_group(rank, f["ranks"])}, b""

    def _test(self, conn: _Conn, rank: int, f: Fields, header: Header,
              payload: bytes) -> tuple[Reply, bytes]:
        return {"ok": self.switch.test(rank, self._request(conn, f["handle"]))}, b""

    def _wait(self, conn: _Conn, rank: int, f: Fields, header: Header,
              payload: bytes) -> tuple[Reply, bytes]:
        return self._waited(conn, f["handle"], f["line"])

    def _waited(self, conn: _Conn, local: int, line: int | None) -> tuple[Reply, bytes]:
        """The rank waits on its request ``local`` at ``line``: its outcome, or nothing yet."""
        assert conn.rank is not None  # a rank's request
        made = self._request(conn, local)
        del conn.handles[local]
        if not self.switch.wait(conn.rank, made, line):
            conn.waiting = made
            return {}, b""
        return self._outcome(conn, made)

    def _begin(self, conn: _Conn, rank: int, f: Fields, header: Header,
               payload: bytes) -> tuple[Reply, bytes]:
        """The rank's case input: its tensors' elements as bytes after the header."""
        skeleton, parts = packed.pack(self.switch.begin(rank))
        return {"ok": skeleton}, b"".join(parts)

    def _compute(self, conn: _Conn, rank: int, f: Fields, header: Header,
                 payload: bytes) -> tuple[Reply, bytes]:
        return {"ok": True}, self.switch.compute(rank, f["handle"], payload, f["dtype"],
                                                 f["shape"], f["args"], f["line"])

    def _end(self, conn: _Conn, rank: int, f: Fields, header: Header,
             payload: bytes) -> tuple[Reply, bytes]:
        """The rank's last word, once: its result, which ends its graded call, or its error
        (which may come before the graded call began: the learner's file failed to load)."""
        s = self.switch
        record = result_record(header, payload, self.elements)
        if rank in self.records or (not s.graded[rank] and record["error"] is None):
            raise BadRequest("a rank ends once, with a result only after its graded call began",
                             "rank 只能结束一次，且只有在被评测的调用开始之后才能给出结果")
        if s.graded[rank]:
            s.end(rank)
        self.records[rank] = record
        s.finish(rank, "failed" if record["error"] else "returned")
        return {"ok": True}, b""

    def _outcome(self, conn: _Conn, handle: int) -> tuple[Reply, bytes]:
        """A done request's reply: its result, or where a send handed it in the rank's area."""
        assert conn.rank is not None  # a rank's request
        src, data = self.switch.result(conn.rank, handle)
        reply = Reply(ok=True, src=src)
        at = conn.handed.pop(handle, None)
        if at is not None:
            reply["shm"] = list(at)
            conn.lent.append(at)
        return reply, data

    def _answer_woken(self) -> None:
        woken, self.switch.woken = self.switch.woken, []
        for rank in woken:
            conn = self.by_rank.get(rank)
            if conn is None or conn.waiting is None:
                continue
            handle, conn.waiting = conn.waiting, None
            try:
                self._reply(conn, *self._outcome(conn, handle))
            except SwitchError as exc:
                self._reply(conn, {"error": exc.en, "zh": exc.zh})

    def _reply(self, conn: _Conn, header: Reply, payload: bytes = b"") -> None:
        if not header:  # a wait to be answered later
            return
        if conn.sock.fileno() < 0:
            return
        at = None if conn.segment is None or not payload else self._given(conn, payload)
        if at is not None:
            header, payload = {**header, "shm": at}, b""
        head = head_of(header, len(payload))
        conn.out.extend(memoryview(part) for part in (head, payload) if part)
        conn.queued += len(head) + len(payload)
        self.switch.hold(len(head) + len(payload))
        self._flush(conn)

    def room(self, conn: _Conn, size: int) -> int | None:
        """Where ``size`` bytes fit in the rank's area now (``shm.room``); None if nowhere."""
        return shm.room([*conn.handed.values(), *conn.lent], size, self.area)

    def _given(self, conn: _Conn, payload: bytes) -> list[int] | None:
        """A reply's payload written into the rank's area where it has room; its place."""
        assert conn.segment is not None
        offset = self.room(conn, len(payload))
        at = None if offset is None else conn.segment.give(payload, offset)
        if at is not None:
            conn.lent.append((at[0], at[1]))
        return at

    def _flush(self, conn: _Conn) -> None:
        """Send what the socket takes of the queued replies; once they are all sent, serve the
        rank's requests read meanwhile."""
        if conn.sock.fileno() < 0:
            return
        while conn.out:
            parts = list(islice(conn.out, _IOV))
            try:
                sent = conn.sock.sendmsg(parts)  # a reply's header and payload in one call
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._drop(conn, None)
                return
            conn.queued -= sent
            self.switch.hold(-sent)
            if not _consume(conn.out, sent):  # the socket took less: wait until it drains
                break
        if bool(conn.out) != conn.writing:  # a system call only when the interest changes
            conn.writing = bool(conn.out)
            events = selectors.EVENT_WRITE if conn.writing else selectors.EVENT_READ
            self.selector.modify(conn.sock, events, conn)
            if not conn.writing:
                self._serve(conn)

    def _drop(self, conn: _Conn, error: RankError | None) -> None:
        """The rank's channel ended (closed, or broken by the rank): it communicates no more."""
        if conn.sock.fileno() >= 0:
            self.selector.unregister(conn.sock)
            conn.sock.close()
        _close_segment(conn)
        self.switch.hold(-conn.queued)
        conn.out.clear()
        conn.queued = 0
        conn.frames.clear()
        if conn.rank is None:
            return
        if error is not None and conn.rank not in self.records:
            self.records[conn.rank] = {"output": None, "error": error}
        if conn.rank not in self.switch.finished:
            self.switch.finish(conn.rank, "failed" if conn.rank not in self.records
                               or self.records[conn.rank]["error"] else "returned")
