"""Fixtures: one judge server with sandboxed workers shared by the end-to-end tests, and a
throw-away PostgreSQL cluster."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import pytest
from postgres import cluster, pg_bin

from server.localserver import JudgeServer, start_server
from server.sandbox import preflight
from server.settings import Settings


@cache
def sandbox_problems() -> list[str]:
    """Why the bubblewrap sandbox cannot run here (empty when it can); it starts a real runner,
    so it is asked once per session."""
    return preflight(Settings(sandbox="bwrap"))[0]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_sandbox: skipped where bubblewrap cannot run")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a ``needs_sandbox`` test where the sandbox cannot run (a marker, not an import of
    this conftest: test modules in other folders see another ``conftest`` under that name)."""
    if item.get_closest_marker("needs_sandbox") is not None and sandbox_problems():
        pytest.skip(f"no sandbox here: {sandbox_problems()}")


@pytest.fixture(scope="session")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JudgeServer]:
    """A server with two sandboxed embedded workers, for the whole session."""
    if sandbox_problems():
        pytest.skip(f"no sandbox here: {sandbox_problems()}")
    server = start_server(tmp_path_factory.mktemp("judge"), workers=2,
                          admin_username="admin", admin_password="admin-password")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str | None]:
    """A PostgreSQL cluster for the session, or None where PostgreSQL is missing."""
    if pg_bin() is None:
        yield None
        return
    with cluster() as url:
        yield url
