"""submissions: the column of the cases graded so far is named cases_so_far (was progress)

"Progress" is a learner's standing per exercise (docs/architecture.md, "Words with one meaning").

Revision ID: 0005
Revises: 0004

"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Rename the column, keeping its values (SQLite copies the table, Postgres renames)."""
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.alter_column("progress", new_column_name="cases_so_far")


def downgrade() -> None:
    """Rename it back."""
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.alter_column("cases_so_far", new_column_name="progress")
