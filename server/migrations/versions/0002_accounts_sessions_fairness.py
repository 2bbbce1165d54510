"""accounts, sessions and fairness: case-insensitive names, revocable sessions, client IPs

Revision ID: 0002
Revises: 0001

"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the user's name key, identity and session generation; the submission's client IP."""
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.add_column(sa.Column("username_key", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("identity", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("generation", sa.Integer(), nullable=False,
                                      server_default="0"))
    connection = op.get_bind()
    users = sa.table("user", sa.column("id", sa.Integer), sa.column("username", sa.String),
                     sa.column("username_key", sa.String), sa.column("identity", sa.String))
    taken: set[str] = set()
    for user_id, username in connection.execute(
            sa.select(users.c.id, users.c.username).order_by(users.c.id)).all():
        key = username.casefold()
        if key in taken:  # an older account already has this name in another case
            key = f"{key}#{user_id}"[:64]
        taken.add(key)
        connection.execute(users.update().where(users.c.id == user_id)
                           .values(username_key=key, identity=secrets.token_hex(16)))
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.alter_column("username_key", existing_type=sa.String(length=64), nullable=False)
        batch_op.alter_column("identity", existing_type=sa.String(length=32), nullable=False)
        batch_op.create_index("ix_user_username_key", ["username_key"], unique=True)

    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client_ip", sa.String(length=64), nullable=True))
        batch_op.create_index("ix_submission_user_status", ["user_id", "status"], unique=False)
        batch_op.create_index("ix_submission_ip_status", ["client_ip", "status"], unique=False)
        # fair claims ask when an address and a user were last served: an index lookup each
        batch_op.create_index("ix_submission_ip_started", ["client_ip", "started_at"],
                              unique=False)
        batch_op.create_index("ix_submission_user_started", ["user_id", "started_at"],
                              unique=False)


def downgrade() -> None:
    """Drop what ``upgrade`` added."""
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_index("ix_submission_user_started")
        batch_op.drop_index("ix_submission_ip_started")
        batch_op.drop_index("ix_submission_ip_status")
        batch_op.drop_index("ix_submission_user_status")
        batch_op.drop_column("client_ip")
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_index("ix_user_username_key")
        batch_op.drop_column("generation")
        batch_op.drop_column("identity")
        batch_op.drop_column("username_key")
