"""One rule for sizes and times: reading (nccl-tests' binary K/M/G, decimal KB/MB/GB, fractions)
and writing, and the browser's copy of the writing rule held to the same table."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from cjudge.contract.units import SizeError, format_seconds, format_size, parse_size, parse_sizes, plural

ROOT = Path(__file__).resolve().parents[1]
SIZES = [8, 500, 1000, 1024, 1536, 4096, 10**6, 999_999, 19_800_000, 64 * 2**20, 10**9, 2**30,
         1.5 * 2**30, 125_000.5]
SECONDS = [0.0, 850e-9, 73.889e-6, 999.99e-6, 3.9589e-3, 1.2, 12.345]


@pytest.mark.parametrize(("text", "nbytes"), [
    ("8", 8), ("1K", 1024), ("2k", 2048), ("64M", 64 * 2**20), ("1G", 2**30), ("4MiB", 4 * 2**20),
    ("4KiB", 4096), ("1KB", 1000), ("1MB", 10**6), ("1GB", 10**9), ("1.5M", 3 * 2**19),
    ("0.5K", 512), ("512B", 512), (" 16 K ", 16384), (512, 512)])
def test_parse_size(text: str | int, nbytes: int) -> None:
    assert parse_size(text) == nbytes


@pytest.mark.parametrize("text", ["", "-1K", "12X", "M", "0.5B", "0", "1 parsec", "1e9"])
def test_parse_size_refuses_what_is_not_a_size(text: str) -> None:
    with pytest.raises(SizeError, match="bad size"):
        parse_size(text)


def test_parse_sizes_lists_and_ranges() -> None:
    assert parse_sizes("1K..8K") == [1024, 2048, 4096, 8192]
    assert parse_sizes("4KiB,1MB") == [4096, 10**6]
    with pytest.raises(SizeError, match="bad range"):
        parse_sizes("1G..1K")


def test_one_million_bytes_reads_and_prints_alike_everywhere() -> None:
    assert format_size(parse_size("1MB")) == "1 MB"
    assert format_size(parse_size("1M")) == "1 MiB"


def test_format_size_and_seconds() -> None:
    assert [format_size(n) for n in SIZES] == [
        "8 B", "500 B", "1 KB", "1 KiB", "1.5 KiB", "4 KiB", "1 MB", "1000 KB", "19.8 MB",
        "64 MiB", "1 GB", "1 GiB", "1.5 GiB", "125 KB"]
    assert [format_seconds(s) for s in SECONDS] == [
        "0 ns", "850 ns", "73.9 µs", "1000 µs", "3.96 ms", "1.2 s", "12.3 s"]
    assert format_seconds(73.889e-6, 4) == "73.89 µs"


@pytest.mark.skipif(shutil.which("node") is None, reason="the browser's rule needs Node.js")
def test_the_browser_writes_sizes_and_times_as_the_kernel_does() -> None:
    script = ("import('./web/src/app/units.js').then((u) => console.log(JSON.stringify({"
              f"sizes: {json.dumps(SIZES)}.map(u.formatSize), "
              f"seconds: {json.dumps(SECONDS)}.map((s) => u.formatSeconds(s)), "
              "four: u.formatSeconds(73.889e-6, 4)})))")
    out = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out) == {"sizes": [format_size(n) for n in SIZES],
                               "seconds": [format_seconds(s) for s in SECONDS],
                               "four": format_seconds(73.889e-6, 4)}


@pytest.mark.skipif(shutil.which("node") is None, reason="the browser's rule needs Node.js")
def test_nan_and_infinities_print_as_python_prints_them_on_both_sides() -> None:
    """The page reads them as the verdict JSON writes them ("nan", "inf", "-inf") or as numbers."""
    odd = [math.nan, math.inf, -math.inf]
    assert [format_seconds(x) for x in odd] == [format_size(x) for x in odd] == \
        ["nan", "inf", "-inf"]
    script = ("import('./web/src/app/units.js').then((u) => console.log(JSON.stringify("
              "['nan', 'inf', '-inf', NaN, Infinity, -Infinity].flatMap((x) => "
              "[u.formatSeconds(x), u.formatSize(x), u.nonFinite(x)]))))")
    out = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out) == [said for said in ("nan", "inf", "-inf") for _ in range(3)] * 2


def test_plural_says_one_call_and_many_calls():
    assert plural(1, "call") == "1 call" and plural(3, "call") == "3 calls"
    assert plural(0, "element") == "0 elements" and plural(12000, "message") == "12,000 messages"
