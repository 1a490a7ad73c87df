"""The dashboard's access to stored games: the service's read model of the session's tenant,
with the answers cached.

The database is ``$CHAODIPI_DATABASE_URL`` (else the service's embedded one); the tenant is the
one the session signed in as (``chaodipi.dashboard.auth`` puts its id in the session state
before any page runs). Every cached read takes the database URL and the tenant id, so two
databases or two tenants never share a cache entry. The dashboard writes only through the
service's ingest path (``uploads``, sample games) and then calls ``changed``.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import streamlit as st

from chaodipi.dashboard.stepping import ReplayView
from chaodipi.service.readmodel import (
    EndgameLosses,
    FindingCount,
    GameFilter,
    GamePage,
    GameSearch,
    GameSearchPage,
    PlayerRow,
    PlayerSummary,
    ReadModel,
    StatsFilter,
    TrendRow,
)

QUERY_TTL = 30
"""Seconds a query result is reused: the service may store new games meanwhile."""

STEPS_TTL = 600
"""Seconds a replay (with its recomputed steps) is kept."""

TENANT_KEY = "cdp-tenant-id"
"""The session state entry holding the id of the tenant the session reads."""

ALL_GAMES = GameFilter()
ALL_PLAYERS = StatsFilter()


@st.cache_resource(show_spinner=False)
def base() -> ReadModel:
    """The read model of the default tenant on the dashboard's database (``ReadModel.open``:
    the database gets its tables and the tenant as ``chaodipi serve`` would give them). Its
    sessions serve every tenant."""
    return ReadModel.open()


def model() -> ReadModel:
    """The read model of the session's tenant."""
    shared = base()
    return ReadModel(shared.sessions, int(st.session_state[TENANT_KEY]))


def _where() -> tuple[str, int]:
    """The cache scope of the session: database URL and tenant id."""
    current = model()
    return current.database_url, current.tenant_id


def database_url() -> str:
    """The dashboard's database, for people (a password is hidden)."""
    return base().database_url


def changed() -> None:
    """Forget cached query results after the dashboard stored something."""
    st.cache_data.clear()


def day_range(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    """A filter's dates as ``played_from`` (inclusive) and ``played_to`` (exclusive, next day)."""
    low = datetime.combine(start, time.min) if start else None
    high = datetime.combine(end + timedelta(days=1), time.min) if end else None
    return low, high


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _games(url: str, tenant: int, filters: GameFilter, page_size: int) -> GamePage:
    return ReadModel(base().sessions, tenant).games(filters, page_size=page_size)


def games(filters: GameFilter = ALL_GAMES, *, page_size: int = 100) -> GamePage:
    """The first page of the tenant's games matching ``filters`` (newest stored first), with
    their total."""
    return _games(*_where(), filters, page_size)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _search(url: str, tenant: int, search: GameSearch) -> GameSearchPage:
    return ReadModel(base().sessions, tenant).search_games(search)


def search(query: GameSearch) -> GameSearchPage:
    """A numbered page of the tenant's games matching a search, with the total."""
    return _search(*_where(), query)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _resolve(url: str, tenant: int, key: str) -> str | None:
    return ReadModel(base().sessions, tenant).resolve_game(key)


def resolve_game(key: str) -> str | None:
    """The game id a game id or record id names, or None."""
    return _resolve(*_where(), key)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _finding_counts(url: str, tenant: int, filters: GameFilter) -> list[FindingCount]:
    return ReadModel(base().sessions, tenant).finding_counts(filters)


def finding_counts(filters: GameFilter = ALL_GAMES) -> list[FindingCount]:
    """Findings per code in the games matching ``filters``."""
    return _finding_counts(*_where(), filters)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _players(url: str, tenant: int) -> list[PlayerRow]:
    return ReadModel(base().sessions, tenant).players()


def players() -> list[PlayerRow]:
    """The tenant's players with their game counts."""
    return _players(*_where())


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _endgames(url: str, tenant: int, player_id: str) -> EndgameLosses:
    return ReadModel(base().sessions, tenant).endgame_losses(player_id)


def endgame_losses(player_id: str) -> EndgameLosses:
    """What the player's plays cost in the analysed ends of their latest hands (cached)."""
    return _endgames(*_where(), player_id)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _summaries(url: str, tenant: int, filters: StatsFilter) -> list[PlayerSummary]:
    return ReadModel(base().sessions, tenant).player_summaries(filters)


def summaries(filters: StatsFilter = ALL_PLAYERS) -> list[PlayerSummary]:
    """What each player asks of their statistics, computed by the database."""
    return _summaries(*_where(), filters)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _trend(url: str, tenant: int, player_id: str, period: str) -> list[TrendRow]:
    return ReadModel(base().sessions, tenant).player_trend(player_id, period)


def trend(player_id: str, period: str) -> list[TrendRow]:
    """A player's hands summed per period (day, week, month or match), oldest first."""
    return _trend(*_where(), player_id, period)


@st.cache_data(ttl=QUERY_TTL, show_spinner=False)
def _tenant_name(url: str, tenant: int) -> str:
    return ReadModel(base().sessions, tenant).tenant_name()


def tenant_name() -> str:
    """The name of the session's tenant."""
    return _tenant_name(*_where())


@st.cache_resource(ttl=STEPS_TTL, show_spinner=False, max_entries=32)
def _view(url: str, tenant: int, game_id: str) -> ReplayView | None:
    replay = ReadModel(base().sessions, tenant).replay(game_id)
    return None if replay is None else ReplayView(replay)


def replay_view(game_id: str) -> ReplayView | None:
    """A stored game of the tenant with its recomputed steps (cached per game), or None if the
    tenant has no such game. Treat the result as read-only: it is shared by every session of
    the tenant."""
    return _view(*_where(), game_id)
