"""The migrations keep what an older database holds: a submission stored before 0005 keeps its
cases graded so far (the column ``progress`` renamed ``cases_so_far``), and 0005 goes back."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from postgres import new_database
from sqlalchemy import create_engine, inspect, text

from server.db import alembic_config, migrate

CASES = '[{"name": "small", "verdict": "accepted"}]'
ROWS = (
    "INSERT INTO exercise (id, title_en, title_zh, statement_en, statement_zh, starter, samples,"
    " content_hash, active, synced_at) VALUES ('ex', 't', 't', '', '', '', '[]', 'h', true,"
    " CURRENT_TIMESTAMP)",
    "INSERT INTO \"user\" (id, username, password_hash, role, created_at, username_key, identity,"
    " generation) VALUES (1, 'learner', 'x', 'learner', CURRENT_TIMESTAMP, 'learner', 'i', 0)",
    "INSERT INTO submission (id, user_id, exercise_id, content_hash, code, filename, seed, status,"
    " progress, attempts, created_at) VALUES (7, 1, 'ex', 'h', 'code', 'a.py', 42, 'running',"
    f" '{CASES}', 1, CURRENT_TIMESTAMP)",
)


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path, postgres_server: str | None) -> str:
    """An empty database: SQLite, then PostgreSQL where installed."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'judge.db'}"
    if postgres_server is None:
        pytest.skip("PostgreSQL is not installed here")
    return new_database(postgres_server)


def submission(url: str, column: str) -> tuple:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return tuple(conn.execute(text(
                f"SELECT id, code, seed, status, attempts, {column} FROM submission")).one())
    finally:
        engine.dispose()


def schema(url: str) -> tuple[set[str], set[str]]:
    """The submission table's columns and indexes."""
    engine = create_engine(url)
    try:
        found = inspect(engine)
        return ({c["name"] for c in found.get_columns("submission")},
                {str(i["name"]) for i in found.get_indexes("submission")})
    finally:
        engine.dispose()


def test_0005_renames_progress_to_cases_so_far_and_keeps_the_row(url: str) -> None:
    command.upgrade(alembic_config(url), "0004")
    engine = create_engine(url)
    with engine.begin() as conn:
        for row in ROWS:
            conn.execute(text(row))
    engine.dispose()
    before, (_, indexed) = submission(url, "progress"), schema(url)

    migrate(url)
    names, now_indexed = schema(url)
    assert "cases_so_far" in names and "progress" not in names
    assert now_indexed == indexed and "ix_submission_status_id" in indexed  # SQLite copied them
    after = submission(url, "cases_so_far")
    assert after[:5] == before[:5] == (7, "code", 42, "running", 1)
    assert after[5] == before[5] and "small" in str(after[5])

    command.downgrade(alembic_config(url), "0004")
    names, _ = schema(url)
    assert "progress" in names and "cases_so_far" not in names
    assert submission(url, "progress") == before


def test_0006_adds_assignments_and_a_submissions_late_flag_and_history(url: str) -> None:
    migrate(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        for row in ROWS:
            conn.execute(text(row.replace(" progress,", " cases_so_far,")))
    engine.dispose()
    assert submission(url, "late")[5] in (False, 0) and submission(url, "history")[5] is None
    command.downgrade(alembic_config(url), "0005")
    names, _ = schema(url)
    assert {"late", "history"}.isdisjoint(names)
    assert submission(url, "cases_so_far")[:5] == (7, "code", 42, "running", 1)
    engine = create_engine(url)
    try:
        assert "assignment" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()
