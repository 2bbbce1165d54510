"""``bench`` over torch's six built-ins with 2 gloo ranks: the numbers, the table, the JSON."""

import io
import statistics
from pathlib import Path

import pytest
from rich.console import Console

from cjudge.bench.config import BUILTINS
from cjudge.bench.table import render_rich

from .helpers import QUICK, BenchRun, run_bench, table_rows

#: nccl-tests' factors with n = 2 ranks
FACTOR_2 = {"all_reduce": 1.0, "reduce_scatter": 0.5, "all_gather": 0.5, "all_to_all": 0.5,
            "broadcast": 1.0, "reduce": 1.0, "sendrecv": 1.0}


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> BenchRun:
    return run_bench(tmp_path_factory.mktemp("builtins"), *QUICK)


def test_every_builtin_runs_and_is_right(sweep: BenchRun) -> None:
    assert sweep.code == 0, sweep.stderr
    doc = sweep.doc
    assert doc["status"] == "ok" and doc["wrong_total"] == 0
    assert [s["label"] for s in doc["series"]] == list(BUILTINS)
    for series in doc["series"]:
        assert [r["size"] for r in series["rows"]] == [1024, 2048]
        for row in series["rows"]:
            assert row["wrong"] == 0 and row["rank_wrong"] == [0, 0]
            assert row["rank_iters"] == [2, 2]


def test_busbw_is_algbw_times_the_nccl_tests_factor(sweep: BenchRun) -> None:
    for series in sweep.doc["series"]:
        assert series["busbw_factor"] == FACTOR_2[series["label"]]
        for row in series["rows"]:
            means = [sum(times) / len(times) for times in row["rank_iter_seconds"]]
            seconds = sum(means) / 2  # -a avg, the default
            assert row["time_us"] == pytest.approx(seconds * 1e6)
            assert row["algbw"] == pytest.approx(row["size"] / seconds / 1e9)
            assert row["busbw"] == pytest.approx(row["algbw"] * FACTOR_2[series["label"]])
            median = sum(statistics.median(t) for t in row["rank_iter_seconds"]) / 2
            assert row["busbw_median"] == pytest.approx(
                row["size"] / median / 1e9 * FACTOR_2[series["label"]])


def test_the_table_shows_the_json(sweep: BenchRun) -> None:
    rows = [r for s in sweep.doc["series"] for r in s["rows"]]
    cells = table_rows(sweep.stdout)
    assert len(cells) == len(rows)
    for row, line in zip(rows, cells, strict=True):
        size, count, dtype, redop, root, *groups = line  # nccl-tests' 13 columns
        measured = groups[:4] if row["placement"] == "out-of-place" else groups[4:]
        assert groups == measured + ["N/A"] * 4 or groups == ["N/A"] * 4 + measured
        time_us, algbw, busbw, wrong = measured
        assert (int(size), int(count), dtype, redop, int(root)) == (
            row["size"], row["count"], row["type"], row["redop"], row["root"])
        decimals = len(time_us.partition(".")[2])
        assert abs(float(time_us) - row["time_us"]) <= 0.5 * 10**-decimals + 1e-9
        assert abs(float(algbw) - row["algbw"]) <= 0.005 + 1e-12
        assert abs(float(busbw) - row["busbw"]) <= 0.005 + 1e-12
        assert int(wrong) == row["wrong"]
    averages = [line.split(":")[1].split()[0] for line in sweep.stdout.splitlines()
                if line.startswith("# Avg bus bandwidth")]
    assert averages == [f"{s['avg_busbw']:.4f}" for s in sweep.doc["series"]]


def test_the_json_has_the_environment(sweep: BenchRun) -> None:
    env = sweep.doc["environment"]
    assert env["world_size"] == 2 and env["host_count"] == 1
    assert env["torch"] and env["gloo"] and env["process_group"] == "gloo"
    assert [r["rank"] for r in env["ranks"]] == [0, 1]
    assert all(r["device"] == "cpu" and r["device_name"] for r in env["ranks"])
    assert sweep.doc["config"]["iters"] == 2 and sweep.doc["launcher"] == "bench (fork)"


def test_the_chart_is_written(sweep: BenchRun) -> None:
    svg = Path(sweep.chart_path).read_text()
    assert svg.startswith("<?xml") and "bus bandwidth (GB/s)" in svg


def test_root_and_aggregation_flags(tmp_path: Path) -> None:
    run = run_bench(tmp_path, *QUICK, "--collectives", "broadcast", "-r", "1", "-a", "3", "-c", "0")
    assert run.code == 0, run.stderr
    rows = run.doc["series"][0]["rows"]
    assert all(r["root"] == 1 and r["wrong"] is None for r in rows)
    assert all(r["time_us"] == pytest.approx(max(sum(t) / 2 for t in r["rank_iter_seconds"]) * 1e6)
               for r in rows)
    assert [line[-1] for line in table_rows(run.stdout)] == ["N/A", "N/A"]


def test_status_lines_when_not_a_terminal(sweep: BenchRun) -> None:
    lines = [line for line in sweep.stderr.splitlines() if line.startswith("[")]
    total = 2 * len(BUILTINS)  # two sizes of each built-in
    assert len(lines) == total and lines[0].startswith(f"[ 1/{total}] all_reduce 1 KiB: ")
    assert lines[-1].startswith(f"[{total}/{total}] sendrecv 2 KiB: ")


def test_the_rich_table_has_the_same_cells(sweep: BenchRun) -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=250, color_system=None)
    render_rich(sweep.doc, console)
    text = console.file.getvalue()
    rich_rows = [[c.strip() for c in line.strip("│ ").split("│")] for line in text.splitlines()
                 if line.startswith("│") and line.split("│")[1].strip().isdigit()]
    assert rich_rows == table_rows(sweep.stdout)
    assert text.count("Avg bus bandwidth") == len(BUILTINS)
