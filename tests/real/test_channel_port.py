"""A rank's channel (cjudge/real/judge_group.py): quiet posts need no answer, so they travel
with the rank's next request, in order; a large one goes at once; a wait on the post held last
(a blocking call's) joins that post's frame."""

from __future__ import annotations

import socket
import threading
from collections import Counter
from typing import Any

import pytest

from cjudge.contract.protocol import CaseSpec, JobSpec
from cjudge.real.judge_group import HELD_BYTES, ChannelPort
from cjudge.real.runtime import run_case
from cjudge.switch.server import SwitchServer
from cjudge.switch.wire import FrameReader, Header, encode


def drain(sock: socket.socket) -> list[tuple[dict, bytes]]:
    """Every frame readable now on ``sock``."""
    reader, frames = FrameReader(1 << 30), []
    sock.setblocking(False)
    try:
        while data := sock.recv(1 << 20):
            frames += reader.feed(data)
    except BlockingIOError:
        pass
    return frames


def test_quiet_posts_go_with_the_next_request_in_order():
    rank_end, judge_end = socket.socketpair()
    port = ChannelPort(rank_end, 0, 2, ["send"], "learner.py")
    first = port.post("post_send", "send", b"abcd", group=0, dst=1, tag=0)
    second = port.post("post_send", "send", b"efgh", group=0, dst=1, tag=0)
    assert drain(judge_end) == []  # held: nothing is waited for yet
    judge_end.setblocking(True)
    answer = threading.Thread(target=lambda: judge_end.sendall(encode({"ok": True})))
    answer.start()
    assert port.test(second) is True
    answer.join()
    frames = drain(judge_end)
    assert [(h["request"], h.get("handle"), p) for h, p in frames] == [
        ("post_send", first, b"abcd"), ("post_send", second, b"efgh"), ("test", second, b"")]


def test_a_wait_on_the_post_held_last_joins_its_frame_and_one_on_another_goes_alone():
    rank_end, judge_end = socket.socketpair()
    port = ChannelPort(rank_end, 0, 2, ["send"], "learner.py")
    answers = threading.Thread(target=lambda: judge_end.sendall(
        encode({"ok": True, "src": None}) * 2))
    answers.start()
    first = port.post("post_send", "send", b"abcd", group=0, dst=1, tag=0)
    second = port.post("post_send", "send", b"efgh", group=0, dst=1, tag=0)
    assert port.wait(second, 7) == (None, b"")
    assert port.wait(first, 9) == (None, b"")
    answers.join()
    frames = drain(judge_end)
    assert [(h["request"], h["handle"], h.get("wait"), h.get("wait_line"), h.get("line"), p)
            for h, p in frames] == [("post_send", first, None, None, None, b"abcd"),
                                    ("post_send", second, True, 7, None, b"efgh"),
                                    ("wait", first, None, None, 9, b"")]


PING_PONG = """
import torch
import torch.distributed as dist

def f(t):
    peer = 1 - dist.get_rank()
    for _ in range(3):
        if dist.get_rank() == 0:
            dist.send(t, peer)
            dist.recv(t, peer)
        else:
            dist.recv(t, peer)
            dist.send(t, peer)
    return t
"""


def test_a_blocking_call_is_one_frame_to_the_judge_and_its_wait_is_recorded(
        monkeypatch: pytest.MonkeyPatch):
    """On real ranks each dist.send and dist.recv reaches the judge as one post that carries
    its wait; the switch records every wait, begun after its post and ended."""
    requests: Counter[object] = Counter()
    handle = SwitchServer._handle

    def counted(server: SwitchServer, conn: Any, header: Header, payload: bytes) -> None:
        requests[header.get("request")] += 1
        handle(server, conn, header, payload)

    monkeypatch.setattr(SwitchServer, "_handle", counted)
    job = JobSpec(function="f", output="return", allowed=["send", "recv"], code=PING_PONG,
                  filename="ping.py", time_limit_s=60.0, output_limit_bytes=1 << 16)
    data = {"shape": [1024], "dtype": "float32", "data": [1.0] * 1024}
    raw = run_case(job, CaseSpec(name="ping", world_size=2, sample=False, params={},
                                 inputs=[data, data]))
    assert [r["state"] for r in raw["ranks"]] == ["returned", "returned"]
    assert (requests["post_send"], requests["post_recv"], requests["wait"]) == (6, 6, 0)
    trace = raw["trace"]
    posted = {r["id"]: r["posted"] for r in trace["requests"] if r["graded"]}
    assert len(posted) == 12 and len(trace["messages"]) == 6
    assert sorted(w["request"] for w in trace["waits"]) == sorted(posted)
    assert all(posted[w["request"]] <= w["begin"] <= w["end"] for w in trace["waits"])


def test_a_large_quiet_post_is_not_held():
    rank_end, judge_end = socket.socketpair()
    port = ChannelPort(rank_end, 0, 2, ["send"], "learner.py")
    for end in (rank_end, judge_end):
        end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 * HELD_BYTES)
        end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * HELD_BYTES)
    received: list[tuple[dict, bytes]] = []
    reader = threading.Thread(target=lambda: received.extend(_frames(judge_end, 1)))
    reader.start()
    port.post("post_send", "send", bytes(HELD_BYTES + 1), group=0, dst=1, tag=0)
    reader.join(30)
    assert [len(p) for _, p in received] == [HELD_BYTES + 1]


def _frames(sock: socket.socket, count: int) -> list[tuple[dict, bytes]]:
    reader, frames = FrameReader(1 << 30), []
    while len(frames) < count:
        frames += reader.feed(sock.recv(1 << 20))
    return frames
