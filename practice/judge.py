#!/usr/bin/env python3
"""Judge collective-communication exercises locally: ``python practice/judge.py --help``
(installed, the same command is ``cjudge``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cjudge.cli.entry import run  # noqa: E402 - the standard library only

if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
