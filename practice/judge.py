#!/usr/bin/env python3
"""Judge collective-communication exercises locally: ``python practice/judge.py --help``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cjudge.cli import warm  # noqa: E402 - the standard library only


def run(argv: list[str]) -> int:
    """Run ``argv`` in the warm judge when it should and can, else in this process."""
    if warm.wanted(argv):
        try:
            return warm.run_warm(argv)
        except warm.Refused as exc:
            print(f"judge.py: no warm judge ({exc}); running here", file=sys.stderr)
    from cjudge.cli.main import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
