"""Frames read back (cjudge/switch/packed.py): from a stream or from bytes, whole or refused;
a frame's tensors kept as views of its bytes pack again to the same frame, with no list made."""

from __future__ import annotations

import io
import json

import pytest

from cjudge.switch import packed

VALUE = {"job": {"name": "x"}, "cases": [
    {"inputs": [{"shape": [3], "dtype": "float32", "data": [1.5, -2.0, 0.25]},
                {"call": [{"shape": [2], "dtype": "int64", "data": [7, -(1 << 40)]}, 3]}]}]}


def frame_bytes(value: object) -> bytes:
    return b"".join(bytes(part) for part in packed.framed(value))


def test_frames_are_read_back_one_after_another_from_a_stream() -> None:
    stream = io.BytesIO(frame_bytes(VALUE) + frame_bytes({"ready": True}))
    for want in (VALUE, {"ready": True}):
        frame = packed.read_frame(stream)
        assert frame is not None
        assert packed.unpack(json.loads(frame[0]), frame[1]) == want
    assert packed.read_frame(stream) is None


@pytest.mark.parametrize("cut", [5, -1])
def test_a_frame_cut_short_is_refused(cut: int) -> None:
    data = frame_bytes(VALUE)[:cut]
    with pytest.raises(ValueError):
        packed.read_frame(io.BytesIO(data))
    with pytest.raises(ValueError):
        packed.split_frame(data)


def test_split_frame_takes_exactly_one_frame() -> None:
    skeleton, payload = packed.split_frame(frame_bytes(VALUE))
    assert packed.unpack(json.loads(skeleton), payload) == VALUE
    with pytest.raises(ValueError):
        packed.split_frame(frame_bytes(VALUE) + b"x")


def test_tensors_kept_as_views_pack_again_to_the_same_frame() -> None:
    skeleton, payload = packed.split_frame(frame_bytes(VALUE))
    kept = packed.unpack(json.loads(skeleton), payload, packed.as_view)
    data = kept["cases"][0]["inputs"][0]["data"]
    assert isinstance(data, memoryview) and data.tolist() == [1.5, -2.0, 0.25]
    assert frame_bytes(kept) == frame_bytes(VALUE)
