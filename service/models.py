"""Tables: tenants and their API keys, players, stored games and matches, per-seat results and
findings. Every game row is written together with its audit (see ``service.store``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, LargeBinary, UniqueConstraint, text
from sqlmodel import Field, SQLModel

# Named constraints, so later migrations (batch mode on SQLite) can refer to them.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Tenant(SQLModel, table=True):
    """An owner of games and players; API keys are bound to one."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    created_at: datetime


class ApiKey(SQLModel, table=True):
    """An API key, stored as the SHA-256 of the secret (keys are random, so no slow hash)."""

    __tablename__ = "api_key"

    id: str = Field(primary_key=True, max_length=32)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    key_hash: str = Field(max_length=64, unique=True)
    created_at: datetime
    revoked_at: datetime | None = None


class Player(SQLModel, table=True):
    """A player of one tenant, keyed by the id records give (``Player.id``)."""

    __table_args__ = (UniqueConstraint("tenant_id", "player_key"),)

    id: int | None = Field(default=None, primary_key=True)
    tenant_id: int = Field(foreign_key="tenant.id")
    player_key: str = Field(max_length=200)
    display_name: str = Field(default="", max_length=200)


_NAMED_MATCH = text("record_id <> ''")
_NAMED_SINGLE_HAND = text("dedupe_scope = '' AND record_id <> ''")


class Match(SQLModel, table=True):
    """A stored match: its record, match-level audit, and the hands stored as games."""

    __table_args__ = (
        UniqueConstraint("tenant_id", "content_hash"),
        # A match id names one match of a tenant (changed content under it is a conflict).
        Index(
            "uq_match_tenant_record",
            "tenant_id",
            "record_id",
            unique=True,
            sqlite_where=_NAMED_MATCH,
            postgresql_where=_NAMED_MATCH,
        ),
    )

    id: str = Field(primary_key=True, max_length=32)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    content_hash: str = Field(max_length=64)
    record_id: str = Field(max_length=200)
    ruleset: str = Field(max_length=100)
    stored_at: datetime
    # The MatchRecord as uploaded and the MatchAuditReport without its hands (they live on games).
    record: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    report: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    hands: int
    breaches: int
    scoring_errors: int
    warnings: int
    finding_codes: str = Field(default="", max_length=1000)


class Game(SQLModel, table=True):
    """A stored hand with its audit report (without steps: they are recomputed on read)."""

    __table_args__ = (
        # A standalone hand dedupes on its content; a hand of a match is scoped to its match.
        UniqueConstraint("tenant_id", "dedupe_scope", "content_hash"),
        Index("ix_game_tenant_stored", "tenant_id", "stored_at", "id"),
        Index("ix_game_tenant_played", "tenant_id", "played_at"),
        Index("ix_game_tenant_ruleset", "tenant_id", "ruleset"),
        # Finding a game by its record id; among single hands a record id names one game (a
        # hand of a match is named by its match; an empty record id names nothing).
        Index("ix_game_tenant_record", "tenant_id", "record_id"),
        Index(
            "uq_game_tenant_record",
            "tenant_id",
            "record_id",
            unique=True,
            sqlite_where=_NAMED_SINGLE_HAND,
            postgresql_where=_NAMED_SINGLE_HAND,
        ),
    )

    id: str = Field(primary_key=True, max_length=32)
    tenant_id: int = Field(foreign_key="tenant.id")
    content_hash: str = Field(max_length=64)
    dedupe_scope: str = Field(default="", max_length=48)
    record_id: str = Field(max_length=200)
    ruleset: str = Field(max_length=100)
    played_at: datetime | None = None
    stored_at: datetime
    match_id: str | None = Field(default=None, foreign_key="match.id", index=True)
    hand_index: int | None = None
    record: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    report: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    breaches: int
    scoring_errors: int
    warnings: int
    finding_codes: str = Field(default="", max_length=1000)
    dealer_seat: int | None = None
    defenders_points: int | None = None
    level_result: str = Field(default="", max_length=40)


class GamePlayer(SQLModel, table=True):
    """One seat of a stored game: who sat there and what the audit computed for them."""

    __tablename__ = "game_player"
    __table_args__ = (Index("ix_game_player_player", "player_id", "game_id"),)

    game_id: str = Field(foreign_key="game.id", primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    player_id: int | None = Field(default=None, foreign_key="player.id")
    # "dealer", "defender", or "" when the dealer could not be decided.
    side: str = Field(default="", max_length=10)
    tricks_won: int = 0
    points_taken: int = 0
    throws_tried: int = 0
    throws_stood: int = 0
    throws_failed: int = 0
    kou_di_count: int = 0
    kou_di_points: int = 0
    levels_gained: int = 0
    levels_conceded: int = 0
    # 1 won, 0 lost, NULL when the hand has no computed result (excluded from the win rate).
    won: int | None = None
    # The seat's team level after the hand (a rank token); "" when unscored or the match ended.
    level_after: str = Field(default="", max_length=2)


class Finding(SQLModel, table=True):
    """One finding: of a game's own audit, or match-level (``game_id`` empty, ``match_id`` set)."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: str | None = Field(default=None, foreign_key="game.id", index=True, max_length=32)
    match_id: str | None = Field(default=None, foreign_key="match.id", index=True, max_length=32)
    code: str = Field(max_length=40, index=True)
    severity: int
    seat: int | None = None
    player_id: int | None = Field(default=None, foreign_key="player.id", index=True)
    trick: int | None = None
    play: int | None = None
    hand_index: int | None = None
    rule_id: str = Field(default="", max_length=40)
    message: str
