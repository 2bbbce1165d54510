"""``practice/judge.py`` as a learner uses it, in a subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from cjudge import __version__
from cjudge.cli.commands import exit_status
from cjudge.contract.verdicts import label

ROOT = Path(__file__).resolve().parents[2]


def judge_cli(*args: str, workspace: Path | None = None, **env: str) -> subprocess.CompletedProcess:
    """Run the CLI as a learner would, output piped."""
    env = {**os.environ, "CJUDGE_WORKSPACE": str(workspace or ROOT / "practice" / "workspace"),
           **env}
    return subprocess.run([sys.executable, str(ROOT / "practice" / "judge.py"), *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)


def test_check_proves_every_exercise():
    run = judge_cli("check", "--draws", "0")  # the draws: tests/grading/test_draws.py
    assert run.returncode == 0, run.stdout + run.stderr
    assert "check passed" in run.stdout
    lines = [line for line in run.stdout.splitlines() if ": expected " in line]
    assert len(lines) >= 2 * (2 + 4)  # reference, starter and >= 4 wrong files per exercise
    assert all(line.endswith(": ok") for line in lines)


def test_reference_json_has_every_case_with_bytes_against_the_bound():
    run = judge_cli("test", "ring-allreduce", "exercises/ring-allreduce/solution.py", "--json")
    assert run.returncode == 0
    result = json.loads(run.stdout)
    assert result["verdict"] == "accepted" and result["runtime"] == "torch"
    assert {c["world_size"] for c in result["cases"]} >= {2, 3, 4, 8}
    for case in result["cases"]:
        n = case["world_size"]
        assert len(case["bytes_sent"]) == n == len(case["messages_sent"])
        assert 0 < max(case["bytes_sent"]) <= case["bytes_bound"]
        assert set(case) >= {"name", "verdict", "message", "bytes_bound", "wall_ms"}
    sample = result["cases"][0]["sample"]  # the sample case is shown in full, the others not
    assert sample["outputs"] == sample["expected"] and len(sample["inputs"]) == 4
    assert all("sample" not in case for case in result["cases"][1:])


def test_a_nan_result_is_strict_json_and_prints_as_nan():
    """The ring-attention starter divides 0 by 0: its sample's output is NaN."""
    starter = "exercises/ring-attention/starter.py"

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    run = judge_cli("test", "ring-attention", starter, "--json", "--samples")
    result = json.loads(run.stdout, parse_constant=refuse)
    assert result["verdict"] == "wrong_answer" and "got nan" in result["message"]
    assert set(result["cases"][0]["sample"]["outputs"][0]["data"]) == {"nan"}
    plain = judge_cli("test", "ring-attention", starter, "--samples")
    assert re.search(r"expected -?\d[\d.e+-]*, got nan \(", plain.stdout), plain.stdout


def test_plain_text_when_piped_and_exit_status_only_zero_on_accepted(tmp_path):
    ok = judge_cli("test", "alltoall-transpose", "exercises/alltoall-transpose/solution.py")
    assert ok.returncode == 0
    assert "┃" not in ok.stdout and "verdict: Accepted: " in ok.stdout
    assert "8-ranks-k5-float64" in ok.stdout and "bound 280" in ok.stdout
    bad = judge_cli("test", "alltoall-transpose", "exercises/alltoall-transpose/starter.py",
                    "--lang", "zh")
    assert bad.returncode == 1
    assert "答案错误" in bad.stdout and "第一个错误元素" in bad.stdout


def test_a_ranks_text_no_utf8_can_hold_still_prints_the_verdict(tmp_path):
    """A lone surrogate in a rank's exception message is printed escaped, as text and in JSON."""
    learner = tmp_path / "surrogate.py"
    learner.write_text('def ring_all_reduce(t):\n    raise ValueError("stray \\udfff")\n')
    plain = judge_cli("test", "ring-allreduce", str(learner), workspace=tmp_path)
    assert plain.returncode == 1, plain.stderr
    assert "verdict: Runtime error" in plain.stdout and "stray \\udfff" in plain.stdout
    as_json = judge_cli("test", "ring-allreduce", str(learner), "--json", workspace=tmp_path)
    assert as_json.returncode == 1, as_json.stderr
    result = json.loads(as_json.stdout)
    assert result["message"].endswith("raised ValueError: stray \\udfff")


def test_start_copies_the_starter_keeps_work_and_test_grades_it(tmp_path):
    start = judge_cli("start", "ring-allreduce", workspace=tmp_path)
    assert start.returncode == 0
    mine = tmp_path / "ring_allreduce.py"
    assert mine.read_text() == (ROOT / "exercises/ring-allreduce/starter.py").read_text()
    assert "ring_all_reduce" in start.stdout  # the statement is shown
    mine.write_text((ROOT / "exercises/ring-allreduce/solution.py").read_text())
    again = judge_cli("start", "ring-allreduce", workspace=tmp_path)
    assert "keeping your work" in again.stderr  # a warning
    assert "isend" in mine.read_text()
    graded = judge_cli("test", "ring-allreduce", workspace=tmp_path)
    assert graded.returncode == 0
    listing = judge_cli("list", workspace=tmp_path)
    assert "Accepted" in listing.stdout


@pytest.mark.parametrize("lang, headings", [
    ("en", ["The primitives", "Bandwidth-optimal algorithms", "Latency-optimal algorithms"]),
    ("zh", ["基本原语", "带宽最优算法", "延迟最优算法"]),
])
def test_list_groups_exercises_by_track_in_order(tmp_path, lang, headings):
    listing = judge_cli("list", "--lang", lang, workspace=tmp_path)
    assert listing.returncode == 0, listing.stderr
    out = listing.stdout
    where = [re.search(rf"^ *{heading} *$", out, re.MULTILINE).start() for heading in headings]
    assert where == sorted(where)  # the tracks in the catalog's order
    ids = ["allreduce-compose", "alltoall-transpose", "alltoall-p2p",  # each track's order
           "reduce-scatter", "all-gather", "ring-allreduce",
           "tree-broadcast", "tree-reduce", "allreduce-small", "allreduce-rabenseifner"]
    rows = {m.group(2): (m.start(), int(m.group(1)), m.group(0))  # whole ids, never cut short
            for m in re.finditer(r"^\W+(\d+) \W+ ([a-z0-9-]+) .*$", out, re.MULTILINE)}
    assert [rows[i][0] for i in ids] == sorted(rows[i][0] for i in ids)
    assert [rows[i][1] for i in ids] == [1, 2, 3, 1, 2, 3, 1, 2, 3, 4]
    assert where[0] < rows[ids[0]][0] and where[1] < rows[ids[3]][0] < where[2] < rows[ids[6]][0]
    after = out[rows["tree-reduce"][0]:rows["allreduce-small"][0]]
    assert {"en": "after: tree-broadcast", "zh": "先做：tree-broadcast"}[lang] in after
    level = {"en": ("intro", "advanced"), "zh": ("入门", "进阶")}[lang]
    assert level[0] in rows["allreduce-compose"][2] and level[1] in rows["allreduce-rabenseifner"][2]
    block = out[rows["allreduce-compose"][0]:rows["alltoall-transpose"][0]]
    assert "§" in block and {"en": "five", "zh": "五种"}[lang] in block  # the chapter's section


@pytest.mark.parametrize("args, expected", [
    (("test", "no-such-exercise"), "unknown exercise 'no-such-exercise'"),
    (("test", "ring-allreduce", "missing.py"), "no such file"),
    (("test", "ring-allreduce"), "run `python practice/judge.py start ring-allreduce` first"),
])
def test_bad_input_gets_a_clear_message_on_stderr(tmp_path, args, expected):
    run = judge_cli(*args, "--json", workspace=tmp_path)
    assert run.returncode == 2
    assert expected in run.stderr and run.stderr.startswith("judge.py: error: ")
    assert run.stdout == ""  # stdout is for results: --json output always parses


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_list_fits_80_columns_with_every_column_and_tracks_numbered_1_to_k(tmp_path, lang):
    listing = judge_cli("list", "--lang", lang, workspace=tmp_path, COLUMNS="80")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    columns = {"en": ["#", "exercise", "level", "ranks", "cases", "yours"],
               "zh": ["#", "练习", "难度", "进程数", "用例", "你的结果"]}[lang]
    headers = [[c.strip() for c in line.split("┃")[1:-1]] for line in lines if "┃" in line]
    assert headers and all(h == columns for h in headers if h[0] == "#")
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    assert rows and all(len(r) == len(columns) for r in rows)  # no column cut off
    numbers = [int(r[0]) for r in rows if r[0]]
    assert numbers[0] == 1 and all(b in (1, a + 1) for a, b in zip(numbers, numbers[1:], strict=False))
    assert numbers.count(1) == len([line for line in lines if "┏" in line])  # one run per table
    assert len(numbers) == len(json.loads(judge_cli("list", "--json", workspace=tmp_path).stdout))


def test_list_json_numbers_each_track_without_gaps(tmp_path):
    rows = json.loads(judge_cli("list", "--json", workspace=tmp_path).stdout)
    by_track: dict[str, list[int]] = {}
    for row in rows:
        by_track.setdefault(row["track"], []).append(row["number"])
        assert set(row) >= {"id", "title", "level", "ranks", "cases", "after", "yours"}
    assert all(n == list(range(1, len(n) + 1)) for n in by_track.values())


def test_list_numbers_a_track_whose_order_fields_skip_a_place(tmp_path):
    for name, order in (("tree-broadcast", 1), ("tree-reduce", 3)):
        folder = tmp_path / name
        shutil.copytree(ROOT / "exercises" / name, folder)
        toml = folder / "exercise.toml"
        toml.write_text(re.sub(r"^order = \d+$", f"order = {order}", toml.read_text(), flags=re.M))
    rows = json.loads(judge_cli("list", "--json", "--exercises", str(tmp_path),
                                workspace=tmp_path).stdout)
    assert [(r["id"], r["number"]) for r in rows] == [("tree-broadcast", 1), ("tree-reduce", 2)]


def test_check_json_reports_a_draft_and_fails(tmp_path):
    assert judge_cli("new", "my-draft", "--exercises", str(tmp_path)).returncode == 0
    run = judge_cli("check", "my-draft", "--exercises", str(tmp_path), "--json")
    assert run.returncode == 1, run.stderr
    doc = json.loads(run.stdout)
    assert doc["passed"] is False and doc["exercises"][0]["id"] == "my-draft"
    assert doc["problems"] == sum(not s["done"] for s in doc["exercises"][0]["steps"]) > 0


def test_exit_status_tells_the_judges_fault_from_the_learners():
    assert [exit_status(v) for v in ("accepted", "wrong_answer", "deadlock", "judge_error")] == \
        [0, 1, 1, 3]


def test_installed_command_runs_from_another_directory(tmp_path):
    """``pip install -e .`` (``make setup`` does it) puts ``cjudge`` beside the interpreter."""
    cjudge = shutil.which("cjudge", path=str(Path(sys.executable).parent))
    assert cjudge, "no cjudge command: pip install -e . (make setup) installs it"
    env = {**os.environ, "CJUDGE_WORKSPACE": str(tmp_path / "ws")}
    version = subprocess.run([cjudge, "--version"], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=60)
    assert version.returncode == 0 and version.stdout.strip() == f"cjudge {__version__}"
    shutil.copy(ROOT / "exercises/ring-allreduce/solution.py", tmp_path / "mine.py")
    run = subprocess.run([cjudge, "test", "ring-allreduce", "mine.py", "--json"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["verdict"] == "accepted"
    missing = subprocess.run([cjudge, "test", "ring-allreduce"], capture_output=True, text=True,
                             env=env, cwd=tmp_path, timeout=60)
    assert missing.returncode == 2 and "run `cjudge start ring-allreduce` first" in missing.stderr


def test_solution_prints_the_reference():
    run = judge_cli("solution", "alltoall-transpose")
    assert run.stdout == (ROOT / "exercises/alltoall-transpose/solution.py").read_text()


def test_doctor_reports_local_judging_works():
    run = judge_cli("doctor")
    assert run.returncode == 0
    assert "gloo backend" in run.stdout and "sample on real ranks" in run.stdout
    assert "rank confinement: yes" in run.stdout


def test_chapter_script_verbatim_is_accepted():
    run = judge_cli("test", "ring-allreduce", "tests/data/chapter_ring_allreduce.py", "--json")
    result = json.loads(run.stdout)
    assert result["verdict"] == "accepted", result["message"]
    # its module-level all_reduce and prints ran outside the rules, and were captured
    assert "与 dist.all_reduce 结果一致： True" in result["stdout"]


def test_perfetto_flag_writes_the_case_as_chrome_trace_json(tmp_path):
    out = tmp_path / "ring.json"
    run = judge_cli("test", "ring-allreduce", "exercises/ring-allreduce/solution.py", "--samples",
                    "--json", "--perfetto", str(out), workspace=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["verdict"] == "accepted"  # stdout stays the verdict alone
    trace = json.loads(out.read_text())
    ranks = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert {f"rank {r} · modelled time" for r in range(4)} <= ranks
    assert any(e["ph"] == "s" for e in trace["traceEvents"])


def test_a_verdict_label_never_repeats_its_code():
    """"Deadlock (deadlock)" said it twice; a title that differs keeps its code."""
    assert label("deadlock") == "Deadlock" and label("too_slow") == "Too slow"
    assert label("over_budget") == "Over the byte budget (over_budget)"
    assert label("deadlock", "zh") == "死锁 (deadlock)"
