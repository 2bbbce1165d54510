"""dtypes: float32 is rounded to float32 on every write; float64 and int64 are exact; promotion."""

from __future__ import annotations

import struct

import pytest

from .helpers import torch


def f32(x: float) -> float:
    """``x`` rounded to the nearest float32, as a Python float."""
    return struct.unpack("f", struct.pack("f", x))[0]


def test_float32_values_are_rounded_when_stored():
    t = torch.tensor([0.1, 1 / 3, 16777217.0])
    assert t.tolist() == [f32(0.1), f32(1 / 3), 16777216.0]
    assert t.tolist()[0] != 0.1


def test_float32_arithmetic_rounds_each_result_like_float32_hardware():
    a, b = torch.tensor([0.1]), torch.tensor([0.2])
    assert (a + b).item() == f32(f32(0.1) + f32(0.2))
    acc = torch.zeros(1)
    for _ in range(10):
        acc += torch.tensor([0.1])
    expected = 0.0
    for _ in range(10):
        expected = f32(expected + f32(0.1))
    assert acc.item() == expected
    assert (a + 0.1).item() == f32(f32(0.1) + f32(0.1))  # the Python float becomes a float32 first


def test_float32_writes_through_views_and_copies_round_too():
    t = torch.zeros(3)
    t[1:].copy_(torch.tensor([0.1, 0.7], dtype=torch.float64))
    assert t.tolist() == [0.0, f32(0.1), f32(0.7)]
    t.fill_(1e-46)
    assert t.tolist() == [0.0, 0.0, 0.0]


def test_float64_and_int64_keep_exact_values():
    d = torch.tensor([0.1, 1 / 3], dtype=torch.float64)
    assert d.tolist() == [0.1, 1 / 3]
    big = torch.tensor([2**62 + 1])
    assert big.dtype is torch.int64 and big.item() == 2**62 + 1
    assert torch.tensor([2.9, -2.9]).long().tolist() == [2, -2]


def test_dtype_objects_aliases_and_sizes():
    assert torch.float is torch.float32 and torch.double is torch.float64
    assert torch.long is torch.int64
    assert [d.itemsize for d in (torch.float32, torch.float64, torch.int64)] == [4, 8, 8]
    assert torch.ones(3, dtype=torch.double).element_size() == 8
    assert torch.zeros(5).element_size() == 4 and torch.zeros(5).nbytes == 20
    assert repr(torch.float32) == "torch.float32"


def test_type_promotion_follows_torch():
    ints = torch.tensor([1, 2])
    assert (ints + 1).dtype is torch.int64
    assert (ints + 1.5).dtype is torch.float32
    assert (ints / 2).dtype is torch.float32 and (ints / 2).tolist() == [0.5, 1.0]
    assert (torch.ones(2) + torch.ones(2, dtype=torch.float64)).dtype is torch.float64
    assert (torch.ones(2) + torch.tensor(1.0, dtype=torch.float64)).dtype is torch.float32
    assert (ints + torch.tensor(1.5, dtype=torch.float64)).dtype is torch.float64


def test_in_place_ops_refuse_a_result_their_dtype_cannot_hold():
    t = torch.ones(3, dtype=torch.long)
    with pytest.raises(RuntimeError, match="Float can't be cast to the desired output type Long"):
        t += 0.5
    f = torch.ones(2)
    f += torch.tensor([0.1, 0.2], dtype=torch.float64)
    assert f.dtype is torch.float32 and f.tolist() == [f32(1.1), f32(1.2)]


def test_division_by_zero_gives_inf_and_nan_like_torch():
    out = torch.tensor([1.0, -1.0, 0.0]) / 0
    assert out.tolist()[:2] == [float("inf"), float("-inf")]
    assert out.tolist()[2] != out.tolist()[2]
