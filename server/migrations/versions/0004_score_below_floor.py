"""submission scores: below_floor, a run measured below its exercise's floor (never ranked)

Revision ID: 0004
Revises: 0003

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the flag; scores kept before it are taken as at or above their floors."""
    with op.batch_alter_table("submission_score", schema=None) as batch_op:
        batch_op.add_column(sa.Column("below_floor", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    """Drop the flag."""
    with op.batch_alter_table("submission_score", schema=None) as batch_op:
        batch_op.drop_column("below_floor")
