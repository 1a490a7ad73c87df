"""Initial schema: tenants, API keys, players, matches, games, seats and findings.

Revision ID: 0001
Revises:
Create Date: 2026-11-30 06:55:57.966693
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "tenant",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tenant")),
        sa.UniqueConstraint("name", name=op.f("uq_tenant_name")),
    )
    op.create_table(
        "api_key",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenant.id"], name=op.f("fk_api_key_tenant_id_tenant")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_key")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_api_key_key_hash")),
    )
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_key_tenant_id"), ["tenant_id"], unique=False)

    op.create_table(
        "match",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("record_id", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("ruleset", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("stored_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("record", sa.LargeBinary(), nullable=False),
        sa.Column("report", sa.LargeBinary(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("breaches", sa.Integer(), nullable=False),
        sa.Column("scoring_errors", sa.Integer(), nullable=False),
        sa.Column("warnings", sa.Integer(), nullable=False),
        sa.Column("finding_codes", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenant.id"], name=op.f("fk_match_tenant_id_tenant")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match")),
        sa.UniqueConstraint(
            "tenant_id", "content_hash", name=op.f("uq_match_tenant_id_content_hash")
        ),
    )
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_match_tenant_id"), ["tenant_id"], unique=False)

    op.create_table(
        "player",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("player_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("display_name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenant.id"], name=op.f("fk_player_tenant_id_tenant")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player")),
        sa.UniqueConstraint("tenant_id", "player_key", name=op.f("uq_player_tenant_id_player_key")),
    )
    op.create_table(
        "game",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("dedupe_scope", sqlmodel.sql.sqltypes.AutoString(length=48), nullable=False),
        sa.Column("record_id", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("ruleset", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("played_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("stored_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("hand_index", sa.Integer(), nullable=True),
        sa.Column("record", sa.LargeBinary(), nullable=False),
        sa.Column("report", sa.LargeBinary(), nullable=False),
        sa.Column("breaches", sa.Integer(), nullable=False),
        sa.Column("scoring_errors", sa.Integer(), nullable=False),
        sa.Column("warnings", sa.Integer(), nullable=False),
        sa.Column("finding_codes", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column("dealer_seat", sa.Integer(), nullable=True),
        sa.Column("defenders_points", sa.Integer(), nullable=True),
        sa.Column("level_result", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], name=op.f("fk_game_match_id_match")),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenant.id"], name=op.f("fk_game_tenant_id_tenant")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game")),
        sa.UniqueConstraint(
            "tenant_id",
            "dedupe_scope",
            "content_hash",
            name=op.f("uq_game_tenant_id_dedupe_scope_content_hash"),
        ),
    )
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_match_id"), ["match_id"], unique=False)
        batch_op.create_index("ix_game_tenant_played", ["tenant_id", "played_at"], unique=False)
        batch_op.create_index("ix_game_tenant_ruleset", ["tenant_id", "ruleset"], unique=False)
        batch_op.create_index(
            "ix_game_tenant_stored", ["tenant_id", "stored_at", "id"], unique=False
        )

    op.create_table(
        "finding",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("code", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("severity", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("trick", sa.Integer(), nullable=True),
        sa.Column("play", sa.Integer(), nullable=True),
        sa.Column("hand_index", sa.Integer(), nullable=True),
        sa.Column("rule_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("message", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_finding_game_id_game")),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], name=op.f("fk_finding_match_id_match")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name=op.f("fk_finding_player_id_player")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_finding")),
    )
    with op.batch_alter_table("finding", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_finding_code"), ["code"], unique=False)
        batch_op.create_index(batch_op.f("ix_finding_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_finding_match_id"), ["match_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_finding_player_id"), ["player_id"], unique=False)

    op.create_table(
        "game_player",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("side", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("tricks_won", sa.Integer(), nullable=False),
        sa.Column("points_taken", sa.Integer(), nullable=False),
        sa.Column("throws_tried", sa.Integer(), nullable=False),
        sa.Column("throws_stood", sa.Integer(), nullable=False),
        sa.Column("throws_failed", sa.Integer(), nullable=False),
        sa.Column("kou_di_count", sa.Integer(), nullable=False),
        sa.Column("kou_di_points", sa.Integer(), nullable=False),
        sa.Column("levels_gained", sa.Integer(), nullable=False),
        sa.Column("levels_conceded", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_game_player_game_id_game")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name=op.f("fk_game_player_player_id_player")
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_player")),
    )
    with op.batch_alter_table("game_player", schema=None) as batch_op:
        batch_op.create_index("ix_game_player_player", ["player_id", "game_id"], unique=False)


def downgrade() -> None:
    """Downgrade the schema."""
    with op.batch_alter_table("game_player", schema=None) as batch_op:
        batch_op.drop_index("ix_game_player_player")

    op.drop_table("game_player")
    with op.batch_alter_table("finding", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_finding_player_id"))
        batch_op.drop_index(batch_op.f("ix_finding_match_id"))
        batch_op.drop_index(batch_op.f("ix_finding_game_id"))
        batch_op.drop_index(batch_op.f("ix_finding_code"))

    op.drop_table("finding")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index("ix_game_tenant_stored")
        batch_op.drop_index("ix_game_tenant_ruleset")
        batch_op.drop_index("ix_game_tenant_played")
        batch_op.drop_index(batch_op.f("ix_game_match_id"))

    op.drop_table("game")
    op.drop_table("player")
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_tenant_id"))

    op.drop_table("match")
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_key_tenant_id"))

    op.drop_table("api_key")
    op.drop_table("tenant")
