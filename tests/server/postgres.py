"""A throw-away PostgreSQL cluster for tests (skipped where PostgreSQL is not installed)."""

from __future__ import annotations

import glob
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from server.localserver import free_port


def pg_bin() -> Path | None:
    """The directory of ``initdb``/``pg_ctl``, if PostgreSQL and its system user exist."""
    try:
        subprocess.run(["id", "postgres"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    found = shutil.which("initdb") or next(iter(sorted(glob.glob(
        "/usr/lib/postgresql/*/bin/initdb"), reverse=True)), None)
    return Path(found).parent if found else None


def _as_postgres(*argv: str) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *argv], check=True,
                   capture_output=True, timeout=120)


@contextmanager
def cluster() -> Iterator[str]:
    """Start a cluster on a Unix socket in a temporary directory; yield a server URL."""
    bindir = pg_bin()
    assert bindir is not None
    base = Path(tempfile.mkdtemp(prefix="cjudge-pg-"))
    shutil.chown(base, "postgres", "postgres")
    port = free_port()
    _as_postgres(str(bindir / "initdb"), "-D", str(base / "data"), "-A", "trust",
                 "-U", "postgres")
    _as_postgres(str(bindir / "pg_ctl"), "-D", str(base / "data"), "-w", "-l",
                 str(base / "log"), "-o", f"-k {base} -p {port} -c listen_addresses=''", "start")
    try:
        yield f"postgresql://postgres@/{{db}}?host={base}&port={port}"
    finally:
        _as_postgres(str(bindir / "pg_ctl"), "-D", str(base / "data"), "-m", "immediate", "stop")
        shutil.rmtree(base, ignore_errors=True)


def new_database(server_url: str) -> str:
    """Create an empty database on the cluster; its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url.format(db="postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server_url.format(db=name)
