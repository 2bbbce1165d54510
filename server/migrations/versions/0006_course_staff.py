"""course staff: assignments with deadlines, late submissions, verdicts before a regrade

Roles need no schema change: ``user.role`` takes "staff" beside "learner" and "admin".

Revision ID: 0006
Revises: 0005

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``assignment``; add ``submission.history`` (null: never regraded) and
    ``submission.late`` (false: no deadline yet)."""
    op.create_table(
        "assignment",
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("due", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["exercise_id"], ["exercise.id"]),
        sa.PrimaryKeyConstraint("exercise_id"),
    )
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.add_column(sa.Column("history", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("late", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    """Drop the column and the table."""
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_column("late")
        batch_op.drop_column("history")
    op.drop_table("assignment")
