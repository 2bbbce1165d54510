"""Constructors and ops the exercises and learners use, and errors for what is missing."""

from __future__ import annotations

import pytest

from cjudge.sim.errors import LOCAL_JUDGE

from .helpers import torch


def test_constructors_shapes_and_dtypes():
    assert torch.zeros(2, 3).tolist() == [[0, 0, 0], [0, 0, 0]]
    assert torch.ones((2,), dtype=torch.int64).tolist() == [1, 1]
    assert torch.full((2, 2), 7).dtype is torch.int64
    assert torch.full((2,), 1.5).tolist() == [1.5, 1.5]
    assert torch.empty(4).shape == (4,) and torch.empty(2, 2).size() == (2, 2)
    assert torch.arange(3).tolist() == [0, 1, 2] and torch.arange(3).dtype is torch.int64
    assert torch.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    for like in (torch.empty_like(t), torch.zeros_like(t), torch.ones_like(t)):
        assert like.shape == t.shape and like.dtype is torch.float64
    assert torch.ones_like(t).sum().item() == 4.0
    assert torch.tensor(3.5).dim() == 0 and torch.tensor(3.5).item() == 3.5
    assert torch.tensor([True, False]).dtype is torch.bool


def test_randn_is_reproducible_per_seed_and_generator():
    torch.manual_seed(7)
    a = torch.randn(5)
    torch.manual_seed(7)
    assert torch.randn(5).tolist() == a.tolist()
    torch.manual_seed(8)
    assert torch.randn(5).tolist() != a.tolist()
    g = torch.Generator().manual_seed(7)
    assert torch.randn(3, generator=g).tolist() == torch.randn(
        3, generator=torch.Generator().manual_seed(7)).tolist()
    r = torch.rand(1000)
    assert 0 <= min(r.tolist()) and max(r.tolist()) < 1
    assert torch.randn(2, 3, dtype=torch.float64).dtype is torch.float64


def test_clone_is_independent_and_copy_broadcasts():
    t = torch.arange(4.0)
    c = t.clone()
    c[0] = 10
    assert t[0].item() == 0
    m = torch.zeros(2, 3)
    m.copy_(torch.tensor([1.0, 2.0, 3.0]))
    assert m.tolist() == [[1, 2, 3], [1, 2, 3]]


def test_arithmetic_and_broadcasting():
    a = torch.tensor([[1.0], [2.0]])
    b = torch.tensor([10.0, 20.0, 30.0])
    assert (a + b).tolist() == [[11, 21, 31], [12, 22, 32]]
    assert (b - 1).tolist() == [9, 19, 29] and (1 - b).tolist() == [-9, -19, -29]
    assert (b * 2).tolist() == [20, 40, 60] and (b / 10).tolist() == [1, 2, 3]
    assert (-b).tolist() == [-10, -20, -30] and torch.abs(-b).tolist() == [10, 20, 30]
    x = torch.tensor([1.0, 2.0])
    x.add_(torch.tensor([1.0, 1.0]), alpha=2).sub_(1).mul_(3).div_(2)
    assert x.tolist() == [3.0, 4.5]
    with pytest.raises(RuntimeError, match="must match the size"):
        torch.ones(2) + torch.ones(3)


def test_reductions():
    m = torch.tensor([[1, 5, 2], [7, 0, 3]])
    assert m.sum().item() == 18 and m.sum(0).tolist() == [8, 5, 5] and m.sum(1).tolist() == [8, 10]
    assert torch.sum(m, dim=1, keepdim=True).shape == (2, 1)
    assert m.max().item() == 7 and m.min().item() == 0
    values, indices = torch.max(m, 1)
    assert values.tolist() == [5, 7] and indices.tolist() == [1, 0]
    assert torch.min(m, dim=0).values.tolist() == [1, 0, 2]
    assert torch.max(torch.tensor([1, 9]), torch.tensor([4, 2])).tolist() == [4, 9]
    assert torch.tensor([1.0, 2.0]).mean().item() == 1.5
    assert torch.numel(m) == 6 and m.numel() == 6 and m.dim() == 2


def test_cat_stack_equal_allclose_eq():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0])
    assert torch.cat([a, b]).tolist() == [1, 2, 3]
    m = torch.cat([torch.zeros(2, 1), torch.ones(2, 2)], dim=1)
    assert m.tolist() == [[0, 1, 1], [0, 1, 1]]
    assert torch.stack([a, a]).shape == (2, 2) and torch.stack([a, a], dim=1).tolist() == [[1, 1], [2, 2]]
    assert torch.equal(a, torch.tensor([1.0, 2.0])) and not torch.equal(a, torch.tensor([1.0, 3.0]))
    assert not torch.equal(a, torch.tensor([1.0, 2.0, 3.0]))
    assert torch.allclose(a, a + 1e-9) and not torch.allclose(a, a + 1e-3)
    assert torch.allclose(a, a + 1e-3, atol=1e-2)
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        torch.allclose(a, a.double())
    assert torch.eq(a, torch.tensor([1.0, 5.0])).tolist() == [True, False]
    assert (a == 2.0).tolist() == [False, True]


def test_item_tolist_and_conversions():
    t = torch.tensor([[1, 2], [3, 4]])
    assert t.tolist() == [[1, 2], [3, 4]] and isinstance(t.tolist()[0][0], int)
    assert torch.tensor([2.5]).item() == 2.5 and int(torch.tensor([3])) == 3
    assert bool(torch.tensor([1])) and float(torch.tensor(2)) == 2.0
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        t.item()
    assert t.float().dtype is torch.float32 and t.to(torch.float64).dtype is torch.float64


def test_repr_looks_like_torch():
    assert repr(torch.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(torch.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(torch.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(torch.tensor([1.0], dtype=torch.float64)) == "tensor([1.], dtype=torch.float64)"
    assert repr(torch.arange(4.0).view(2, 2)) == "tensor([[0., 1.],\n        [2., 3.]])"
    assert repr(torch.tensor(3.5)) == "tensor(3.5000)"
    assert "..." in repr(torch.arange(5000))


@pytest.mark.parametrize("reach", [
    lambda: torch.nn.Linear,
    lambda: torch.nn.functional.softplus,
    lambda: torch.cuda.Stream,  # torch.cuda's no-ops are sim.cuda's (tests/sim/test_cuda_noop.py)
    lambda: torch.distributed.all_gather_object,
    lambda: torch.ones(2).numpy(),
    lambda: torch.ones(2).pin_memory(),
    lambda: torch.ones(2).some_method_that_does_not_exist,
    lambda: torch.ones(2, dtype="float16"),
])
def test_what_is_missing_says_so_and_points_to_the_local_judge(reach):
    with pytest.raises((NotImplementedError, AttributeError)) as info:
        reach()
    message = str(info.value)
    assert LOCAL_JUDGE in message and "浏览器运行时" in message
    assert "not available in the browser runtime" in message


def test_legacy_constructor_and_new_tensors():
    assert torch.Tensor([1, 2]).dtype is torch.float32 and torch.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert torch.Tensor(2, 3).shape == (2, 3) and torch.Tensor().shape == (0,)
    assert isinstance(torch.zeros(1), torch.Tensor)
    t = torch.ones(2, dtype=torch.float64)
    assert t.new_zeros(3).tolist() == [0, 0, 0] and t.new_zeros((3,)).dtype is torch.float64
    assert t.new_empty(2, 2).shape == (2, 2) and t.new_full((2,), 5).tolist() == [5.0, 5.0]
    assert t.new_ones(1, dtype=torch.int64).tolist() == [1]
