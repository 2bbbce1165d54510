"""Bus-bandwidth factors, exact inputs and the wrong-element count, without running ranks."""

import pytest
import torch

from cjudge.bench.collectives import COLLECTIVES, RankCtx, count_wrong, pattern, pattern_sum

#: nccl-tests' doc/PERFORMANCE.md
FACTORS = {"all_reduce": lambda n: 2 * (n - 1) / n, "reduce_scatter": lambda n: (n - 1) / n,
           "all_gather": lambda n: (n - 1) / n, "all_to_all": lambda n: (n - 1) / n,
           "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "sendrecv": lambda n: 1.0}


@pytest.mark.parametrize("world", [1, 2, 3, 4, 8])
def test_busbw_factors_are_nccl_tests(world: int) -> None:
    assert set(COLLECTIVES) == set(FACTORS)
    for name, coll in COLLECTIVES.items():
        assert coll.factor(world) == pytest.approx(FACTORS[name](world)), name


def test_layout_size_is_the_larger_buffer() -> None:
    lay = COLLECTIVES["all_gather"].layout(4096, 4, 4)
    assert (lay.count, lay.numel_in, lay.numel_out, lay.nbytes) == (256, 256, 1024, 4096)
    lay = COLLECTIVES["reduce_scatter"].layout(4096, 4, 4)
    assert (lay.count, lay.numel_in, lay.numel_out, lay.nbytes) == (256, 1024, 256, 4096)
    lay = COLLECTIVES["all_reduce"].layout(4096, 4, 4)
    assert (lay.count, lay.numel_out, lay.nbytes) == (1024, 0, 4096)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32, torch.int32])
def test_pattern_sums_are_exact(dtype: torch.dtype) -> None:
    ctx = RankCtx(rank=0, world=8, root=0, dtype=dtype, device=torch.device("cpu"))
    exact = sum(pattern(4096, r, ctx).to(torch.int64) for r in range(8))
    assert torch.equal(pattern_sum(4096, ctx).to(torch.int64), exact)
    assert not torch.equal(pattern(4096, 0, ctx), pattern(4096, 1, ctx))


def test_count_wrong() -> None:
    expected = torch.arange(8.0)
    got = expected.clone()
    got[3] = -1
    assert count_wrong(expected.clone(), expected) == 0
    assert count_wrong(got, expected) == 1
    assert count_wrong(None, expected) == 8
    assert count_wrong(torch.zeros(4), expected) == 8


def test_a_reduce_is_checked_on_its_root_only() -> None:
    reduce = COLLECTIVES["reduce"]
    lay = reduce.layout(64, 4, 4)
    ctx = [RankCtx(rank=r, world=4, root=2, dtype=torch.float32, device=torch.device("cpu"))
           for r in range(4)]
    assert torch.equal(reduce.expected(lay, ctx[2]), pattern_sum(16, ctx[2]))
    assert reduce.expected(lay, ctx[0]) is None and count_wrong(torch.zeros(16), None) == 0
