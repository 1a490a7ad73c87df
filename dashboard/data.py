"""The dashboard's access to the database: one cached engine, cached read-only queries through
``service.queries``, and the service's write path for uploads and samples.

The dashboard acts for the service's default tenant, the one a server without API keys uses.
Every cached query takes the database URL, so two databases never share cache entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import streamlit as st
from sqlalchemy.exc import OperationalError, ProgrammingError

from chaodipi.dashboard.stepping import ReplayView
from chaodipi.service import queries
from chaodipi.service.db import SessionFactory, default_url, make_engine, session_factory
from chaodipi.service.migrate import upgrade
from chaodipi.service.store import DEFAULT_TENANT, ensure_tenant

QUERY_TTL = 30
"""Seconds a query result is reused: the service may store new games meanwhile."""

STEPS_TTL = 600
"""Seconds a re-audited replay (with its steps) is kept."""


def database_url() -> str:
    """``$CHAODIPI_DATABASE_URL``, else the service's embedded default."""
    return default_url()


@st.cache_resource(show_spinner=False)
def _sessions(url: str) -> SessionFactory:
    engine = make_engine(url)
    upgrade(engine)  # a fresh embedded database gets its tables, as ``chaodipi serve`` does
    return session_factory(engine)


def sessions() -> SessionFactory:
    """The session factory of the dashboard's database (migrated to the latest schema)."""
    return _sessions(database_url())


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _tenant(url: str) -> int | None:
    try:
        with _sessions(url)() as session:
            return queries.tenant_id(session, DEFAULT_TENANT)
    except (OperationalError, ProgrammingError):
        return None


def tenant() -> int | None:
    """The default tenant's id; None until something has been stored for it."""
    return _tenant(database_url())


def writable_tenant() -> int:
    """The default tenant's id, created if missing (for uploads and samples)."""
    return ensure_tenant(sessions(), DEFAULT_TENANT)


def changed() -> None:
    """Forget cached query results after the dashboard stored something."""
    st.cache_data.clear()


def day_range(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    """A filter's dates as ``played_from`` (inclusive) and ``played_to`` (exclusive, next day)."""
    low = datetime.combine(start, time.min) if start else None
    high = datetime.combine(end + timedelta(days=1), time.min) if end else None
    return low, high


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _games(
    url: str, tenant: int, filters: queries.GameFilter, page_size: int, page_token: str
) -> queries.GamePage:
    with _sessions(url)() as session:
        return queries.list_games(
            session, tenant, filters, page_size=page_size, page_token=page_token
        )


ALL_GAMES = queries.GameFilter()
ALL_PLAYERS = queries.StatsFilter()


def games(
    filters: queries.GameFilter = ALL_GAMES,
    *,
    page_size: int = 100,
    page_token: str = "",
) -> queries.GamePage:
    """A page of the tenant's games matching ``filters`` (empty when nothing is stored)."""
    found = tenant()
    if found is None:
        return queries.GamePage([], "", 0)
    return _games(database_url(), found, filters, page_size, page_token)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _finding_counts(
    url: str, tenant: int, filters: queries.GameFilter
) -> list[queries.FindingCount]:
    with _sessions(url)() as session:
        return queries.finding_counts(session, tenant, filters)


def finding_counts(
    filters: queries.GameFilter = ALL_GAMES,
) -> list[queries.FindingCount]:
    """Findings per code in the games matching ``filters``."""
    found = tenant()
    return [] if found is None else _finding_counts(database_url(), found, filters)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _players(url: str, tenant: int) -> list[queries.PlayerRow]:
    with _sessions(url)() as session:
        return queries.list_players(session, tenant)


def players() -> list[queries.PlayerRow]:
    """The tenant's players with their game counts."""
    found = tenant()
    return [] if found is None else _players(database_url(), found)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _player_stats(
    url: str, tenant: int, filters: queries.StatsFilter
) -> list[queries.PlayerStatsRow]:
    with _sessions(url)() as session:
        return queries.player_stats(session, tenant, filters)


def player_stats(
    filters: queries.StatsFilter = ALL_PLAYERS,
) -> list[queries.PlayerStatsRow]:
    """Per-player statistics computed by the database."""
    found = tenant()
    return [] if found is None else _player_stats(database_url(), found, filters)


@st.cache_resource(ttl=STEPS_TTL, show_spinner=False, max_entries=32)
def _view(url: str, tenant: int, game_id: str) -> ReplayView | None:
    with _sessions(url)() as session:
        replay = queries.get_replay(session, tenant, game_id)
    if replay is None:
        return None
    return ReplayView.build(replay.game_id, replay.record, replay.report)


def replay_view(game_id: str) -> ReplayView | None:
    """A stored game re-audited with steps (cached per game), or None if there is no such game.

    Treat the result as read-only: it is shared by every session.
    """
    found = tenant()
    return None if found is None else _view(database_url(), found, game_id)


@dataclass(frozen=True, slots=True)
class HandOfPlayer:
    """One stored hand from a player's seat: their side, points and their team's level after."""

    game_id: str
    played_at: datetime | None
    side: str
    points_as_defender: int
    levels: int  # gained (positive) or conceded (negative)
    level_after: str


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _history(url: str, tenant: int, player_id: str, limit: int) -> list[HandOfPlayer]:
    with _sessions(url)() as session:
        rows = queries.player_hands(session, tenant, player_id, limit=limit)
    return [
        HandOfPlayer(
            game_id=row.game_id,
            played_at=row.played_at,
            side="defender" if row.side == "defender" else "dealer side",
            points_as_defender=row.points_taken if row.side == "defender" else 0,
            levels=row.levels_gained - row.levels_conceded,
            level_after=row.level_after,
        )
        for row in rows
        if row.side
    ]


def history(player_id: str, limit: int = 500) -> list[HandOfPlayer]:
    """The player's latest ``limit`` stored hands, oldest first, from the stored seat rows."""
    found = tenant()
    return [] if found is None else _history(database_url(), found, player_id, limit)
