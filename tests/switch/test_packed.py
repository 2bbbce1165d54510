"""Tensors as bytes (cjudge/switch/packed.py): a value packed and unpacked is the value it was,
and a skeleton from a rank that does not fit its bytes is refused, never read past."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cjudge.switch import packed
from cjudge.switch.server import result_record

FLOAT32 = st.floats(width=32, allow_nan=False)


def tensor(data: list, dtype: str = "float32") -> dict:
    return {"shape": [len(data)], "dtype": dtype, "data": data}


@given(st.lists(FLOAT32, max_size=50), st.lists(st.integers(-(1 << 63), (1 << 63) - 1)),
       st.lists(st.booleans(), max_size=9))
def test_a_value_comes_back_as_it_was_packed(floats: list, ints: list, bools: list):
    value = {"tuple": [tensor(floats), [tensor(ints, "int64"), 2.5, None], tensor(bools, "bool")]}
    skeleton, parts = packed.pack(value)
    assert "data" not in str(skeleton)  # only shapes, dtypes and offsets are JSON
    assert packed.unpack(skeleton, b"".join(parts)) == value


def test_each_tensor_starts_aligned_and_a_dtype_the_judge_lacks_stays_a_list():
    odd = {"shape": [2], "dtype": "float16", "data": [1.0, 2.0]}
    skeleton, parts = packed.pack([tensor([True], "bool"), tensor([7], "int64"), odd])
    assert skeleton[1]["at"] == [packed.ALIGN, 8] and skeleton[2] == odd
    assert packed.unpack(skeleton, b"".join(parts))[1]["data"] == [7]


@pytest.mark.parametrize("at", [[4, 8], [0, 4], [1 << 40, 8]])
def test_a_tensor_outside_its_bytes_is_a_malformed_result(at: list):
    header = {"output": {"shape": [2], "dtype": "float32", "at": at}}
    record = result_record(header, bytes(8))
    assert record["output"] is None and "malformed" in record["error"]["message"]


def test_a_packed_result_is_read_as_its_numbers():
    skeleton, parts = packed.pack([tensor([1.5, -0.0, math.inf])])
    record = result_record({"output": skeleton}, b"".join(parts))
    assert record == {"output": [tensor([1.5, -0.0, math.inf])], "error": None}
