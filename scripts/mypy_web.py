#!/usr/bin/env python3
"""``mypy --strict`` over the browser's Python: ``web/src/py``, which the wheel ``cjudge-browser``
ships as the package ``cjudge_web`` (``web/scripts/wheels.py``). Its modules import each other
relatively, so mypy must see the folder under that name: it checks a copy in a temporary folder
(nothing is written into the tree but mypy's cache, ``.mypy_cache``). What exists only in Pyodide
or in the built wheels (``pyodide.ffi``, ``cjudge_exercises``) is typed by the stubs in
``web/typings``, checked here too. The kernel it imports is checked by ``mypy`` with the
project's configuration; its errors are not reported again (``--follow-imports=silent``).

    .venv/bin/python scripts/mypy_web.py     # exit 1 if the browser's Python has errors
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "web" / "src" / "py"
STUBS = ROOT / "web" / "typings"
PACKAGE = "cjudge_web"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / PACKAGE
        shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
        # the project's [tool.mypy] (strict, mypy_path "practice") read from the repository's
        # root; the copy and the stubs found through MYPYPATH
        os.environ["MYPYPATH"] = os.pathsep.join([tmp, str(STUBS)])
        os.chdir(ROOT)
        out, err, status = api.run([
            "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(ROOT / ".mypy_cache"),
            "--follow-imports=silent", "--no-error-summary",
            "-p", PACKAGE, "-p", "pyodide", "-p", "cjudge_exercises"])
        # errors named by where they are in the tree, not in the copy
        report = (out + err).replace(str(copy), str(SOURCE.relative_to(ROOT)))
    print(report, end="")
    print(f"mypy --strict: web/src/py ({PACKAGE}) {'clean' if status == 0 else 'has errors'}")
    raise SystemExit(1 if status else 0)


if __name__ == "__main__":
    main()
