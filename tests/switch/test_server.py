"""The switch served over ranks' channels (cjudge/switch/server.py): requests dispatched by name,
``end`` once and only after ``begin``, and replies a rank does not read bounded by the switch."""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cjudge.switch import shm
from cjudge.switch.core import Limits, Switch
from cjudge.switch.server import SCHEMA, BadRequest, SwitchServer, checked
from cjudge.switch.trace import recorded_bytes
from cjudge.switch.wire import encode, read_frame, read_hello

ALL = frozenset({"send", "recv", "all_reduce"})


class Rank:
    """A rank's end of its channel, driven by hand."""

    def __init__(self, server: SwitchServer, path: Path, rank: int) -> None:
        self.server = server
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.sock.settimeout(5)
        self.send("hello", rank=rank)
        hello, self.fd = self.polled(lambda: read_hello(self.sock))
        self.segment = None if self.fd is None else shm.Segment(self.fd, hello["area"])
        assert hello == {"ok": True, "area": server.area if self.segment else 0}

    def send(self, request: str, payload: bytes = b"", **fields: Any) -> None:
        self.sock.sendall(encode({"request": request, **fields}, payload))

    def polled(self, read: Callable[[], Any]) -> Any:
        """What ``read`` returns, the judge polled meanwhile."""
        answer: list[Any] = []
        reader = threading.Thread(target=lambda: answer.append(read()))
        reader.start()
        while reader.is_alive():
            self.server.poll(0.01)
        return answer[0]

    def exchange(self, request: str, payload: bytes = b"",
                 **fields: Any) -> tuple[dict[str, Any], bytes]:
        """A request and its reply: header and payload (from the shared area, if there)."""
        self.send(request, payload, **fields)
        header, data = self.polled(lambda: read_frame(self.sock))
        if self.segment is not None:
            self.segment.replied()
            if "shm" in header:
                data = self.segment.reply(header.pop("shm"))
        return header, bytes(data)

    def call(self, request: str, payload: bytes = b"", **fields: Any) -> dict[str, Any]:
        return self.exchange(request, payload, **fields)[0]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[SwitchServer, Path]]:
    """A world of one whose replies all travel in their frames (no shared segment)."""
    path = tmp_path / "switch.sock"
    server = SwitchServer(path, Switch(1, ALL, limits=Limits(held_bytes=64 << 20)), area=0)
    yield server, path
    server.close()


def test_every_request_but_hello_and_the_posts_has_a_handler_by_name(
        served: tuple[SwitchServer, Path]):
    server, _ = served
    named = {op for op in SCHEMA if op != "hello" and not op.startswith("post_")}
    assert set(server._handlers) == named


#: a post_recv whose every field is well typed (``src``, ``line``, ``wait_line`` may be None)
RECV = {"request": "post_recv", "handle": 3, "quiet": True, "wait": True, "wait_line": None,
        "group": 0, "src": None, "tag": 0, "capacity": 16, "dtype": "float32", "line": 7,
        "api": "recv"}


def test_a_request_is_checked_field_by_field_against_its_schema() -> None:
    op, fields = checked({**RECV, "extra": "ignored"})
    assert op == "post_recv" and fields == {k: v for k, v in RECV.items() if k != "request"}
    assert checked({"request": "new_group", "ranks": [0, 1]})[1] == {"ranks": [0, 1]}
    assert checked({"request": "post_collective", **{k: RECV[k] for k in (
        "handle", "group", "dtype", "api")}, "kind": "all_to_all", "splits": [4, 0]})[1][
        "splits"] == [4, 0]


@pytest.mark.parametrize(("field", "value"), [
    ("handle", True), ("handle", None), ("handle", "3"), ("handle", 3.0),  # int
    ("src", False), ("line", [7]),  # int or None
    ("quiet", 1), ("wait", "yes"),  # bool or None
    ("dtype", None), ("dtype", "f" * 201), ("api", 5),  # str, at most 200 characters
])
def test_a_field_of_the_wrong_type_is_a_bad_request(field: str, value: Any) -> None:
    with pytest.raises(BadRequest, match=f"field '{field}' is malformed"):
        checked({**RECV, field: value})


@pytest.mark.parametrize("ranks", [None, [0, True], [0, None], [0, "1"], list(range(4097))])
def test_a_list_field_holds_at_most_4096_ints(ranks: Any) -> None:
    with pytest.raises(BadRequest, match="field 'ranks' is malformed"):
        checked({"request": "new_group", "ranks": ranks})


def test_an_unknown_request_is_a_bad_request() -> None:
    headers: list[dict[str, object]] = [{"request": "shutdown"}, {"request": 3}, {}]
    for header in headers:
        with pytest.raises(BadRequest, match="unknown request"):
            checked(header)


def test_a_second_hello_is_refused_and_does_not_end_the_rank(served: tuple[SwitchServer, Path]):
    server, path = served
    rank = Rank(server, path, 0)
    assert "not expected" in rank.call("hello", rank=0)["error"]
    assert 0 not in server.records and 0 not in server.switch.finished
    assert "unknown request" in rank.call("shutdown")["error"]


def test_end_comes_once_and_with_a_result_only_after_begin(served: tuple[SwitchServer, Path]):
    server, path = served
    rank = Rank(server, path, 0)
    assert "only after its graded call began" in rank.call("end", output=1)["error"]
    assert server.records == {}
    rank.call("begin")
    assert rank.call("end", output=1) == {"ok": True}
    assert server.records[0]["output"] == 1 and server.switch.finished == {0: "returned"}
    assert "ends once" in rank.call("end", output=2)["error"]
    assert server.records[0]["output"] == 1


def test_a_rank_whose_file_failed_to_load_ends_with_its_error_without_begin(
        served: tuple[SwitchServer, Path]):
    server, path = served
    rank = Rank(server, path, 0)
    error = {"kind": "exception", "type": "NameError", "message": "x", "traceback": "",
             "line": 3}
    assert rank.call("end", error=error) == {"ok": True}
    assert server.switch.finished == {0: "failed"}


def test_replies_a_rank_never_reads_are_bounded_and_counted_as_held(
        served: tuple[SwitchServer, Path]):
    """A world of one: each all_reduce completes at once, and each wait is answered with 4 MiB.
    The rank sends 40 of them without reading a byte: the judge stops serving it once a reply
    is queued, and what is queued counts against the switch's held bytes."""
    server, path = served
    rank = Rank(server, path, 0)
    rank.call("begin")
    payload = bytes(4 << 20)

    def flood() -> None:
        try:
            for handle in range(1, 41):
                rank.send("post_collective", payload, handle=handle, quiet=True, group=0,
                          kind="all_reduce", dtype="float32", line=1, api="all_reduce", op="sum",
                          root=None, splits=None)
                rank.send("wait", handle=handle)
        except OSError:  # the judge stopped reading: the socket's buffer is full
            pass

    flooder = threading.Thread(target=flood, daemon=True)
    flooder.start()
    most = 0
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        server.poll(0.01)
        conn = server.by_rank[0]
        most = max(most, conn.queued)
        assert server.switch.held >= conn.queued
    assert 0 < most <= (4 << 20) + 4096  # one reply, not forty
    requests = server.switch.trace()["requests"]
    assert len(requests) <= 3
    rank.sock.shutdown(socket.SHUT_RDWR)  # wakes the flooder; the judge sees the channel end
    flooder.join(5)
    rank.sock.close()
    for _ in range(50):
        server.poll(0.01)
    assert server.switch.held == 0


def test_requests_read_at_once_are_served_only_while_the_rank_reads_its_replies(
        served: tuple[SwitchServer, Path]):
    """Sixteen all_reduces done, then sixteen waits in one write (one read on the judge's side):
    the first answer queued, the judge serves the next wait only once the rank has read it."""
    server, path = served
    rank = Rank(server, path, 0)
    rank.call("begin")

    def post_then_wait() -> None:
        for handle in range(1, 17):
            rank.send("post_collective", bytes(1 << 20), handle=handle, quiet=True, group=0,
                      kind="all_reduce", dtype="float32", line=1, api="all_reduce", op="sum",
                      root=None, splits=None)
        rank.sock.sendall(b"".join(encode({"request": "wait", "handle": h})
                                   for h in range(1, 17)))

    sender = threading.Thread(target=post_then_wait)
    sender.start()
    most = 0
    for _ in range(200):
        server.poll(0.01)
        most = max(most, server.by_rank[0].queued)
    sender.join()
    assert 0 < most <= (1 << 20) + 4096
    for _ in range(16):  # reading them all gets every answer
        header, data = read_frame_polling(server, rank)
        assert header == {"ok": True, "src": None} and len(data) == 1 << 20


def read_frame_polling(server: SwitchServer, rank: Rank) -> tuple[dict[str, Any], bytes]:
    """One reply, the judge polled meanwhile."""
    got: list[tuple[dict[str, Any], bytes]] = []
    reader = threading.Thread(target=lambda: got.append(read_frame(rank.sock)))
    reader.start()
    while reader.is_alive():
        server.poll(0.01)
    return got[0]


def test_a_request_past_the_judges_frame_limit_is_the_judges_limit(tmp_path: Path):
    """An honest result larger than the judge reads is the judge's limit (its ``judge_error``);
    a post that large is the learner's to split, and bytes that are no request, however long
    they say they are, are the rank's fault."""
    path = tmp_path / "switch.sock"
    server = SwitchServer(path, Switch(3, ALL, limits=Limits(message_bytes=1024)))
    try:
        honest, poster, forger = (Rank(server, path, r) for r in range(3))
        honest.call("begin")
        honest.send("end", bytes(4096), output={"shape": [1024], "dtype": "float32",
                                                "at": [0, 4096]})
        poster.send("post_send", bytes(4096), handle=1, quiet=True, group=0, dst=0, tag=0,
                    dtype="float32", line=1, api="send")
        forger.sock.sendall(struct.pack(">II", 2, 1 << 20) + b"{}")
        for _ in range(50):
            server.poll(0.01)
        assert server.records[0]["error"]["kind"] == "judge"
        assert "over the judge's limit (1024 bytes)" in server.records[0]["error"]["message"]
        assert [server.records[r]["error"]["kind"] for r in (1, 2)] == ["exception"] * 2
    finally:
        server.close()


def two_ranks(tmp_path: Path, switch: Switch) -> Iterator[tuple[Rank, Rank, SwitchServer]]:
    """Two ranks of ``switch`` in their graded calls, each with its shared segment."""
    path = tmp_path / "switch.sock"
    server = SwitchServer(path, switch)
    ranks = Rank(server, path, 0), Rank(server, path, 1)
    if any(r.segment is None for r in ranks):
        pytest.skip("no memfd segments on this system")
    for r in ranks:
        r.call("begin")
    yield *ranks, server
    server.close()


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Rank, Rank, SwitchServer]]:
    """Two ranks in their graded calls, each with its shared segment."""
    yield from two_ranks(tmp_path, Switch(2, ALL))


@pytest.fixture
def unrecorded(tmp_path: Path) -> Iterator[tuple[Rank, Rank, SwitchServer]]:
    """Two ranks as in ``pair``, of a switch that records no payload's values."""
    yield from two_ranks(tmp_path, Switch(2, ALL, limits=Limits(recorded_values=0)))


def post_send(rank: Rank, at: list[int], handle: int = 1) -> dict[str, Any]:
    return rank.call("post_send", handle=handle, quiet=False, group=0, dst=1, tag=0,
                     dtype="float32", line=1, api="send", shm=at)


def test_a_payload_sent_through_shared_memory_is_the_switchs_once_sent(
        pair: tuple[Rank, Rank, SwitchServer]):
    """Copy on send: what rank 0 writes into its area after the judge answered its post changes
    neither what rank 1 receives nor what the trace counts and records."""
    sender, receiver, server = pair
    sent = bytes(range(256)) * 256  # 64 KiB: recorded in the trace
    assert sender.segment is not None
    at = sender.segment.place([sent])
    assert post_send(sender, at) == {"ok": 1}
    assert sender.segment.place([bytes(len(sent))]) == at  # the area reused: zeros over it
    receiver.call("post_recv", handle=1, quiet=False, group=0, src=0, tag=0,
                  capacity=len(sent), dtype="float32", line=2, api="recv")
    header, data = receiver.exchange("wait", handle=1)
    assert header == {"ok": True, "src": 0} and data == sent
    message = server.switch.trace()["messages"][0]
    assert message["bytes"] == len(sent) and recorded_bytes(message["data"]) == sent


def post_recv(rank: Rank, handle: int, capacity: int) -> dict[str, Any]:
    return rank.call("post_recv", handle=handle, quiet=False, group=0, src=0, tag=0,
                     capacity=capacity, dtype="float32", line=2, api="recv")


def test_a_send_meeting_a_posted_receive_goes_straight_into_the_receivers_area(
        unrecorded: tuple[Rank, Rank, SwitchServer]):
    """Rank 1's receives are posted: the judge copies each of rank 0's payloads from rank 0's
    area into rank 1's as it handles the post (there before rank 1 waits), each in a place of
    its own, and rank 0's later writes change neither what rank 1 receives nor what is
    counted; the switch keeps no copy."""
    sender, receiver, server = unrecorded
    assert sender.segment is not None and receiver.segment is not None
    sent = [bytes(range(256)) * 64, bytes(range(255, -1, -1)) * 32]
    for handle, payload in enumerate(sent, 1):
        assert post_recv(receiver, handle, len(payload)) == {"ok": handle}
        at = sender.segment.place([payload])
        assert post_send(sender, at, handle) == {"ok": handle}
        sender.segment.place([bytes(len(payload))])  # the area reused: zeros over it
        assert sender.exchange("wait", handle=handle) == ({"ok": True, "src": None}, b"")
    assert server.switch.held == 0
    handed = server.by_rank[1].handed  # by the switch's receive, in order
    places = [list(handed[request]) for request in sorted(handed)]
    assert places[0][0] + len(sent[0]) <= places[1][0]
    assert [bytes(receiver.segment.reply(at)) for at in places] == sent  # before any wait
    for handle, at in enumerate(places, 1):
        receiver.send("wait", handle=handle)
        header, data = receiver.polled(lambda: read_frame(receiver.sock))
        receiver.segment.replied()
        assert header == {"ok": True, "src": 0, "shm": at} and data == b""
    messages = server.switch.trace()["messages"]
    assert [m["bytes"] for m in messages] == [len(p) for p in sent]


def test_a_reply_payload_is_written_beside_a_payload_handed_in_before_it(
        unrecorded: tuple[Rank, Rank, SwitchServer]):
    """Rank 1's receive got rank 0's payload in its area; an all_reduce's result then comes
    back to rank 1 before it waits on that receive: in a place of its own, the receive's
    payload intact."""
    sender, receiver, _ = unrecorded
    assert sender.segment is not None and receiver.segment is not None
    sent = b"\x07" * 4096
    post_recv(receiver, 1, len(sent))
    post_send(sender, sender.segment.place([sent]))
    ones = struct.pack("<1024f", *[1.0] * 1024)
    for rank in (sender, receiver):
        rank.send("post_collective", ones, handle=2, quiet=True, group=0, kind="all_reduce",
                  dtype="float32", line=3, api="all_reduce", op="sum", root=None, splits=None)
    assert sender.exchange("wait", handle=2)[1] == struct.pack("<1024f", *[2.0] * 1024)
    assert receiver.exchange("wait", handle=2)[1] == struct.pack("<1024f", *[2.0] * 1024)
    assert receiver.exchange("wait", handle=1) == ({"ok": True, "src": 0}, sent)


def test_a_reply_payload_travels_in_the_receivers_area(pair: tuple[Rank, Rank, SwitchServer]):
    sender, receiver, _ = pair
    assert sender.segment is not None
    post_send(sender, sender.segment.place([b"\x01" * 1024]))
    receiver.send("post_recv", handle=1, quiet=True, group=0, src=0, tag=0, capacity=1024,
                  dtype="float32", line=2, api="recv")
    receiver.send("wait", handle=1)
    header, data = receiver.polled(lambda: read_frame(receiver.sock))
    assert header == {"ok": True, "src": 0, "shm": [0, 1024]} and data == b""


def reply(rank: Rank) -> tuple[dict[str, Any], bytes]:
    """The reply the rank is owed, the judge polled meanwhile (its payload from the area)."""
    header, data = rank.polled(lambda: read_frame(rank.sock))
    assert rank.segment is not None
    rank.segment.replied()
    if "shm" in header:
        data = rank.segment.reply(header.pop("shm"))
    return header, bytes(data)


def blocking_pair(tmp_path: Path, joined: bool) -> tuple[list[tuple[dict[str, Any], bytes]],
                                                         dict[str, Any]]:
    """Rank 1 receives 4 KiB from rank 0, both by blocking calls: each quiet post's wait in the
    post's frame (``joined``) or in a frame of its own after it. The ranks' replies and the
    switch's trace."""
    tmp_path.mkdir()
    ranks = two_ranks(tmp_path, Switch(2, ALL))
    sender, receiver, server = next(ranks)

    def blocking(rank: Rank, request: str, payload: bytes = b"", **fields: Any) -> None:
        if joined:
            rank.send(request, payload, quiet=True, wait=True, wait_line=5, **fields)
        else:
            rank.send(request, payload, quiet=True, **fields)
            rank.send("wait", handle=fields["handle"], line=5)

    try:
        blocking(receiver, "post_recv", handle=1, group=0, src=0, tag=0, capacity=4096,
                 dtype="float32", line=4, api="recv")
        for _ in range(5):
            server.poll(0.01)
        assert server.switch.waiting.keys() == {1}  # no reply yet: rank 1 waits
        blocking(sender, "post_send", bytes(range(256)) * 16, handle=1, group=0, dst=1, tag=0,
                 dtype="float32", line=4, api="send")
        return [reply(sender), reply(receiver)], dict(server.switch.trace())
    finally:
        server.close()


def test_a_quiet_post_carrying_its_wait_is_its_post_then_its_wait(tmp_path: Path):
    """One frame or two, the same replies and the same trace: the waits recorded, rank 1's
    begun before rank 0's send and ended by it, rank 0's done at once."""
    joined = blocking_pair(tmp_path / "joined", True)
    assert joined == blocking_pair(tmp_path / "apart", False)
    replies, trace = joined
    assert replies == [({"ok": True, "src": None}, b""),
                       ({"ok": True, "src": 0}, bytes(range(256)) * 16)]
    recv, send = trace["requests"]
    waits = {w["rank"]: w for w in trace["waits"]}
    assert waits[1]["request"] == recv["id"] and waits[1]["begin"] < waits[1]["end"]
    assert waits[0]["request"] == send["id"] and waits[0]["begin"] == waits[0]["end"]
    assert [w["line"] for w in trace["waits"]] == [5, 5]
    assert waits[1]["end"] == trace["messages"][0]["matched"]


def test_only_a_quiet_post_carries_its_wait(pair: tuple[Rank, Rank, SwitchServer]):
    """A loud post is answered at once: one that would also be waited on is refused unposted."""
    sender, _, server = pair
    header = sender.call("post_send", b"\x01" * 8, handle=1, quiet=False, wait=True,
                         wait_line=None, group=0, dst=1, tag=0, dtype="float32", line=1,
                         api="send")
    assert header["error"].startswith("only a quiet post")
    assert server.switch.trace()["requests"] == []


@pytest.mark.parametrize("at", [[0, 0], [shm.MIN_AREA - 8, 16], [-1, 8], [0, True], "0 8",
                                [0, 8, 8]])
def test_a_place_outside_the_rank_area_is_refused_and_the_channel_goes_on(
        pair: tuple[Rank, Rank, SwitchServer], at: Any):
    sender, _, server = pair
    assert "malformed" in post_send(sender, at)["error"]
    assert 0 not in server.switch.finished
    assert sender.segment is not None
    assert post_send(sender, sender.segment.place([bytes(8)]), handle=2) == {"ok": 2}


def test_a_payload_in_both_the_frame_and_the_area_is_refused(
        pair: tuple[Rank, Rank, SwitchServer]):
    sender, _, _ = pair
    answer = sender.call("post_send", b"\x00" * 8, handle=1, quiet=False, group=0, dst=1, tag=0,
                         dtype="float32", line=1, api="send", shm=[0, 8])
    assert "malformed" in answer["error"]


def test_a_rank_can_neither_shrink_nor_grow_its_segment(pair: tuple[Rank, Rank, SwitchServer]):
    """Its size is sealed, and so are its seals: the judge's copies in its mapping never meet a
    shorter file (a fault) or a segment sealed against writes, and the rank's shared memory never
    grows past its two areas."""
    sender, _, server = pair
    assert sender.fd is not None
    for size in (0, 4 * server.area):
        with pytest.raises(PermissionError):
            os.ftruncate(sender.fd, size)
    with pytest.raises(PermissionError):  # F_SEAL_SEAL: no seal can be added, not even this one
        fcntl.fcntl(sender.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE)


def test_a_segment_the_judge_cannot_map_leaves_payloads_to_the_channel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Out of address space for a mapping, the judge greets the rank with no segment (its
    payloads then travel in their frames, as ``served`` shows) and keeps no descriptor of it:
    a limit of the judge's, never a failed case."""
    def refused(*_args: Any, **_kwargs: Any) -> None:
        raise OSError(errno.ENOMEM, "no room to map")

    open_before = len(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(shm.mmap, "mmap", refused)
    path = tmp_path / "switch.sock"
    server = SwitchServer(path, Switch(1, ALL))
    try:
        rank = Rank(server, path, 0)  # asserts the greeting: area 0 with no descriptor
        assert rank.fd is None and server.by_rank[0].segment is None
        rank.sock.close()
    finally:
        server.close()
    assert len(os.listdir("/proc/self/fd")) == open_before


def test_no_request_is_read_while_a_reply_waits_to_be_read(tmp_path: Path):
    """Rank 0's input (16 MiB) waits in the judge for rank 0 to read it: meanwhile the judge
    reads no rank's requests (it would hold their payloads too) until rank 0 has read."""
    path = tmp_path / "switch.sock"
    big = {"shape": [4 << 20], "dtype": "float32", "data": bytes(16 << 20)}
    server = SwitchServer(path, Switch(2, ALL, inputs=[big, big]), area=0)
    try:
        reader, other = Rank(server, path, 0), Rank(server, path, 1)
        reader.send("begin")
        other.send("begin")
        for _ in range(20):
            server.poll(0.01)
        assert server.switch.graded == [True, False]
        header, data = read_frame_polling(server, reader)
        assert len(data) == 16 << 20
        for _ in range(20):
            server.poll(0.01)
        assert server.switch.graded == [True, True]
    finally:
        server.close()
