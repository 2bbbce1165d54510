"""The CLI's exit statuses (``docs/cli.md``) and its one way to report a problem: on stderr.

Results go to stdout and nothing else does, so ``--json`` output can always be parsed. The
stderr console is made per message (a warm judge imports this module before it has the
caller's terminal), and rich is imported only then: ``entry`` reads this module first.
"""

from __future__ import annotations

import os

#: the run did what was asked (``test``: accepted; ``check``: everything as declared)
OK = 0
#: the run finished but the answer is no: a verdict other than accepted, a check that failed
REJECTED = 1
#: the command cannot run as given: a bad argument, an unknown exercise, a missing file
USAGE = 2
#: the judge itself failed (``judge_error``, a benchmark that could not run): not the learner
JUDGE = 3
#: set by the ``cjudge`` command, so that hints name the command the learner typed
PROG_ENV = "CJUDGE_PROG"


def invocation() -> str:
    """How the learner runs the CLI: ``cjudge`` or ``python practice/judge.py``."""
    return os.environ.get(PROG_ENV) or "python practice/judge.py"


def _say(kind: str, text: str, style: str) -> None:
    from rich.console import Console

    name = os.environ.get(PROG_ENV) or "judge.py"
    Console(stderr=True, soft_wrap=True).print(f"{name}: {kind}: {text}", markup=False,
                                               highlight=False, style=style)


def error(text: str) -> None:
    """Report an error on stderr (the caller returns :data:`USAGE` or :data:`JUDGE`)."""
    _say("error", text, "red")


def warn(text: str) -> None:
    """Report a warning on stderr; the command goes on."""
    _say("warning", text, "yellow")
