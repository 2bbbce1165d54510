"""The wheel is the product: built from this checkout, installed into a fresh venv outside it,
``cjudge`` works from an empty directory and ``cjudge-server`` answers ``/healthz``.

The fresh venv sees, besides the wheel, only the distributions the wheel declares (its
dependencies and the ``[server]`` extra's, transitively), linked from the running environment:
no download (torch is gigabytes), yet an import the metadata does not declare fails here.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from email.parser import HeaderParser
from pathlib import Path

import pytest

from scripts import linked_venv

ROOT = Path(__file__).resolve().parents[2]
#: a step's limit: generous, the machine may be loaded (a limit only stops a hung step)
STEP_S = 900
pytestmark = pytest.mark.wheel


def _run(args: list[str | Path], cwd: Path, env: dict[str, str],
         timeout: float = STEP_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """A fresh venv with the wheel installed (and ``[server]``); its bin folder and the
    environment to run it in (a private data directory, no checkout on any path)."""
    tmp = tmp_path_factory.mktemp("wheel")
    build = _run([sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "--no-build-isolation",
                  "-w", tmp / "dist"], cwd=tmp, env=dict(os.environ))
    assert build.returncode == 0, build.stdout + build.stderr
    wheel = next((tmp / "dist").glob("collective_judge-*.whl"))
    with zipfile.ZipFile(wheel) as whl:
        meta = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
        declared = HeaderParser().parsestr(whl.read(meta).decode()).get_all("Requires-Dist", [])
    venv = tmp / "venv"
    python = linked_venv.make(venv, linked_venv.closure(declared, {"server"}))
    install = _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-index",
                    f"{wheel}[server]"], cwd=tmp, env=dict(os.environ))
    assert install.returncode == 0, install.stdout + install.stderr
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CJUDGE_", "PYTHON", "VIRTUAL_ENV"))}
    env |= {"XDG_DATA_HOME": str(tmp / "xdg-data"), "CJUDGE_WARM_DIR": str(tmp / "warm"),
            "PATH": f"{venv / 'bin'}:{env.get('PATH', '')}", "COLUMNS": "200"}
    (tmp / "warm").mkdir(mode=0o700)
    yield venv / "bin", env
    _run([venv / "bin" / "cjudge", "warm", "stop"], cwd=tmp, env=env)


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    """An empty directory to run the commands from."""
    (tmp_path / "here").mkdir()
    return tmp_path / "here"


def test_the_package_comes_from_the_wheel(installed: tuple[Path, dict[str, str]],
                                          empty: Path) -> None:
    bin_dir, env = installed
    where = _run([bin_dir / "python", "-c", "import cjudge, server; print(cjudge.__file__); "
                  "print(server.__file__)"], cwd=empty, env=env)
    assert where.returncode == 0, where.stderr
    assert all(Path(p).is_relative_to(bin_dir.parent) for p in where.stdout.split()), where.stdout


def test_list_shows_the_bundled_exercises(installed: tuple[Path, dict[str, str]],
                                          empty: Path) -> None:
    bin_dir, env = installed
    run = _run([bin_dir / "cjudge", "list", "--json"], cwd=empty, env=env)
    assert run.returncode == 0, run.stderr
    ids = {exercise["id"] for exercise in json.loads(run.stdout)}
    assert {p.name for p in (ROOT / "exercises").iterdir() if (p / "exercise.toml").is_file()
            and "draft = true" not in (p / "exercise.toml").read_text()} <= ids


def test_start_then_test_in_the_data_directory(installed: tuple[Path, dict[str, str]],
                                               empty: Path) -> None:
    bin_dir, env = installed
    start = _run([bin_dir / "cjudge", "start", "ring-allreduce"], cwd=empty, env=env)
    assert start.returncode == 0, start.stderr
    mine = Path(env["XDG_DATA_HOME"]) / "collective-judge" / "workspace" / "ring_allreduce.py"
    assert mine.is_file() and f"wrote {mine}" in start.stdout
    assert list(empty.iterdir()) == []
    assert not list(bin_dir.parent.rglob("ring_allreduce.py"))  # nothing in the venv
    starter = _run([bin_dir / "cjudge", "test", "ring-allreduce"], cwd=empty, env=env)
    assert starter.returncode == 1, starter.stdout + starter.stderr  # not accepted
    solution = _run([bin_dir / "cjudge", "solution", "ring-allreduce"], cwd=empty, env=env)
    mine.write_text(solution.stdout)
    accepted = _run([bin_dir / "cjudge", "test", "ring-allreduce", "--json"], cwd=empty, env=env)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert json.loads(accepted.stdout)["verdict"] == "accepted"


def test_workspace_option_chooses_the_folder(installed: tuple[Path, dict[str, str]],
                                             empty: Path) -> None:
    bin_dir, env = installed
    run = _run([bin_dir / "cjudge", "start", "all-gather", "--workspace", "mine"], cwd=empty,
               env=env)
    assert run.returncode == 0, run.stderr
    assert (empty / "mine" / "all_gather.py").is_file()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_server_command_answers_healthz(installed: tuple[Path, dict[str, str]],
                                        empty: Path) -> None:
    bin_dir, env = installed
    port = _free_port()
    server = subprocess.Popen(
        [bin_dir / "cjudge-server", "--port", str(port), "--workers", "0", "--no-sandbox",
         "--data-dir", empty / "data"], cwd=empty, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + STEP_S
        body = None
        while body is None and server.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as r:
                    body = json.load(r)
            except urllib.error.HTTPError as exc:  # 503: up, but no worker (--workers 0)
                body = json.load(exc)
            except OSError:
                time.sleep(0.5)
        assert body is not None, server.stderr.read() if server.poll() is not None else "no answer"
        assert "status" in body
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
