"""The command's entry: ``cjudge`` (installed) and ``python practice/judge.py`` both land here.

Only the standard library is imported before the warm judge is tried: ``test`` and ``check``
then run in it, everything else (and those when no warm judge can) in this process.
"""

from __future__ import annotations

import os
import sys

from . import warm
from .exits import PROG_ENV


def run(argv: list[str]) -> int:
    """Run ``argv`` in the warm judge when it should and can, else in this process."""
    if warm.wanted(argv):
        try:
            return warm.run_warm(argv)
        except warm.Refused as exc:
            print(f"{os.environ.get(PROG_ENV) or 'judge.py'}: warning: no warm judge ({exc}); "
                  "running here", file=sys.stderr)
    from .main import main

    return main(argv)


def cjudge() -> None:
    """The ``cjudge`` console script."""
    os.environ[PROG_ENV] = "cjudge"
    sys.exit(run(sys.argv[1:]))
