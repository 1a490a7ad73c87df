"""The dashboard's access to stored games: the service's read model of its default tenant (the one
a server without API keys uses), with the answers cached.

Every cached read takes the database URL, so two databases never share cache entries. The
dashboard writes only through the service's ingest path (``uploads``, sample games) and then
calls ``changed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import streamlit as st

from chaodipi.dashboard.stepping import ReplayView
from chaodipi.service.readmodel import (
    FindingCount,
    GameFilter,
    GamePage,
    PlayerRow,
    PlayerStatsRow,
    ReadModel,
    StatsFilter,
)

QUERY_TTL = 30
"""Seconds a query result is reused: the service may store new games meanwhile."""

STEPS_TTL = 600
"""Seconds a replay (with its recomputed steps) is kept."""

ALL_GAMES = GameFilter()
ALL_PLAYERS = StatsFilter()


@st.cache_resource(show_spinner=False)
def model() -> ReadModel:
    """The read model of the default tenant on the dashboard's database
    (``$CHAODIPI_DATABASE_URL``, else the service's embedded one), which gets its tables and
    tenant as ``chaodipi serve`` would give them."""
    return ReadModel.open()


def database_url() -> str:
    """The dashboard's database, for people (a password is hidden)."""
    return model().database_url


def changed() -> None:
    """Forget cached query results after the dashboard stored something."""
    st.cache_data.clear()


def day_range(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    """A filter's dates as ``played_from`` (inclusive) and ``played_to`` (exclusive, next day)."""
    low = datetime.combine(start, time.min) if start else None
    high = datetime.combine(end + timedelta(days=1), time.min) if end else None
    return low, high


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _games(url: str, filters: GameFilter, page_size: int, page_token: str) -> GamePage:
    return model().games(filters, page_size=page_size, page_token=page_token)


def games(
    filters: GameFilter = ALL_GAMES,
    *,
    page_size: int = 100,
    page_token: str = "",
) -> GamePage:
    """A page of the tenant's games matching ``filters``, with their total."""
    return _games(database_url(), filters, page_size, page_token)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _finding_counts(url: str, filters: GameFilter) -> list[FindingCount]:
    return model().finding_counts(filters)


def finding_counts(filters: GameFilter = ALL_GAMES) -> list[FindingCount]:
    """Findings per code in the games matching ``filters``."""
    return _finding_counts(database_url(), filters)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _players(url: str) -> list[PlayerRow]:
    return model().players()


def players() -> list[PlayerRow]:
    """The tenant's players with their game counts."""
    return _players(database_url())


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _player_stats(url: str, filters: StatsFilter) -> list[PlayerStatsRow]:
    return model().player_stats(filters)


def player_stats(filters: StatsFilter = ALL_PLAYERS) -> list[PlayerStatsRow]:
    """Per-player statistics computed by the database."""
    return _player_stats(database_url(), filters)


@st.cache_resource(ttl=STEPS_TTL, show_spinner=False, max_entries=32)
def _view(url: str, game_id: str) -> ReplayView | None:
    replay = model().replay(game_id)
    return None if replay is None else ReplayView(replay)


def replay_view(game_id: str) -> ReplayView | None:
    """A stored game with its recomputed steps (cached per game), or None if there is no such
    game. Treat the result as read-only: it is shared by every session."""
    return _view(database_url(), game_id)


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
def _history(url: str, player_id: str, limit: int) -> list[HandOfPlayer]:
    return [
        HandOfPlayer(
            game_id=row.game_id,
            played_at=row.played_at,
            side="defender" if row.side == "defender" else "dealer side",
            points_as_defender=row.points_taken if row.side == "defender" else 0,
            levels=row.levels_gained - row.levels_conceded,
            level_after=row.level_after,
        )
        for row in model().player_hands(player_id, limit=limit)
        if row.side
    ]


def history(player_id: str, limit: int = 500) -> list[HandOfPlayer]:
    """The player's latest ``limit`` stored hands, oldest first, from the stored seat rows."""
    return _history(database_url(), player_id, limit)
