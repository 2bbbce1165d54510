"""Build the browser's two wheels (py3-none-any) for Pyodide's ``loadPackage``.

    python web/scripts/wheels.py OUT_DIR     prints the wheels' paths, one a line

* ``cjudge_browser-<version>``: the kernel's browser part, chosen by package layout: the package
  ``cjudge`` without the subpackages and modules in ``SERVER_ONLY`` (the real runtime imports
  torch, the CLI and ``bench`` drive it, ``rank/runner.py`` is the sandbox's end), plus the page's own
  Python, ``cjudge_web`` (web/src/py). Its version is the kernel's ``cjudge.__version__``.
* ``cjudge_exercises-<version>+<hash>``: the exercises' *published* files as package data under
  ``cjudge_exercises/`` (never ``cjudge.exercise.exercises.PRIVATE_FILES``: the reference and the wrong
  solutions). The local label is a hash of their content, so a changed exercise is a new file.

The wheels are written directly (stdlib ``zipfile``) with fixed timestamps, so one source tree
always gives the same bytes, and the same sha256 in the lock file.
"""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "practice"))

import cjudge  # noqa: E402  (its __init__ imports nothing)
from cjudge.exercise.exercises import is_private  # noqa: E402

#: what of the package ``cjudge`` stays on the server, by top-level name
SERVER_ONLY = ("real", "bench", "cli", "rank/runner.py")
EPOCH = (1980, 1, 1, 0, 0, 0)

#: the package ``cjudge_exercises``'s module (typed for mypy by web/typings/cjudge_exercises: keep alike)
EXERCISES_INIT = '''"""The exercises' published files (statements, starters, graders; no solutions)."""

from pathlib import Path

#: the folder holding one folder per exercise
ROOT = Path(__file__).parent
'''


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix != ".pyc")


def _server_only(rel: Path) -> bool:
    return rel.parts[0] in SERVER_ONLY or rel.as_posix() in SERVER_ONLY


def kernel_files() -> dict[str, bytes]:
    package = REPO / "practice" / "cjudge"
    files = {f"cjudge/{p.relative_to(package).as_posix()}": p.read_bytes() for p in files_under(package)
             if not _server_only(p.relative_to(package))}
    web = REPO / "web" / "src" / "py"
    files.update({f"cjudge_web/{p.relative_to(web).as_posix()}": p.read_bytes() for p in files_under(web)})
    return files


def exercise_files() -> dict[str, bytes]:
    root = REPO / "exercises"
    files = {"cjudge_exercises/__init__.py": EXERCISES_INIT.encode()}
    for folder in sorted(p for p in root.iterdir() if (p / "exercise.toml").is_file()):
        for path in files_under(folder):
            if not is_private(path.relative_to(folder)):
                files[f"cjudge_exercises/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    return files


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(out: Path, name: str, version: str, summary: str, files: dict[str, bytes]) -> Path:
    dist_info = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{dist_info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\n"
                                      f"Version: {version}\nSummary: {summary}\n").encode()
    files[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: web/scripts/wheels.py\n"
                                   b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    top = sorted({n.split("/")[0] for n in files if not n.startswith(dist_info)})
    files[f"{dist_info}/top_level.txt"] = "".join(f"{t}\n" for t in top).encode()
    record = f"{dist_info}/RECORD"
    lines = [f"{n},{record_hash(d)},{len(d)}" for n, d in sorted(files.items())] + [f"{record},,"]
    files[record] = ("\n".join(lines) + "\n").encode()
    path = out / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as whl:
        for n in sorted(files, key=lambda n: (n.startswith(dist_info), n)):  # dist-info last
            info = zipfile.ZipInfo(n, EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            whl.writestr(info, files[n])
    return path


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    exercises = exercise_files()
    digest = hashlib.sha256()
    for name, data in sorted(exercises.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    wheels = [
        write_wheel(out, "cjudge_browser", cjudge.__version__,
                    "The grading kernel's browser part: trusted grading, switch, model, simulated torch",
                    kernel_files()),
        write_wheel(out, "cjudge_exercises", f"{cjudge.__version__}+{digest.hexdigest()[:12]}",
                    "The exercises' published files", exercises),
    ]
    print("\n".join(str(w) for w in wheels))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
