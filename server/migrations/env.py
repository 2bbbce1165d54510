"""Alembic environment: runs the migrations online against the configured URL."""

from alembic import context
from sqlalchemy import create_engine, pool
from sqlmodel import SQLModel

import server.models  # noqa: F401  (registers the tables on SQLModel.metadata)

url = context.get_x_argument(as_dictionary=True).get("url") or context.config.get_main_option(
    "sqlalchemy.url"
)
if not url:
    raise RuntimeError("no database URL: pass -x url=... or set sqlalchemy.url")
engine = create_engine(url, poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=SQLModel.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
