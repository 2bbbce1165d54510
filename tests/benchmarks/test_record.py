"""benchmarks/record.py: a benchmark's output lands in docs with its date and machine."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "benchmarks" / "record.py"


def record(tmp_path: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    bench = tmp_path / "fake_bench.py"
    bench.write_text(script)
    return subprocess.run(
        [sys.executable, str(RECORD), "--out", str(tmp_path / "out"), str(bench), *args],
        capture_output=True, text=True, timeout=60,
    )


def test_a_run_is_written_with_its_output_date_and_machine(tmp_path: Path) -> None:
    done = record(tmp_path, "import sys\nprint('p50 0.69 s', sys.argv[1:])\n", "--repeat", "3")
    assert done.returncode == 0, done.stderr
    assert "p50 0.69 s" in done.stdout  # shown as it comes
    page = (tmp_path / "out" / "fake_bench.md").read_text()
    assert "p50 0.69 s ['--repeat', '3']" in page
    assert "--repeat 3" in page.splitlines()[0]
    assert " UTC." in page and "cores (" in page and "load average" in page and "torch " in page


def test_a_failing_run_writes_nothing_and_keeps_its_status(tmp_path: Path) -> None:
    done = record(tmp_path, "print('half a result')\nraise SystemExit(3)\n")
    assert done.returncode == 3
    assert "nothing written" in done.stderr
    assert not (tmp_path / "out").exists()


def test_no_command_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(RECORD), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "name a benchmark" in done.stderr


def test_every_benchmark_is_listed_with_its_recorded_page() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    # record.py is the recorder; a name starting with "_" is a module the benchmarks share
    scripts = sorted(p for p in (ROOT / "benchmarks").glob("*.py")
                     if p.name != "record.py" and not p.name.startswith("_"))
    assert scripts
    for script in scripts:
        assert f"`benchmarks/{script.name}" in page, f"{script.name} missing from docs/benchmarks.md"
        assert f"(benchmark-results/{script.stem}.md)" in page


def test_every_results_page_the_docs_link_was_recorded() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    linked = re.findall(r"\(benchmark-results/([\w-]+\.md)\)", page)
    assert len(linked) >= 20
    missing = [name for name in linked if not (ROOT / "docs" / "benchmark-results" / name).is_file()]
    assert not missing, f"linked from docs/benchmarks.md, never recorded: {missing}"
