"""``python -m server.backup DEST``: a consistent copy of the embedded server's data directory
while it runs: the SQLite database through SQLite's online backup API (``cp`` of a WAL database
loses what is still in the WAL) and the generated secret key, so sessions survive a restore.
To restore, stop the server and start it with ``--data-dir DEST`` (or copy DEST's files into a
fresh data directory)."""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
from pathlib import Path

from .settings import Settings, private_dir

DATABASE = "judge.db"
SECRET = "secret_key"


def backup(data_dir: Path, dest: Path) -> list[Path]:
    """Copy ``data_dir``'s database and secret key into ``dest`` (made 0700, files 0600);
    the files written."""
    source_db = data_dir / DATABASE
    if not source_db.is_file():
        raise FileNotFoundError(f"no database at {source_db}")
    private_dir(dest)
    written = [dest / DATABASE]
    source = sqlite3.connect(source_db, timeout=30)
    target = sqlite3.connect(written[0])
    try:
        with target:
            source.backup(target)  # pages copied from one consistent snapshot
    finally:
        target.close()
        source.close()
    written[0].chmod(0o600)
    if (data_dir / SECRET).is_file():
        written.append(Path(shutil.copy2(data_dir / SECRET, dest / SECRET)))
        written[-1].chmod(0o600)
    return written


def main(argv: list[str] | None = None) -> None:
    """Back up the configured data directory (``CJUDGE_DATA_DIR`` or ``--data-dir``)."""
    parser = argparse.ArgumentParser(prog="python -m server.backup", description=__doc__)
    parser.add_argument("dest", type=Path, help="a new or empty directory for the copy")
    parser.add_argument("--data-dir", type=Path, help="the server's data directory")
    args = parser.parse_args(argv)
    settings = Settings()
    if settings.database_url:
        sys.exit("the database is PostgreSQL: back it up with pg_dump (docs/server.md)")
    data_dir = args.data_dir or settings.data_dir
    if args.dest.exists() and any(args.dest.iterdir()):
        sys.exit(f"{args.dest} is not empty")
    for path in backup(data_dir, args.dest):
        print(path)


if __name__ == "__main__":
    main()
