"""Every test session gets warm judges of its own (``judge.py``'s ``cli.warm``), stopped at the
end: the CLI tests run the learner's default path without touching the developer's."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

from cjudge.cli import warm


@pytest.fixture(scope="session", autouse=True)
def session_warm_judges() -> Iterator[None]:
    """A private ``CJUDGE_WARM_DIR`` for the session; its warm judges stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="cjudge-warm-tests-") as base:
        os.chmod(base, 0o700)
        os.environ["CJUDGE_WARM_DIR"] = base
        yield
        warm.stop_all()
