"""initial schema

Revision ID: 0001
Revises: (none)

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    _create_exercise()
    _create_user()
    _create_submission()


def _create_exercise() -> None:
    """Create the exercise table."""
    op.create_table(
        "exercise",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("title_en", sa.String(), nullable=False),
        sa.Column("title_zh", sa.String(), nullable=False),
        sa.Column("statement_en", sa.Text(), nullable=False),
        sa.Column("statement_zh", sa.Text(), nullable=False),
        sa.Column("starter", sa.Text(), nullable=False),
        sa.Column("samples", sa.JSON(), nullable=False),
        sa.Column("content_hash", sa.String(length=128), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("synced_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def _create_user() -> None:
    """Create the user table and its unique username index."""
    op.create_table(
        "user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=64), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_user_username"), ["username"], unique=True)


def _create_submission() -> None:
    """Create the submission table and its indexes."""
    op.create_table(
        "submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("content_hash", sa.String(length=128), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("filename", sa.String(length=128), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("verdict", sa.String(length=32), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("progress", sa.JSON(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker_id", sa.String(length=128), nullable=True),
        sa.Column("lease_token", sa.String(length=64), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("judge_log", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["exercise_id"],
            ["exercise.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_submission_exercise_id"), ["exercise_id"], unique=False
        )
        batch_op.create_index("ix_submission_status_id", ["status", "id"], unique=False)
        batch_op.create_index("ix_submission_user_created", ["user_id", "created_at"], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_index("ix_submission_user_created")
        batch_op.drop_index("ix_submission_status_id")
        batch_op.drop_index(batch_op.f("ix_submission_exercise_id"))

    op.drop_table("submission")
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_user_username"))

    op.drop_table("user")
    op.drop_table("exercise")
