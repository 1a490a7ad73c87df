"""Seats keep their team's level after the hand, for a player's history without replays.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 08:15:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    with op.batch_alter_table("game_player", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "level_after",
                sqlmodel.sql.sqltypes.AutoString(length=2),
                nullable=False,
                server_default="",
            )
        )


def downgrade() -> None:
    """Downgrade the schema."""
    with op.batch_alter_table("game_player", schema=None) as batch_op:
        batch_op.drop_column("level_after")
