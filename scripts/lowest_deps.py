"""The lowest-versions smoke test: every direct dependency at the floor ``pyproject.toml``
declares (``name>=X`` installed as ``name==X``; what they need resolved as pip does), then the
installed package run from an empty directory: ``cjudge list``, ``start``, ``test`` (the
reference accepted), and ``cjudge-server`` migrating a fresh database, answering ``/healthz``,
registering and logging in a user; then the server's tests (``TESTS``) with those versions.
Exit status 0 when every step passes.

``make lowest-deps`` runs it. It needs PyPI. torch is the one exception: borrowed from this
environment (a venv ``.pth``), never downloaded, so its floor is not proved here.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

sys.path.insert(0, str(Path(__file__).resolve().parent))
import linked_venv  # noqa: E402  # beside this script

ROOT = Path(__file__).resolve().parents[1]
BORROWED = {"torch"}  # too big to download; its floor is not proved by this script
#: the server's tests run at the floors (the checkout's sources, this venv's dependencies):
#: every error layer, the event stream (fastapi.sse), keep-alive and head deadlines (uvicorn),
#: accounts (argon2, zxcvbn, ICU), settings (pydantic-settings), migrations (alembic, SQLite),
#: abuse limits on a real uvicorn (connection cap, head and body deadlines, header flood)
TESTS = ["tests/server/api/test_errors.py", "tests/server/api/test_event_lines.py",
         "tests/server/api/test_keepalive.py", "tests/server/test_accounts.py",
         "tests/server/test_settings.py", "tests/server/test_migrations.py",
         "tests/server/test_abuse.py"]
#: what those tests need besides the package (at their newest: they are not what is floored)
TEST_TOOLS = ["pytest", "httpx", "hypothesis"]
STEP_S = 900


def floors(extras: tuple[str, ...]) -> list[str]:
    """``name==X`` for each ``name>=X`` the project declares (with ``extras``), torch aside."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [*project["dependencies"],
                *(r for e in extras for r in project["optional-dependencies"][e])]
    pins = []
    for text in declared:
        req = Requirement(text)
        floor = next((s.version for s in req.specifier if s.operator == ">="), None)
        if floor is None:
            sys.exit(f"lowest_deps: {text!r} declares no floor (>=)")
        if linked_venv.canonical(req.name) not in BORROWED:
            pins.append(f"{req.name}=={floor}")
    return pins


def step(title: str, args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run one step; its stdout; exit with its output when it fails."""
    print(f"lowest_deps: {title}", flush=True)
    run = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_S)
    if run.returncode != 0:
        sys.exit(f"lowest_deps: FAILED {title} (exit {run.returncode})\n{run.stdout}\n{run.stderr}")
    return run.stdout


def serve_and_call(bin_dir: Path, here: Path, env: dict[str, str]) -> None:
    """Start ``cjudge-server``; /healthz answers, a user registers and logs in."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([str(bin_dir / "cjudge-server"), "--port", str(port), "--workers",
                               "0", "--no-sandbox", "--data-dir", str(here / "data")],
                              cwd=here, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)

    def call(method: str, path: str, body: dict[str, str] | None = None) -> tuple[int, object]:
        request = urllib.request.Request(base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    try:
        deadline = time.monotonic() + STEP_S
        while True:
            try:
                status, health = call("GET", "/healthz")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"lowest_deps: FAILED cjudge-server\n{server.communicate()[1]}")
                time.sleep(0.5)
        print(f"lowest_deps: /healthz {status} {health}", flush=True)
        user = {"username": "floor", "password": "correct horse battery staple 42"}
        for method, path in (("POST", "/api/auth/register"), ("POST", "/api/auth/login")):
            status, body = call(method, path, user)
            if status >= 300:
                sys.exit(f"lowest_deps: FAILED {method} {path}: {status} {body}")
            print(f"lowest_deps: {method} {path} {status}", flush=True)
        status, body = call("GET", "/api/exercises")
        if status != 200 or not isinstance(body, list) or not body:
            sys.exit(f"lowest_deps: FAILED GET /api/exercises: {status} {body}")
        print(f"lowest_deps: GET /api/exercises {status}: {len(body)} exercises", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=60)


def main() -> None:
    """Build the venv at the floors, print what it holds, run the smoke steps."""
    pins = floors(("server",))
    with tempfile.TemporaryDirectory(prefix="cjudge-lowest-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "floors.txt").write_text("\n".join(pins) + "\n")
        torch = metadata.distribution("torch")
        borrowed = linked_venv.closure([f"torch=={torch.version}"], set())
        python = linked_venv.make(tmp / "venv", borrowed)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CJUDGE_", "PYTHON", "VIRTUAL_ENV"))}
        env |= {"XDG_DATA_HOME": str(tmp / "xdg"), "CJUDGE_WARM": "0", "COLUMNS": "200"}
        step("pip install the package with every direct dependency at its floor",
             [sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
              "-c", str(tmp / "floors.txt"), f"{ROOT}[server]"], tmp, env)
        frozen = step("pip freeze", [sys.executable, "-m", "pip", "--python", str(python),
                                     "freeze", "--exclude-editable"], tmp, env)
        print("  " + "\n  ".join(line for line in frozen.splitlines()
                                 if "==" in line and "@" not in line), flush=True)
        bin_dir = python.parent
        here = tmp / "here"
        here.mkdir()
        step("cjudge list", [str(bin_dir / "cjudge"), "list"], here, env)
        step("cjudge start ring-allreduce", [str(bin_dir / "cjudge"), "start", "ring-allreduce"],
             here, env)
        solution = here / "solution.py"
        solution.write_text(step("cjudge solution", [str(bin_dir / "cjudge"), "solution",
                                                     "ring-allreduce"], here, env))
        step("cjudge test ring-allreduce (the reference)",
             [str(bin_dir / "cjudge"), "test", "ring-allreduce", str(solution)], here, env)
        serve_and_call(bin_dir, here, env)
        step("pip install the test tools", [sys.executable, "-m", "pip", "--python", str(python),
                                            "install", "-q", *TEST_TOOLS], tmp, env)
        # the Postgres cases hand SQLAlchemy a bare postgresql:// URL (the server adds
        # +psycopg itself), whose default driver before 2.1 is psycopg2: a test-side choice
        step("pytest " + " ".join(Path(t).name for t in TESTS),
             [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "not postgres",
              *TESTS], ROOT, env)
    print("lowest_deps: every step passed at the floors", flush=True)


if __name__ == "__main__":
    main()
