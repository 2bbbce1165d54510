"""course and health: worker reports, display names, submission scores, exercise versions

Revision ID: 0003
Revises: 0002

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the four tables (scores of earlier submissions are filled in when first read)."""
    _create_worker_status()
    _create_profile()
    _create_submission_score()
    _create_exercise_version()


def _create_worker_status() -> None:
    """Create the worker_status table, one row per worker's latest report."""
    op.create_table(
        "worker_status",
        sa.Column("id", sa.String(length=128), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("sandbox", sa.String(length=16), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("failed_starts", sa.Integer(), nullable=False),
        sa.Column("failing", sa.Boolean(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("ready", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def _create_profile() -> None:
    """Create the profile table holding users' display names."""
    op.create_table(
        "profile",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("display_name", sa.String(length=32), nullable=True),
        sa.Column("display_key", sa.String(length=32), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("user_id"),
        sa.UniqueConstraint("display_key"),
    )


def _create_submission_score() -> None:
    """Create the submission_score table and its indexes."""
    op.create_table(
        "submission_score",
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("verdict", sa.String(length=32), nullable=False),
        sa.Column("content_hash", sa.String(length=128), nullable=False),
        sa.Column("model_time_s", sa.Float(), nullable=True),
        sa.Column("model_size", sa.BigInteger(), nullable=True),
        sa.Column("bytes_sent", sa.BigInteger(), nullable=True),
        sa.Column("headline_case", sa.String(length=128), nullable=True),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submission.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("submission_id"),
    )
    with op.batch_alter_table("submission_score", schema=None) as batch_op:
        batch_op.create_index("ix_submission_score_exercise_verdict", ["exercise_id", "verdict"])
        batch_op.create_index("ix_submission_score_user_id", ["user_id"])


def _create_exercise_version() -> None:
    """Create the exercise_version table and seed it with each exercise's current text."""
    op.create_table(
        "exercise_version",
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("content_hash", sa.String(length=128), nullable=False),
        sa.Column("title_en", sa.String(), nullable=False),
        sa.Column("title_zh", sa.String(), nullable=False),
        sa.Column("statement_en", sa.Text(), nullable=False),
        sa.Column("statement_zh", sa.Text(), nullable=False),
        sa.Column("first_served_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("exercise_id", "content_hash"),
    )
    op.execute(sa.text(
        "INSERT INTO exercise_version (exercise_id, content_hash, title_en, title_zh, "
        "statement_en, statement_zh, first_served_at) SELECT id, content_hash, title_en, "
        "title_zh, statement_en, statement_zh, synced_at FROM exercise"))


def downgrade() -> None:
    """Drop the four tables."""
    op.drop_table("exercise_version")
    with op.batch_alter_table("submission_score", schema=None) as batch_op:
        batch_op.drop_index("ix_submission_score_user_id")
        batch_op.drop_index("ix_submission_score_exercise_verdict")
    op.drop_table("submission_score")
    op.drop_table("profile")
    op.drop_table("worker_status")
