"""Read-only queries over stored games, for the gRPC server and the dashboard.

Every function takes an open SQLAlchemy ``Session`` (the caller owns it and its transaction) and
the tenant's id (``tenant_id(session, name)`` finds it), and never writes. Aggregates are
computed by the database (GROUP BY, SUM, COUNT); results are plain frozen dataclasses, except
``get_replay`` which returns the ``chaodipi.v1.Replay`` message the replay viewer consumes.

>>> from chaodipi.service.db import make_engine, session_factory
>>> sessions = session_factory(make_engine())          # doctest: +SKIP
>>> with sessions() as s:                              # doctest: +SKIP
...     t = tenant_id(s, "default")
...     page = list_games(s, t, GameFilter(ruleset="classic"), page_size=20)
...     stats = player_stats(s, t, StatsFilter(player_ids=("li.wei",)))
"""

from __future__ import annotations

import base64
import binascii
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp
from sqlalchemy import (
    ColumnElement,
    Float,
    SQLColumnExpression,
    and_,
    case,
    cast,
    exists,
    func,
    or_,
    select,
)
from sqlalchemy.orm import Session
from sqlmodel import col

from chaodipi.auditor import audit_game
from chaodipi.service.models import Finding, Game, GamePlayer, Match, Player, Tenant
from chaodipi.service.results import as_utc
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


class BadPageToken(ValueError):
    """A page token that this service did not issue."""


@dataclass(frozen=True, slots=True)
class GameFilter:
    """Which games to select; ``None`` (or empty) matches everything.

    ``played_from`` is inclusive and ``played_to`` exclusive; both are compared in UTC (naive
    values are taken as UTC). ``with_findings`` selects games with (True) or without (False)
    any finding. ``player_id`` is the id records give a player.
    """

    ruleset: str | None = None
    player_id: str | None = None
    finding_code: str | None = None
    played_from: datetime | None = None
    played_to: datetime | None = None
    with_findings: bool | None = None
    match_id: str | None = None


@dataclass(frozen=True, slots=True)
class StatsFilter:
    """Which players and games count towards statistics; empty matches everything."""

    player_ids: tuple[str, ...] = ()
    ruleset: str | None = None
    played_from: datetime | None = None
    played_to: datetime | None = None


@dataclass(frozen=True, slots=True)
class GameRow:
    """A stored game in a listing."""

    game_id: str
    record_id: str
    ruleset: str
    player_ids: tuple[str, ...]
    played_at: datetime | None
    stored_at: datetime
    breaches: int
    scoring_errors: int
    warnings: int
    finding_codes: tuple[str, ...]
    defenders_points: int | None
    level_result: str
    match_id: str | None
    hand_index: int | None


@dataclass(frozen=True, slots=True)
class GamePage:
    """One page of games, the token of the next page (empty: last page) and the total count."""

    games: list[GameRow]
    next_page_token: str
    total: int


@dataclass(frozen=True, slots=True)
class PlayerStatsRow:
    """A player's statistics over the selected games (see ``chaodipi.v1.PlayerStats``)."""

    player_id: str
    display_name: str
    games: int
    hands_as_dealer_side: int
    hands_as_defenders: int
    tricks_won: int
    points_taken: int
    throws_tried: int
    throws_stood: int
    throws_failed: int
    kou_di_count: int
    kou_di_points: int
    levels_gained: int
    levels_conceded: int
    win_rate: float
    breaches_by_code: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FindingCount:
    """How many findings of one code (and severity) the selected games hold."""

    code: str
    severity: int
    count: int
    games: int


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """A known player and the number of stored games they played."""

    player_id: str
    display_name: str
    games: int


@dataclass(frozen=True, slots=True)
class PlayerHandRow:
    """One stored hand seen from a player's seat (a row of ``game_player``)."""

    game_id: str
    played_at: datetime | None
    side: str  # "dealer", "defender", or "" when the dealer could not be decided
    points_taken: int
    levels_gained: int
    levels_conceded: int
    level_after: str  # the team's level after the hand; "" when unscored or the match ended


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A stored match: its record (without hands), match-level report, and its hands' game ids."""

    match_id: str
    record: records_pb2.MatchRecord
    report: audit_pb2.MatchAuditReport
    hand_game_ids: list[str]
    stored_at: datetime


def tenant_id(session: Session, name: str) -> int | None:
    """The id of the tenant called ``name`` (``"default"`` when the server runs without keys)."""
    return session.scalar(select(col(Tenant.id)).where(col(Tenant.name) == name))


def _common_conditions(
    tenant: int, ruleset: str | None, played_from: datetime | None, played_to: datetime | None
) -> list[ColumnElement[bool]]:
    conditions = [col(Game.tenant_id) == tenant]
    if ruleset:
        conditions.append(col(Game.ruleset) == ruleset)
    if played_from is not None:
        conditions.append(col(Game.played_at) >= as_utc(played_from))
    if played_to is not None:
        conditions.append(col(Game.played_at) < as_utc(played_to))
    return conditions


def _game_conditions(tenant: int, filters: GameFilter) -> list[ColumnElement[bool]]:
    conditions = _common_conditions(tenant, filters.ruleset, filters.played_from, filters.played_to)
    if filters.player_id:
        conditions.append(
            exists().where(
                col(GamePlayer.game_id) == col(Game.id),
                col(GamePlayer.player_id) == col(Player.id),
                col(Player.player_key) == filters.player_id,
            )
        )
    if filters.finding_code:
        conditions.append(
            exists().where(
                col(Finding.game_id) == col(Game.id),
                col(Finding.code) == filters.finding_code,
            )
        )
    if filters.with_findings is not None:
        total = col(Game.breaches) + col(Game.scoring_errors) + col(Game.warnings)
        conditions.append(total > 0 if filters.with_findings else total == 0)
    if filters.match_id:
        conditions.append(col(Game.match_id) == filters.match_id)
    return conditions


def _encode_token(stored_at: datetime, game_id: str) -> str:
    raw = f"{as_utc(stored_at).isoformat()}|{game_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_token(token: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        stamp, game_id = raw.split("|", 1)
        return as_utc(datetime.fromisoformat(stamp)), game_id
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise BadPageToken(f"bad page token {token!r}") from exc


def list_games(
    session: Session,
    tenant: int,
    filters: GameFilter = GameFilter(),
    *,
    page_size: int = DEFAULT_PAGE_SIZE,
    page_token: str = "",
) -> GamePage:
    """Games matching ``filters``, newest stored first, one page at a time.

    ``page_size`` is clamped to 1..``MAX_PAGE_SIZE`` (0: ``DEFAULT_PAGE_SIZE``); pass the
    returned ``next_page_token`` to get the next page. Raises ``BadPageToken`` for a token this
    function did not return.
    """
    size = min(max(page_size, 1), MAX_PAGE_SIZE) if page_size else DEFAULT_PAGE_SIZE
    conditions = _game_conditions(tenant, filters)
    total = session.scalar(select(func.count()).select_from(Game).where(*conditions)) or 0
    query = select(Game).where(*conditions)
    if page_token:
        stamp, last_id = _decode_token(page_token)
        query = query.where(
            or_(
                col(Game.stored_at) < stamp,
                and_(col(Game.stored_at) == stamp, col(Game.id) < last_id),
            )
        )
    query = query.order_by(col(Game.stored_at).desc(), col(Game.id).desc()).limit(size + 1)
    games = list(session.scalars(query))
    more = len(games) > size
    games = games[:size]
    seats: dict[str, list[str]] = defaultdict(lambda: [""] * 4)
    if games:
        for game_id, seat, key in session.execute(
            select(col(GamePlayer.game_id), col(GamePlayer.seat), col(Player.player_key))
            .join(Player, col(Player.id) == col(GamePlayer.player_id))
            .where(col(GamePlayer.game_id).in_([g.id for g in games]))
        ):
            seats[game_id][seat] = key
    rows = [
        GameRow(
            game_id=g.id,
            record_id=g.record_id,
            ruleset=g.ruleset,
            player_ids=tuple(seats[g.id]),
            played_at=g.played_at,
            stored_at=g.stored_at,
            breaches=g.breaches,
            scoring_errors=g.scoring_errors,
            warnings=g.warnings,
            finding_codes=tuple(c for c in g.finding_codes.split(",") if c),
            defenders_points=g.defenders_points,
            level_result=g.level_result,
            match_id=g.match_id,
            hand_index=g.hand_index,
        )
        for g in games
    ]
    token = _encode_token(games[-1].stored_at, games[-1].id) if more else ""
    return GamePage(games=rows, next_page_token=token, total=total)


def _timestamp(value: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(as_utc(value))
    return stamp


def get_replay(
    session: Session, tenant: int, game_id: str, *, include_steps: bool = False
) -> service_pb2.Replay | None:
    """A stored game with its stored audit report, or None if the tenant has no such game.

    Steps are not stored (a hand's steps are ~15x the size of the record); with
    ``include_steps`` they are recomputed from the stored record. Should the current auditor's
    findings differ from the stored ones, the steps' ``finding_indexes`` would point at the
    wrong findings, so they are dropped and the report says so in ``notes``.
    """
    game = session.scalar(
        select(Game).where(col(Game.id) == game_id, col(Game.tenant_id) == tenant)
    )
    if game is None:
        return None
    replay = service_pb2.Replay(game_id=game.id, content_hash=game.content_hash)
    replay.record.ParseFromString(game.record)
    replay.report.ParseFromString(game.report)
    replay.stored_at.CopyFrom(_timestamp(game.stored_at))
    if include_steps:
        again = audit_game(replay.record, steps=True, hand_index=game.hand_index)
        replay.report.steps.extend(again.steps)
        if list(again.findings) != list(replay.report.findings):
            for step in replay.report.steps:
                del step.finding_indexes[:]
            replay.report.notes.append(
                "steps were recomputed by a newer auditor whose findings differ from the stored "
                "audit; their finding indexes are omitted (re-audit the game to compare)"
            )
    return replay


def get_record(session: Session, tenant: int, game_id: str) -> records_pb2.GameRecord | None:
    """The stored record of a game, or None if the tenant has no such game."""
    data = session.scalar(
        select(col(Game.record)).where(col(Game.id) == game_id, col(Game.tenant_id) == tenant)
    )
    if data is None:
        return None
    record = records_pb2.GameRecord()
    record.ParseFromString(data)
    return record


def get_match(session: Session, tenant: int, match_id: str) -> MatchRow | None:
    """A stored match with its match-level findings and its hands' game ids, or None."""
    match = session.scalar(
        select(Match).where(col(Match.id) == match_id, col(Match.tenant_id) == tenant)
    )
    if match is None:
        return None
    record, report = records_pb2.MatchRecord(), audit_pb2.MatchAuditReport()
    record.ParseFromString(match.record)
    report.ParseFromString(match.report)
    hands = list(
        session.scalars(
            select(col(Game.id))
            .where(col(Game.match_id) == match.id)
            .order_by(col(Game.hand_index))
        )
    )
    return MatchRow(match.id, record, report, hands, match.stored_at)


def _stats_conditions(tenant: int, filters: StatsFilter) -> list[ColumnElement[bool]]:
    conditions = _common_conditions(tenant, filters.ruleset, filters.played_from, filters.played_to)
    if filters.player_ids:
        conditions.append(col(Player.player_key).in_(filters.player_ids))
    return conditions


def player_stats(
    session: Session, tenant: int, filters: StatsFilter = StatsFilter()
) -> list[PlayerStatsRow]:
    """Statistics per player over the games selected, ordered by player id.

    One GROUP BY over the players' seats for the totals, one over their breach findings for
    ``breaches_by_code``. The win rate counts only hands with a computed result.
    """
    gp = GamePlayer
    conditions = _stats_conditions(tenant, filters)

    def total(column: SQLColumnExpression[int]) -> ColumnElement[int]:
        return func.coalesce(func.sum(column), 0)

    won = func.sum(col(gp.won))
    decided = func.count(col(gp.won))
    query = (
        select(
            col(Player.player_key),
            col(Player.display_name),
            func.count(),
            total(case((col(gp.side) == "dealer", 1), else_=0)),
            total(case((col(gp.side) == "defender", 1), else_=0)),
            total(col(gp.tricks_won)),
            total(col(gp.points_taken)),
            total(col(gp.throws_tried)),
            total(col(gp.throws_stood)),
            total(col(gp.throws_failed)),
            total(col(gp.kou_di_count)),
            total(col(gp.kou_di_points)),
            total(col(gp.levels_gained)),
            total(col(gp.levels_conceded)),
            func.coalesce(cast(won, Float) / func.nullif(decided, 0), 0.0),
        )
        .join(Player, col(Player.id) == col(gp.player_id))
        .join(Game, col(Game.id) == col(gp.game_id))
        .where(*conditions)
        .group_by(col(Player.id), col(Player.player_key), col(Player.display_name))
        .order_by(col(Player.player_key))
    )
    breaches: dict[str, dict[str, int]] = defaultdict(dict)
    for key, code, count in session.execute(
        select(col(Player.player_key), col(Finding.code), func.count())
        .join(Player, col(Player.id) == col(Finding.player_id))
        .join(Game, col(Game.id) == col(Finding.game_id))
        .where(col(Finding.severity) == audit_pb2.SEVERITY_BREACH, *conditions)
        .group_by(col(Player.player_key), col(Finding.code))
    ):
        breaches[key][code] = count
    return [
        PlayerStatsRow(
            player_id=row[0],
            display_name=row[1],
            games=row[2],
            hands_as_dealer_side=row[3],
            hands_as_defenders=row[4],
            tricks_won=row[5],
            points_taken=row[6],
            throws_tried=row[7],
            throws_stood=row[8],
            throws_failed=row[9],
            kou_di_count=row[10],
            kou_di_points=row[11],
            levels_gained=row[12],
            levels_conceded=row[13],
            win_rate=float(row[14]),
            breaches_by_code=breaches.get(row[0], {}),
        )
        for row in session.execute(query)
    ]


def finding_counts(
    session: Session, tenant: int, filters: GameFilter = GameFilter()
) -> list[FindingCount]:
    """Findings per code and severity in the selected games (most frequent first)."""
    query = (
        select(
            col(Finding.code),
            col(Finding.severity),
            func.count(),
            func.count(func.distinct(col(Finding.game_id))),
        )
        .join(Game, col(Game.id) == col(Finding.game_id))
        .where(*_game_conditions(tenant, filters))
        .group_by(col(Finding.code), col(Finding.severity))
        .order_by(func.count().desc(), col(Finding.code))
    )
    return [
        FindingCount(code, severity, count, games)
        for code, severity, count, games in session.execute(query)
    ]


def list_players(session: Session, tenant: int, *, search: str = "") -> list[PlayerRow]:
    """The tenant's players with their game counts, by player id; ``search`` filters by a
    case-insensitive substring of the id or display name."""
    query = (
        select(
            col(Player.player_key), col(Player.display_name), func.count(col(GamePlayer.game_id))
        )
        .outerjoin(GamePlayer, col(GamePlayer.player_id) == col(Player.id))
        .where(col(Player.tenant_id) == tenant)
        .group_by(col(Player.id), col(Player.player_key), col(Player.display_name))
        .order_by(col(Player.player_key))
    )
    if search:
        pattern = f"%{search.lower()}%"
        query = query.where(
            or_(
                func.lower(col(Player.player_key)).like(pattern),
                func.lower(col(Player.display_name)).like(pattern),
            )
        )
    return [PlayerRow(key, name, games) for key, name, games in session.execute(query)]


def player_hands(
    session: Session, tenant: int, player_id: str, *, limit: int = 500
) -> list[PlayerHandRow]:
    """The player's latest ``limit`` stored hands, oldest first, straight from the seat rows."""
    query = (
        select(
            col(Game.id),
            col(Game.played_at),
            col(GamePlayer.side),
            col(GamePlayer.points_taken),
            col(GamePlayer.levels_gained),
            col(GamePlayer.levels_conceded),
            col(GamePlayer.level_after),
        )
        .join(GamePlayer, col(GamePlayer.game_id) == col(Game.id))
        .join(Player, col(Player.id) == col(GamePlayer.player_id))
        .where(col(Game.tenant_id) == tenant, col(Player.player_key) == player_id)
        .order_by(col(Game.played_at).desc(), col(Game.id).desc())
        .limit(limit)
    )
    rows = [
        PlayerHandRow(
            game_id, as_utc(played) if played else None, side, points, gained, conceded, after
        )
        for game_id, played, side, points, gained, conceded, after in session.execute(query)
    ]
    rows.reverse()
    return rows
