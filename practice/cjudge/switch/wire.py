"""Frames on a rank's private channel to the switch: a JSON header and raw payload bytes.

A frame is ``>II`` (header length, payload length), the header (UTF-8 JSON object), then the
payload. The judge's side decodes with :class:`FrameReader`, which never trusts a length:
bytes that are no frame are the rank's fault; a request whose payload is past the limit is
:class:`FrameTooLarge`, the judge's own limit (a rank's honest result may be that large).
"""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Mapping
from typing import Any, TypedDict, cast

from ..contract.protocol import RankError, TensorData

_HEAD = struct.Struct(">II")
MAX_HEADER = 1 << 20
#: socket buffers asked for on both ends of a channel (the system may grant less): a
#: megabyte's frame then crosses in one write and one read, not in a dozen wake-ups
SOCKET_BUFFER = 4 << 20
#: bytes the judge reads at once before a payload (lengths, headers, small payloads)
_READ = 1 << 16
#: a frame's header as it arrives: a JSON object, its fields checked by whoever reads it (the
#: judge: ``server.checked``)
Header = dict[str, object]


class Reply(TypedDict, total=False):
    """The judge's answer to a rank's request, as ``server`` writes it and the rank reads it."""

    ok: Any  # the request's answer: True, a request or group number, a packed value
    src: int | None  # a completed receive's source
    error: str  # the switch refused the request (in English; ``zh`` in Chinese)
    zh: str
    forbidden: str  # the refused call's kind, when it is not allowed
    api: str | None
    shm: list[int]  # the payload's place in the judge's shared area, not in the frame (``shm``)
    area: int  # ``hello``'s answer: each shared area's bytes (0: none; the segment beside it)


class EndRecord(TypedDict):
    """A rank's last word, its ``end`` request: the graded call's output or its error (the rank
    writes it; the judge checks it with ``server.result_record``)."""

    output: TensorData | None
    error: RankError | None


def widen(sock: Any) -> None:
    """Ask for :data:`SOCKET_BUFFER` bytes of buffer each way on a channel's socket."""
    for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
        sock.setsockopt(socket.SOL_SOCKET, option, SOCKET_BUFFER)


class MalformedFrame(ValueError):
    """Bytes on a channel that are not a frame within the limits."""


class FrameTooLarge(MalformedFrame):
    """A frame whose header is readable but whose payload is longer than the judge reads: a
    limit of the judge when the header is a request it knows (see ``server``)."""

    def __init__(self, message: str, header: Header) -> None:
        super().__init__(message)
        self.header = header


def encode(header: Mapping[str, object], payload: bytes = b"") -> bytes:
    """One frame."""
    return head_of(header, len(payload)) + payload


#: one encoder for every header (``json.dumps`` with its own separators builds one a call)
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def head_of(header: Mapping[str, object], payload_len: int) -> bytes:
    """A frame's bytes before its payload (the payload then follows as it is, uncopied)."""
    head = _COMPACT.encode(header).encode()
    return _HEAD.pack(len(head), payload_len) + head


def _header(head: bytes | bytearray) -> Header:
    """A frame's header, or :class:`MalformedFrame`."""
    try:
        header = json.loads(head)
    except (ValueError, RecursionError) as exc:
        raise MalformedFrame(f"a frame's header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise MalformedFrame("a frame's header is not a JSON object")
    return header


class FrameReader:
    """Frames out of a byte stream fed in pieces (the judge's non-blocking reads). A frame's
    payload is received straight into a buffer of its own, grown as its bytes arrive (a length
    the rank merely claims reserves nothing)."""

    def __init__(self, max_payload: int) -> None:
        self.max_payload = max_payload
        self._buffer = bytearray()  # bytes before a payload: lengths and headers
        self._header: Header | None = None  # the frame whose payload is arriving
        self._size = 0  # its payload's length
        self._body = bytearray()  # its payload so far, ``_got`` bytes of it
        self._got = 0

    def read(self, sock: Any) -> list[tuple[Header, bytes]]:
        """Every whole frame one read from the non-blocking ``sock`` completes; EOF raises
        :class:`ConnectionError`, a socket with nothing to read :class:`BlockingIOError`."""
        if self._header is None:
            data = sock.recv(_READ)
            if not data:
                raise ConnectionError("the rank closed its channel")
            return self.feed(data)
        self._room()
        with memoryview(self._body) as view:
            got = sock.recv_into(view[self._got:])
        if not got:
            raise ConnectionError("the rank closed its channel")
        self._got += got
        return self.feed(b"")

    def feed(self, data: bytes) -> list[tuple[Header, bytes]]:
        """Every whole frame ``data`` completes; :class:`MalformedFrame` on bad bytes."""
        frames: list[tuple[Header, bytes]] = []
        self._buffer += data
        pos = 0  # what of ``_buffer`` is used: cut once at the end, not per frame
        while True:
            if self._header is not None:
                with memoryview(self._buffer) as view:
                    pos += self._fill(view[pos:])
                if self._got < self._size:
                    break
                frames.append((self._header, self._take()))
                continue
            after = self._start(pos)
            if after is None:
                break
            pos = after
        del self._buffer[:pos]
        return frames

    def _start(self, pos: int) -> int | None:
        """Begin the frame whose lengths and header ``_buffer`` holds at ``pos``; where its
        payload starts, or None while they have not all arrived."""
        if len(self._buffer) - pos < _HEAD.size:
            return None
        head_len, body_len = _HEAD.unpack_from(self._buffer, pos)
        if head_len > MAX_HEADER:
            raise MalformedFrame(f"a frame's header of {head_len} bytes is over the limits")
        begin = pos + _HEAD.size
        if len(self._buffer) < begin + head_len:
            return None
        header = _header(self._buffer[begin:begin + head_len])
        if body_len > self.max_payload:  # said by its header, read first
            raise FrameTooLarge(f"a frame of {body_len} bytes is over the judge's limit "
                                f"({self.max_payload} bytes)", header)
        self._header, self._size, self._body, self._got = header, body_len, bytearray(), 0
        return begin + int(head_len)

    def _room(self) -> None:
        """Grow the payload's buffer to hold more of it: twice what has arrived, at least
        :data:`_READ`, at most the payload."""
        if len(self._body) == self._got:
            grown = min(self._size, max(2 * self._got, _READ))
            self._body += bytes(grown - len(self._body))

    def _fill(self, data: memoryview) -> int:
        """Copy what of ``data`` belongs to the payload arriving into it; how many bytes."""
        used = 0
        while used < len(data) and self._got < self._size:
            self._room()
            n = min(len(data) - used, len(self._body) - self._got)
            self._body[self._got:self._got + n] = data[used:used + n]
            self._got += n
            used += n
        return used

    def _take(self) -> bytes:
        """The payload that arrived whole (its buffer, not a copy); ready for the next frame."""
        body, self._header, self._body = self._body, None, bytearray()
        # the buffer, never written again, is read as bytes by the switch (no copy)
        return cast(bytes, body) if self._size else b""


def decode(message: bytes, max_payload: int = 1 << 30) -> tuple[Header, bytes]:
    """The one frame ``message`` holds (a whole message, e.g. over shared memory)."""
    frames = FrameReader(max_payload).feed(message)
    if len(frames) != 1:
        raise MalformedFrame(f"a message holds {len(frames)} frames, not one")
    return frames[0]


def read_frame(sock: Any) -> tuple[Reply, bytearray]:
    """One reply from a blocking socket (the rank's side: the judge wrote it, as a ``Reply``)."""
    head = _recv_exactly(sock, _HEAD.size)
    head_len, body_len = _HEAD.unpack(head)
    header = cast(Reply, json.loads(_recv_exactly(sock, head_len)))
    return header, _recv_exactly(sock, body_len)


def read_hello(sock: Any) -> tuple[Reply, int | None]:
    """The judge's answer to ``hello`` and the descriptor of the rank's shared segment sent
    with it (None if none came)."""
    head, fds, _, _ = socket.recv_fds(sock, _HEAD.size, 1)
    if not head:
        raise ConnectionError("the judge closed the channel")
    head_len, body_len = _HEAD.unpack(head + _recv_exactly(sock, _HEAD.size - len(head)))
    header = cast(Reply, json.loads(_recv_exactly(sock, head_len)))
    _recv_exactly(sock, body_len)
    return header, fds[0] if fds else None


def _recv_exactly(sock: Any, n: int) -> bytearray:
    """``n`` bytes, received straight into one buffer."""
    buffer, got = bytearray(n), 0
    with memoryview(buffer) as view:
        while got < n:
            received = sock.recv_into(view[got:], n - got)
            if not received:
                raise ConnectionError("the judge closed the channel")
            got += received
    return buffer
