"""A rank's channel (cjudge/real/judge_group.py): quiet posts need no answer, so they travel
with the rank's next request, in order; a large one goes at once."""

from __future__ import annotations

import socket
import threading

from cjudge.real.judge_group import HELD_BYTES, ChannelPort
from cjudge.switch.wire import FrameReader, encode


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
