"""Alembic migrations of the judge database (run on start by server.db.migrate)."""
