"""Engines and sessions: SQLite in WAL mode (with immediate write transactions) or Postgres."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, event, inspect
from sqlmodel import Session, create_engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: how JSON columns are written: strict JSON, never a NaN (verdicts come encoded, see
#: ``cjudge.contract.verdict_json``; PostgreSQL refuses NaN, SQLite would keep it)
STRICT_JSON = partial(json.dumps, allow_nan=False)
#: how long a SQLite statement waits for another connection's write lock
SQLITE_BUSY_MS = 30000


def make_engine(url: str) -> Engine:
    """An engine for ``url`` that writes strict JSON; SQLite gets WAL, a busy timeout and
    explicit ``BEGIN``s."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20,
                             json_serializer=STRICT_JSON)
    _ensure_sqlite_dir(url)
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                           json_serializer=STRICT_JSON)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:  # sqlite3's connection
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (see _on_begin)
        for pragma in (
            "journal_mode=WAL",
            "synchronous=NORMAL",
            f"busy_timeout={SQLITE_BUSY_MS}",
            "foreign_keys=ON",
        ):
            dbapi_conn.execute(f"PRAGMA {pragma}")

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session whose transaction takes the write lock at once on SQLite (``BEGIN IMMEDIATE``).

    Commits on success, rolls back on any exception: nothing is ever half-written.
    """
    with Session(engine.execution_options(sqlite_immediate=True)) as session:
        with session.begin():
            yield session


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the newest Alembic revision; SQLite's files are made
    the owner's alone (the database and its journals 0600; a directory made here 0700)."""
    _ensure_sqlite_dir(url)
    command.upgrade(alembic_config(url), "head")
    if url.startswith("sqlite:///"):
        db = Path(url.removeprefix("sqlite:///"))
        for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
            if path.exists():
                path.chmod(0o600)


def alembic_config(url: str) -> Config:
    """An Alembic configuration for ``url`` using ``server/migrations``."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def schema_ready(engine: Engine) -> bool:
    """Whether the tables exist (the server has run the migrations)."""
    return inspect(engine).has_table("submission")


def _ensure_sqlite_dir(url: str) -> None:
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
