"""Size arguments and sweeps as nccl-tests takes them."""

import pytest

from cjudge.bench.sizes import format_size, parse_size, sweep


@pytest.mark.parametrize(("text", "nbytes"), [("8", 8), ("1K", 1024), ("64M", 64 * 2**20),
                                              ("1G", 2**30), ("2k", 2048), ("4MiB", 4 * 2**20)])
def test_parse_size(text: str, nbytes: int) -> None:
    assert parse_size(text) == nbytes


@pytest.mark.parametrize("text", ["", "1.5M", "-1K", "12X", "M"])
def test_parse_size_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="bad size"):
        parse_size(text)


def test_sweep_by_factor_and_by_step() -> None:
    assert sweep(1024, 8192, 2, 1) == [1024, 2048, 4096, 8192]
    assert sweep(1024, 9000, 4, 1) == [1024, 4096]
    assert sweep(1, 4, 1, 1) == [1, 2, 3, 4]


def test_sweep_rejects_empty_or_endless() -> None:
    with pytest.raises(ValueError):
        sweep(10, 5, 2, 1)
    with pytest.raises(ValueError):
        sweep(1, 5, 1, 0)


def test_format_size() -> None:
    assert [format_size(n) for n in (8, 1024, 1536, 64 * 2**20, 2**30)] == [
        "8 B", "1 KiB", "1.5 KiB", "64 MiB", "1 GiB"]
