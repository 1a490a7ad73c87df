"""A record id names one record of a tenant: unique among single hands, and among matches.

A changed record uploaded under a stored record id is now STATUS_CONFLICT instead of a second
game. Databases written before this revision may hold such second games: the first stored keeps
its record id, each later one gets ``<record id>~<its game id>`` (cut to fit 200 characters), so
every game stays stored and reachable.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 21:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SINGLE_HAND = "dedupe_scope = '' AND record_id <> ''"
_NAMED = "record_id <> ''"


def _rename_later_copies(table: str, where: str) -> None:
    """Give every game (or match) but the first stored of a record id a record id of its own."""
    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            f"SELECT id, tenant_id, record_id FROM {table} WHERE {where} "
            "ORDER BY tenant_id, record_id, stored_at, id"
        )
    ).all()
    seen: set[tuple[int, str]] = set()
    for row_id, tenant_id, record_id in rows:
        if (tenant_id, record_id) in seen:
            renamed = f"{record_id[: 200 - len(row_id) - 1]}~{row_id}"
            bind.execute(
                sa.text(f"UPDATE {table} SET record_id = :renamed WHERE id = :id"),
                {"renamed": renamed, "id": row_id},
            )
        seen.add((tenant_id, record_id))


def upgrade() -> None:
    """Upgrade the schema."""
    _rename_later_copies("game", _SINGLE_HAND)
    _rename_later_copies("match", _NAMED)
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.create_index("ix_game_tenant_record", ["tenant_id", "record_id"], unique=False)
        batch_op.create_index(
            "uq_game_tenant_record",
            ["tenant_id", "record_id"],
            unique=True,
            sqlite_where=sa.text(_SINGLE_HAND),
            postgresql_where=sa.text(_SINGLE_HAND),
        )
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.create_index(
            "uq_match_tenant_record",
            ["tenant_id", "record_id"],
            unique=True,
            sqlite_where=sa.text(_NAMED),
            postgresql_where=sa.text(_NAMED),
        )


def downgrade() -> None:
    """Downgrade the schema (renamed record ids stay renamed)."""
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_index("uq_match_tenant_record")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index("uq_game_tenant_record")
        batch_op.drop_index("ix_game_tenant_record")
