"""The plain table parses the way nccl-tests' result parsers read ``all_reduce_perf``'s output:
skip '#' lines, split each data line on whitespace into 13 fields (size, count, type, redop,
root, then time, algbw, busbw and #wrong out-of-place and in-place), numbers at fixed places."""

from __future__ import annotations

from typing import Any

from cjudge.bench.table import render_plain


def _row(size: int, time_us: float, factor: float, wrong: int | None) -> dict[str, Any]:
    algbw = size / time_us / 1e3
    return {"size": size, "count": size // 4, "type": "float", "redop": "sum", "root": -1,
            "time_us": time_us, "algbw": algbw, "busbw": algbw * factor, "wrong": wrong}


def _series(label: str, kind: str, placement: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"label": label, "kind": kind, "placement": placement, "rows": rows,
            "avg_busbw": sum(r["busbw"] for r in rows) / len(rows)}


DOC = {
    "version": "test", "config": {"backend": "gloo", "dtype": "float32", "warmup": 1, "iters": 2,
                                  "check": True, "aggregate": "avg", "learner": None},
    "environment": {"world_size": 2, "host_count": 1, "torch": "2", "ranks": []},
    "series": [_series("all_reduce", "built-in", "in-place",
                       [_row(1024, 51.25, 1.0, 0), _row(67108864, 123456.0, 1.0, 0)]),
               _series("all_gather", "built-in", "out-of-place",
                       [_row(1024, 12.5, 0.5, None), _row(67108864, 9876.5, 0.5, 3)])],
    "comparison": [],
}


def _group(fields: list[str]) -> dict[str, Any] | None:
    """time, algbw, busbw, #wrong of one placement; None where it reads N/A."""
    if fields[0] == "N/A":
        return None
    return {"time": float(fields[0]), "algbw": float(fields[1]), "busbw": float(fields[2]),
            "wrong": None if fields[3] == "N/A" else int(fields[3])}


def parse(text: str) -> tuple[list[str], list[dict[str, Any]]]:
    """(each table's header line naming the two placements, the data rows), as nccl-tests'
    parsers read them."""
    headers = [line for line in text.splitlines()
               if line.startswith("#") and "out-of-place" in line and "in-place" in line]
    rows = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        assert len(fields) == 13, line

        rows.append({"size": int(fields[0]), "count": int(fields[1]), "type": fields[2],
                     "redop": fields[3], "root": int(fields[4]), "oop": _group(fields[5:9]),
                     "ip": _group(fields[9:13])})
    return headers, rows


def test_the_plain_table_reads_as_nccl_tests_output():
    headers, rows = parse(render_plain(DOC))
    assert len(headers) == 2
    assert headers[0].index("out-of-place") < headers[0].index("in-place")
    want = [(s, r) for s in DOC["series"] for r in s["rows"]]
    assert len(rows) == len(want)
    for got, (series, row) in zip(rows, want, strict=True):
        assert (got["size"], got["count"], got["type"], got["redop"], got["root"]) == (
            row["size"], row["count"], "float", "sum", -1)
        measured, other = ("ip", "oop") if series["placement"] == "in-place" else ("oop", "ip")
        assert got[other] is None
        assert abs(got[measured]["time"] - row["time_us"]) <= 0.005 + 1e-9 * row["time_us"]
        assert abs(got[measured]["busbw"] - row["busbw"]) <= 0.005
        assert got[measured]["wrong"] == row["wrong"]


def test_the_learners_ratio_is_a_comment_the_parsers_skip():
    doc = {**DOC, "comparison": [{"size": 1024, "ratio": 1.09}]}
    text = render_plain(doc)
    assert "#   " in text and "109.0%" in text
    assert parse(text)[1] == parse(render_plain(DOC))[1]
