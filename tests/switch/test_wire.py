"""Frames on a rank's channel (cjudge/switch/wire.py): the judge's reader takes them in any
pieces, receives a payload straight into its own buffer, and reserves nothing for a length a
rank merely claims."""

from __future__ import annotations

import socket
import struct
import threading
import tracemalloc

import pytest

from cjudge.switch.wire import FrameReader, FrameTooLarge, encode

FRAMES = [({"request": "a"}, b""), ({"request": "b", "n": 1}, bytes(range(256)) * 300),
          ({"request": "c"}, b"xyz")]
STREAM = b"".join(encode(h, p) for h, p in FRAMES)


@pytest.mark.parametrize("piece", [1, 7, 4096, len(STREAM)])
def test_frames_fed_in_any_pieces_come_out_whole_and_in_order(piece: int):
    reader = FrameReader(1 << 20)
    frames = []
    for start in range(0, len(STREAM), piece):
        frames += reader.feed(STREAM[start:start + piece])
    assert frames == FRAMES


def test_a_payload_read_from_a_socket_arrives_whole():
    rank, judge = socket.socketpair()
    payload = bytes(range(251)) * (12 << 12)  # a few megabytes: many reads
    writer = threading.Thread(target=lambda: rank.sendall(encode({"request": "p"}, payload)
                                                          + encode({"request": "q"})))
    writer.start()
    reader, frames = FrameReader(1 << 30), []
    while len(frames) < 2:
        frames += reader.read(judge)
    writer.join()
    assert frames == [({"request": "p"}, payload), ({"request": "q"}, b"")]
    rank.close()
    with pytest.raises(ConnectionError):
        reader.read(judge)


def test_a_claimed_length_reserves_nothing():
    """A header that says a gigabyte follows, then ten bytes: the reader holds about ten."""
    reader = FrameReader(1 << 31)
    head = b'{"request":"p"}'
    tracemalloc.start()
    try:
        assert reader.feed(struct.pack(">II", len(head), 1 << 30) + head + bytes(10)) == []
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 1 << 20


def test_a_payload_past_the_limit_is_refused_by_its_header():
    with pytest.raises(FrameTooLarge) as refused:
        FrameReader(1024).feed(encode({"request": "end"}, bytes(2048))[:100])
    assert refused.value.header == {"request": "end"}
