"""A tensor's payload bytes on a rank: a view of its memory where numpy can give one, a copy
where it cannot (a dtype numpy lacks, or numpy not installed: torch does not need it)."""

from __future__ import annotations

import pytest
import torch

from cjudge.real import judge_group


def _no_numpy(self: torch.Tensor) -> object:
    raise RuntimeError("Numpy is not available")  # what torch raises without numpy


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16])
def test_a_payload_is_the_tensors_bytes_with_or_without_numpy(monkeypatch, dtype):
    t = torch.arange(6, dtype=dtype).reshape(2, 3).t()  # strided: taken in row-major order
    want = bytes(judge_group.payload_of(t))
    assert len(want) == 6 * t.element_size()
    monkeypatch.setattr(torch.Tensor, "numpy", _no_numpy)
    assert bytes(judge_group.payload_of(t)) == want
    assert bytes(judge_group.raw_payload(t.contiguous())) == want
