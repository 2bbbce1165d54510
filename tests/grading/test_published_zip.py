"""The web build publishes the kernel's browser part and the exercises as Pyodide packages (two
wheels in web/dist/pyodide, listed with their sha256 in the app's pyodide-lock.json), never a
reference or wrong solution, nor the real runtime, the CLI or bench."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import cjudge

REPO = Path(__file__).resolve().parents[2]
PYODIDE = REPO / "web" / "dist" / "pyodide"


def built(name: str) -> Path:
    assert (PYODIDE / "pyodide-lock.json").is_file(), "build the web app first (scripts/setup.sh does)"
    wheels = sorted(PYODIDE.glob(f"{name}-*-py3-none-any.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_exercises_wheel_holds_no_private_file():
    names = zipfile.ZipFile(built("cjudge_exercises")).namelist()
    assert "cjudge_exercises/ring-allreduce/grader.py" in names
    assert "cjudge_exercises/ring-allreduce/starter.py" in names
    assert "cjudge_exercises/ring-allreduce/statement.zh.md" in names
    leaked = [n for n in names if n.endswith(("/solution.py", "/gaming.md")) or "/wrong/" in n]
    assert leaked == []


def test_the_kernel_wheel_is_the_browser_part_by_package_layout():
    names = zipfile.ZipFile(built("cjudge_browser")).namelist()
    for needed in ("cjudge/grading/grade.py", "cjudge/switch/core.py", "cjudge/sim/runtime.py",
                   "cjudge/model/topologies.json", "cjudge/view/__init__.py", "cjudge_web/judge.py"):
        assert needed in names, needed
    server_only = [n for n in names if n.startswith(("cjudge/real/", "cjudge/bench/", "cjudge/cli/"))
                   or n == "cjudge/rank/runner.py" or "__pycache__" in n]
    assert server_only == []
    # everything else of the package goes in, whatever its modules import
    package = REPO / "practice" / "cjudge"
    expected = {f"cjudge/{p.relative_to(package).as_posix()}" for p in package.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts
                and p.relative_to(package).parts[0] not in ("real", "bench", "cli")
                and p.relative_to(package).as_posix() != "rank/runner.py"}
    assert expected <= set(names)


def test_the_lock_file_lists_both_wheels_with_their_hash_and_the_kernel_version():
    packages = json.loads((PYODIDE / "pyodide-lock.json").read_text())["packages"]
    kernel, exercises = packages["cjudge-browser"], packages["cjudge-exercises"]
    assert kernel["version"] == cjudge.__version__
    assert kernel["imports"] == ["cjudge", "cjudge_web"]
    assert exercises["imports"] == ["cjudge_exercises"]
    for entry in (kernel, exercises):
        wheel = PYODIDE / entry["file_name"]
        assert entry["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert "numpy" in packages  # Pyodide's own entries are kept


def test_the_wheels_are_reproducible(tmp_path):
    out = subprocess.run([sys.executable, str(REPO / "web" / "scripts" / "wheels.py"), str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout.split()
    again = subprocess.run([sys.executable, str(REPO / "web" / "scripts" / "wheels.py"), str(tmp_path / "b")],
                           capture_output=True, text=True, check=True).stdout.split()
    assert [Path(p).read_bytes() for p in out] == [Path(p).read_bytes() for p in again]
