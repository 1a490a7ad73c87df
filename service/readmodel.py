"""The read model: every read of stored games, for the gRPC server, the CLI and the dashboard.

A ``ReadModel`` is one tenant's view of one database. Each method opens its own session and
never writes. Answers are frozen dataclasses (``GamePage``, ``PlayerStatsRow``, ``GameReplay``
…); what they carry of a record or an audit is the ``chaodipi.v1`` message itself, shared with
whoever else holds the answer (the dashboard caches replays across sessions), so treat those
messages as read-only and copy before changing one. Aggregates are computed by the database
(GROUP BY, SUM, COUNT), and SQLite and PostgreSQL answer alike.

Steps of a replay are not stored (a hand's steps are ~15x the size of its record): ``replay``
recomputes them with the current auditor, and says whether its findings still match the stored
audit. The replay viewer needs nothing else from the auditor: a ``GameReplay`` also carries the
trump cards of every step and where each finding stands, in words.

>>> from chaodipi.auditor.generate import generate_hand
>>> from chaodipi.service.ingest import ingest_records
>>> model = ReadModel.open("sqlite://")        # in memory; migrated, with the "default" tenant
>>> model.games().total
0
>>> summaries = ingest_records(model.sessions, model.tenant_id, [generate_hand("classic", 1)])
>>> page = model.games(GameFilter(ruleset="classic", with_findings=False), page_size=20)
>>> page.total, page.games[0].record_id, page.games[0].player_ids
(1, 'classic-1', ('zhang.min', 'chen.jing', 'li.wei', 'huang.li'))
>>> replay = model.replay(page.games[0].game_id)
>>> replay.differs, replay.audit.steps[-1].phase == audit_pb2.PHASE_SCORING, replay.result_text
(False, True, 'D+5')
>>> len(replay.message().report.steps) == len(replay.audit.steps)   # GetGame's full view
True
>>> from chaodipi.engine.presets import get_ruleset
>>> replay.game.reaudit(get_ruleset("shuangsheng")).ruleset           # nothing is stored
'shuangsheng'
>>> [(row.player_id, row.games) for row in model.player_stats(StatsFilter(("li.wei",)))]
[('li.wei', 1)]
>>> model.replay("no-such-game") is None
True
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Engine,
    Float,
    Select,
    SQLColumnExpression,
    and_,
    case,
    cast,
    exists,
    func,
    or_,
    select,
    union_all,
)
from sqlalchemy.orm import Session
from sqlmodel import col

from chaodipi.auditor import CODES, audit_game, describe_position, describe_result
from chaodipi.auditor.analysis import HandAnalysis as HandAnalysis  # the dashboard reads it here
from chaodipi.auditor.analysis import analyse_game, default_window
from chaodipi.auditor.reading import Violation, resolve_ruleset
from chaodipi.auditor.wire import SUITS_BY_PROTO, short_level_result
from chaodipi.engine.cards import KINDS, CardError, card_token, rank_index
from chaodipi.engine.order import trump_context
from chaodipi.engine.ruleset import Ruleset
from chaodipi.service.db import SessionFactory, make_engine, session_factory
from chaodipi.service.home import DEFAULT_TENANT
from chaodipi.service.keys import tenant_for_key
from chaodipi.service.limits import (
    MAX_PAGE_TOKEN,
    BadArgument,
    check_id,
    check_ids,
    id_problem,
)
from chaodipi.service.migrate import upgrade
from chaodipi.service.models import Finding, Game, GamePlayer, Match, Player, Tenant
from chaodipi.service.names import game_name, match_name, player_name
from chaodipi.service.results import as_utc
from chaodipi.service.store import ensure_tenant, find_tenant
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500

FINDING_CODES: tuple[str, ...] = tuple(CODES)
"""Every code a finding may carry (the auditor's catalogue), e.g. for a filter's choices."""

STALE_STEPS_NOTE = (
    "steps were recomputed by a newer auditor whose findings differ from the stored "
    "audit; their finding indexes are omitted (re-audit the game to compare)"
)
"""The note a replay message carries when its steps' findings are not the stored ones."""


class BadPageToken(BadArgument):
    """A page token that this service did not issue for these filters."""

    def __init__(self) -> None:
        super().__init__(
            "page_token",
            "not a next_page_token of this listing with these filters: "
            "start again with an empty token",
        )


@dataclass(frozen=True, slots=True)
class GameFilter:
    """Which games to select; ``None`` (or empty) matches everything.

    ``played_from`` is inclusive and ``played_to`` exclusive; both are compared in UTC (naive
    values are taken as UTC). ``with_findings`` selects games with (True) or without (False)
    any finding. ``player_id`` is the id records give a player; ``match_id`` selects the hands
    of a match by its id or its record id.
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

    def message(self) -> service_pb2.Game:
        """The game as ``ListGames`` answers it: without record and report."""
        game = service_pb2.Game(
            name=game_name(self.game_id),
            record_id=self.record_id,
            ruleset=self.ruleset,
            player_ids=self.player_ids,
            breaches=self.breaches,
            scoring_errors=self.scoring_errors,
            warnings=self.warnings,
            finding_codes=self.finding_codes,
            level_result=self.level_result,
            match=match_name(self.match_id) if self.match_id else "",
        )
        game.create_time.FromDatetime(as_utc(self.stored_at))
        if self.played_at is not None:
            game.play_time.FromDatetime(as_utc(self.played_at))
        if self.defenders_points is not None:
            game.defenders_points = self.defenders_points
        if self.hand_index is not None:
            game.hand_index = self.hand_index
        return game


@dataclass(frozen=True, slots=True)
class GamePage:
    """One page of games, the token of the next page (empty: last page) and the total count."""

    games: tuple[GameRow, ...]
    next_page_token: str
    total: int


@dataclass(frozen=True, slots=True)
class PlayerStatsPage:
    """One page of players' statistics (by player id), the next page's token (empty: last
    page) and the number of players selected."""

    players: tuple[PlayerStatsRow, ...]
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
    breaches_by_code: Mapping[str, int] = field(default_factory=dict)

    def message(self) -> service_pb2.PlayerStats:
        """The statistics as ``GetPlayerStats`` and ``ListPlayers`` answer them."""
        return service_pb2.PlayerStats(
            name=player_name(self.player_id),
            player_id=self.player_id,
            display_name=self.display_name,
            hands_played=self.games,
            hands_as_dealer_side=self.hands_as_dealer_side,
            hands_as_defenders=self.hands_as_defenders,
            tricks_won=self.tricks_won,
            points_taken=self.points_taken,
            throws_tried=self.throws_tried,
            throws_stood=self.throws_stood,
            throws_failed=self.throws_failed,
            breaches_by_code=self.breaches_by_code,
            kou_di_count=self.kou_di_count,
            kou_di_points=self.kou_di_points,
            levels_gained=self.levels_gained,
            levels_conceded=self.levels_conceded,
            win_rate=self.win_rate,
        )


@dataclass(frozen=True, slots=True)
class FindingCount:
    """How many findings of one code (and severity) the selected games hold."""

    code: str
    severity: audit_pb2.Severity.ValueType
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
class EndgameLosses:
    """What a player's own plays cost their side in the analysed ends of their latest hands."""

    hands: int  # hands analysed
    not_analysed: int  # hands the solver could not analyse (a breach, its budget)
    points_lost: int

    @property
    def per_hand(self) -> float | None:
        """Points lost per analysed hand (None when no hand was analysed)."""
        return self.points_lost / self.hands if self.hands else None


ENDGAME_HANDS = 20
"""Latest hands of a player ``ReadModel.endgame_losses`` analyses (a few CPU seconds)."""


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A stored match: its record (without hands), match-level report, and its hands' game ids."""

    match_id: str
    record: records_pb2.MatchRecord
    report: audit_pb2.MatchAuditReport
    hand_game_ids: tuple[str, ...]
    stored_at: datetime

    def message(self) -> service_pb2.Match:
        """The match as ``GetMatch`` answers it."""
        match = service_pb2.Match(
            name=match_name(self.match_id),
            record_id=self.record.match_id,
            record=self.record,
            report=self.report,
            hand_games=[game_name(g) for g in self.hand_game_ids],
        )
        match.create_time.FromDatetime(as_utc(self.stored_at))
        return match


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A stored game: its record as uploaded and the audit stored with it (no steps).

    ``played_at`` is the record's time read as UTC (None when absent or unreadable); a hand of
    a match has its ``match_id`` and 0-based ``hand_index``.
    """

    game_id: str
    content_hash: str
    stored_at: datetime
    played_at: datetime | None
    match_id: str | None
    hand_index: int | None
    record: records_pb2.GameRecord
    report: audit_pb2.AuditReport

    def message(self) -> service_pb2.Game:
        """The game as ``GetGame`` answers it in its basic view, without steps (a new
        message): the listing's fields worked out from the record and the stored audit."""
        report = self.report
        computed = report.computed
        game = service_pb2.Game(
            name=game_name(self.game_id),
            record_id=self.record.record_id,
            ruleset=report.ruleset or self.record.ruleset,
            player_ids=[p.id for p in self.record.players],
            breaches=report.breaches,
            scoring_errors=report.scoring_errors,
            warnings=report.warnings,
            finding_codes=sorted({f.code for f in report.findings}),
            level_result=short_level_result(computed.level_result),
            match=match_name(self.match_id) if self.match_id else "",
            content_hash=self.content_hash,
            record=self.record,
            report=report,
        )
        game.create_time.FromDatetime(as_utc(self.stored_at))
        if self.played_at is not None:
            game.play_time.FromDatetime(self.played_at)
        if report.HasField("computed"):
            game.defenders_points = computed.defenders_points
        if self.hand_index is not None:
            game.hand_index = self.hand_index
        return game

    def replay(self) -> GameReplay:
        """The game with its steps recomputed by the current auditor: one ``audit_game`` of the
        record with steps, then one pass over the steps and one over the findings."""
        # The stored audit of a match's hand carries its hand index in every finding's
        # position: auditing with the same index keeps the two comparable as they are.
        audit = audit_game(self.record, steps=True, hand_index=self.hand_index)
        computed = audit.computed
        return GameReplay(
            game=self,
            audit=audit,
            differs=list(audit.findings) != list(self.report.findings),
            trump_cards=_trump_cards(self.record, audit.steps),
            finding_places=tuple(_place_in_hand(f.position) for f in audit.findings),
            result_text=describe_result(computed.level_result)
            if computed.HasField("level_result")
            else "",
        )

    def analyse(self, window: int | None = None) -> HandAnalysis:
        """The endgame solver over the stored record's last ``window`` tricks (None: its
        ruleset's default window, 4 or 5 tricks): each play's cost; analysis, not findings:
        nothing is stored."""
        return analyse_game(self.record, window=window)

    @property
    def analysis_window(self) -> int:
        """The window ``analyse`` takes when none is asked for: its ruleset's, as audited."""
        return default_window(self.report.ruleset or self.record.ruleset)

    def reaudit(self, ruleset: Ruleset | None = None) -> audit_pb2.AuditReport:
        """The current auditor's report on the stored record under ``ruleset`` (None: the
        record's own); nothing is stored, the stored audit stays as it was."""
        return audit_game(self.record, ruleset=ruleset)


@dataclass(frozen=True, slots=True)
class GameReplay:
    """A stored game ready to step through.

    ``audit`` is the current auditor's report on the stored record, with its steps; the steps'
    ``finding_indexes`` point into ``audit.findings``. ``differs`` is True when those findings
    are not the stored ones (``game.report``: a newer auditor). ``trump_cards`` holds, for each
    step, the card tokens that are trump after it (empty before any declaration);
    ``finding_places`` says where each finding of ``audit`` stands within the hand
    (``trick 13, play 3, seat 2``); ``result_text`` is the computed level change (``D+2``,
    ``swap``; empty when there is none).
    """

    game: StoredGame
    audit: audit_pb2.AuditReport
    differs: bool
    trump_cards: tuple[frozenset[str], ...]
    finding_places: tuple[str, ...]
    result_text: str

    def message(self) -> service_pb2.Game:
        """The game as ``GetGame`` answers it in its full view: the stored report with the
        steps recomputed. Steps whose findings are not the stored ones (``differs``) would point at
        the wrong findings, so their ``finding_indexes`` are dropped and ``notes`` says so."""
        game = self.game.message()
        game.report.steps.extend(self.audit.steps)
        if self.differs:
            for step in game.report.steps:
                del step.finding_indexes[:]
            game.report.notes.append(STALE_STEPS_NOTE)
        return game


# -- the dashboard's answers: game search, player summaries and trends --------------------
# Kept apart from the answers above (the gRPC server's) so each side can grow on its own.


@dataclass(frozen=True, slots=True)
class GameSearch:
    """A page of a game search: ``filters`` as for ``ReadModel.games``, and ``text`` matched
    (case-insensitive, anywhere) against the record id, the game id and the players' ids and
    display names. ``page`` is 0-based."""

    filters: GameFilter = GameFilter()
    text: str = ""
    page: int = 0
    page_size: int = DEFAULT_PAGE_SIZE


@dataclass(frozen=True, slots=True)
class GameSearchPage:
    """One numbered page of a game search, with the total of games that match."""

    games: tuple[GameRow, ...]
    total: int
    page: int
    pages: int
    page_size: int


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """What a player asks of their statistics, over the games selected.

    Wins count only hands with a computed result (``*_decided``). ``team_points_defending``
    sums the defenders' total of every hand the player defended; ``own_points_defending`` the
    points of the tricks the player won there. ``match_levels`` nets levels gained minus
    conceded over the hands that belong to a match (``matches`` of them).
    """

    player_id: str
    display_name: str
    hands: int
    dealer_hands: int
    dealer_decided: int
    dealer_wins: int
    defender_hands: int
    defender_decided: int
    defender_wins: int
    team_points_defending: int
    own_points_defending: int
    throws_tried: int
    throws_stood: int
    kou_di_count: int
    kou_di_points: int
    levels_gained: int
    levels_conceded: int
    matches: int
    match_levels: int
    first_played: datetime | None
    last_played: datetime | None
    breaches_by_code: Mapping[str, int] = field(default_factory=dict)

    @property
    def breaches(self) -> int:
        """Breach findings charged to the player's seat."""
        return sum(self.breaches_by_code.values())


TREND_PERIODS = ("day", "week", "month", "match")
"""How ``ReadModel.player_trend`` groups hands: by the UTC day, week (from Monday) or month
they were played, or by the match they belong to."""


@dataclass(frozen=True, slots=True)
class TrendRow:
    """A player's hands in one period (or one match), summed as in ``PlayerSummary``.

    ``period`` is ``2026-10-13`` (a day, or the Monday that starts a week), ``2026-10`` (a
    month) or a match's record id; ``first_played`` orders the rows."""

    period: str
    first_played: datetime | None
    hands: int
    dealer_hands: int
    dealer_decided: int
    dealer_wins: int
    defender_hands: int
    defender_decided: int
    defender_wins: int
    team_points_defending: int
    throws_tried: int
    throws_stood: int
    kou_di_count: int
    kou_di_points: int
    levels_net: int
    breaches: int


@dataclass(frozen=True, slots=True)
class ReadModel:
    """One tenant's stored games on one database, read (never written).

    The gRPC server builds one per call from its sessions and the caller's tenant;
    ``for_tenant`` finds a tenant by name; ``open`` prepares a database the way
    ``chaodipi serve`` does and reads it for a tenant by name. Writes go through
    ``chaodipi.service.ingest.ingest_records`` with this model's ``sessions`` and
    ``tenant_id``.
    """

    sessions: SessionFactory
    tenant_id: int

    @classmethod
    def for_tenant(cls, sessions: SessionFactory, name: str) -> ReadModel | None:
        """The read model of the tenant called ``name``, or None when there is none (a read
        creates nothing)."""
        with sessions() as session:
            found = find_tenant(session, name)
        return None if found is None else cls(sessions, found)

    @classmethod
    def open(cls, url: str | None = None, *, tenant: str = DEFAULT_TENANT) -> ReadModel:
        """The read model of ``tenant`` on the database at ``url`` (default: the service's,
        ``$CHAODIPI_DATABASE_URL`` or the embedded SQLite file), after bringing the database
        to the latest schema and creating the tenant if it is new, as the server does on start.
        """
        engine = make_engine(url)
        upgrade(engine)
        sessions = session_factory(engine)
        return cls(sessions, ensure_tenant(sessions, tenant))

    @property
    def database_url(self) -> str:
        """The database read, as a URL for people (any password hidden)."""
        bind = self.sessions.kw["bind"]
        assert isinstance(bind, Engine)  # session_factory always binds an engine
        return bind.url.render_as_string(hide_password=True)

    def games(
        self,
        filters: GameFilter = GameFilter(),
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
        page_token: str = "",
    ) -> GamePage:
        """Games matching ``filters``, newest stored first, one page at a time, with the total.

        ``page_size`` is clamped to 1..``MAX_PAGE_SIZE`` (0: ``DEFAULT_PAGE_SIZE``); pass the
        returned ``next_page_token`` with the same filters to get the next page. Raises
        ``BadPageToken`` for any other token, and ``BadArgument`` for a filter no stored game
        could match (an id over 200 characters or with a control character). Two queries
        (count, page) and one for the page's seats.
        """
        _check_game_filter(filters)
        with self.sessions() as session:
            return _list_games(session, self.tenant_id, filters, page_size, page_token)

    def page_token_after(self, name: str, filters: GameFilter = GameFilter()) -> str | None:
        """A ``page_token`` for ``games(filters)`` that continues just after this game (in the
        order ``games()`` lists them), or None if the tenant has no such game: how a long read
        such as ``chaodipi dump --after GAME`` resumes."""
        game = self.game(name)
        if game is None:
            return None
        stamp = as_utc(game.stored_at).isoformat()
        return _encode_token("games", _fingerprint(filters), stamp, game.game_id)

    def game(self, name: str) -> StoredGame | None:
        """A stored game with its stored audit, by its game id or its record id, or None if the
        tenant has none of that name (nor for a name no game can have).

        A record id names the single hand that has it (record ids are unique per tenant among
        single hands), else the one hand of a match that has it; a record id shared by hands
        of several matches names none of them. At most three indexed lookups.
        """
        if id_problem(name):
            return None
        with self.sessions() as session:
            found = _find_game(session, self.tenant_id, name)
        if found is None:
            return None
        record, report = records_pb2.GameRecord(), audit_pb2.AuditReport()
        record.ParseFromString(found.record)
        report.ParseFromString(found.report)
        return StoredGame(
            game_id=found.id,
            content_hash=found.content_hash,
            stored_at=as_utc(found.stored_at),
            played_at=as_utc(found.played_at) if found.played_at is not None else None,
            match_id=found.match_id,
            hand_index=found.hand_index,
            record=record,
            report=report,
        )

    def replay(self, name: str) -> GameReplay | None:
        """A stored game (by game id or record id, as ``game``) with its steps recomputed by the
        current auditor (``StoredGame.replay``), or None if the tenant has no such game."""
        game = self.game(name)
        return None if game is None else game.replay()

    def match(self, name: str) -> MatchRow | None:
        """A stored match by its id or its record id (match id), with its match-level findings
        and its hands' game ids, or None."""
        if id_problem(name):
            return None
        with self.sessions() as session:
            found = _find_match(session, self.tenant_id, name)
            if found is None:
                return None
            hands = tuple(session.scalars(_hand_ids(found.id)))
        record, report = records_pb2.MatchRecord(), audit_pb2.MatchAuditReport()
        record.ParseFromString(found.record)
        report.ParseFromString(found.report)
        return MatchRow(found.id, record, report, hands, as_utc(found.stored_at))

    def players(self, *, search: str = "") -> list[PlayerRow]:
        """The tenant's players with their game counts, by player id; ``search`` keeps those
        whose id or display name holds it (case-insensitive)."""
        if "\x00" in search:
            return []  # no stored id or name holds NUL (service.limits)
        with self.sessions() as session:
            return _list_players(session, self.tenant_id, search)

    def player_stats(self, filters: StatsFilter = StatsFilter()) -> list[PlayerStatsRow]:
        """Statistics per player over the games selected, ordered by player id.

        One GROUP BY over the players' seats for the totals, one over their breach findings for
        ``breaches_by_code``. The win rate counts only hands with a computed result. Raises
        ``BadArgument`` for more than 1,000 player ids or an id no player can have.
        """
        _check_stats_filter(filters)
        with self.sessions() as session:
            return _player_stats(session, self.tenant_id, filters)

    def player_stats_page(
        self,
        filters: StatsFilter = StatsFilter(),
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
        page_token: str = "",
    ) -> PlayerStatsPage:
        """``player_stats`` one page at a time (by player id), with the number of players
        selected; paging as ``games`` pages (``BadPageToken`` for a token of other filters)."""
        _check_stats_filter(filters)
        size = _page_size(page_size)
        fingerprint = _fingerprint(filters)
        after = _decode_token(page_token, "players", fingerprint, 1)[0] if page_token else ""
        with self.sessions() as session:
            total = _count_players(session, self.tenant_id, filters)
            rows = _player_stats(session, self.tenant_id, filters, after=after, limit=size + 1)
        more = len(rows) > size
        rows = rows[:size]
        token = _encode_token("players", fingerprint, rows[-1].player_id) if more else ""
        return PlayerStatsPage(tuple(rows), token, total)

    def player(self, player_id: str, filters: StatsFilter = StatsFilter()) -> PlayerStatsRow | None:
        """One player's statistics over the games selected (``filters.player_ids`` is
        ignored): zeros when none of the player's games is selected, None for a player the
        tenant does not know."""
        check_id("player_id", player_id)
        only = StatsFilter((player_id,), filters.ruleset, filters.played_from, filters.played_to)
        _check_stats_filter(only)
        with self.sessions() as session:
            rows = _player_stats(session, self.tenant_id, only)
            if rows:
                return rows[0]
            name = session.scalar(
                select(col(Player.display_name)).where(
                    col(Player.tenant_id) == self.tenant_id, col(Player.player_key) == player_id
                )
            )
        if name is None:
            return None
        return PlayerStatsRow(player_id, name, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0)

    def player_hands(self, player_id: str, *, limit: int = 500) -> list[PlayerHandRow]:
        """The player's latest ``limit`` stored hands, oldest first, straight from the seat
        rows (empty for a player the tenant does not know)."""
        if id_problem(player_id):
            return []
        with self.sessions() as session:
            return _player_hands(session, self.tenant_id, player_id, limit)

    def endgame_losses(self, player_id: str, *, limit: int = ENDGAME_HANDS) -> EndgameLosses:
        """The endgame solver over the player's latest ``limit`` hands (``StoredGame.analyse``,
        each at its ruleset's window): the points the player's own plays cost their side.
        Computed on request, not stored: at most ``limit`` analyses, each within its budget."""
        analysed = skipped = lost = 0
        for row in self.player_hands(player_id, limit=limit):
            game = self.game(row.game_id)
            seats = [] if game is None else [p.id for p in game.record.players]
            if game is None or player_id not in seats:
                continue
            analysis = game.analyse()
            if not analysis.analysed:
                skipped += 1
                continue
            analysed += 1
            lost += analysis.lost_by_seat()[seats.index(player_id)]
        return EndgameLosses(analysed, skipped, lost)

    def finding_counts(self, filters: GameFilter = GameFilter()) -> list[FindingCount]:
        """Findings per code and severity in the selected games (most frequent first)."""
        _check_game_filter(filters)
        with self.sessions() as session:
            return _finding_counts(session, self.tenant_id, filters)

    # -- the dashboard's reads (queries in the last section of this module) ------------------

    @classmethod
    def for_api_key(cls, sessions: SessionFactory, key: str) -> ReadModel | None:
        """The read model of the tenant an active API key belongs to, or None for an unknown
        or revoked key (one indexed lookup of the key's SHA-256)."""
        tenant = tenant_for_key(sessions, key.strip())
        return None if tenant is None else cls(sessions, tenant)

    def tenant_name(self) -> str:
        """The name of the tenant read (``default`` for the service without API keys)."""
        with self.sessions() as session:
            return (
                session.scalar(select(col(Tenant.name)).where(col(Tenant.id) == self.tenant_id))
                or ""
            )

    def resolve_game(self, key: str) -> str | None:
        """The id of the game a person's ``key`` names (surrounding blanks ignored): the game
        ``game(key)`` reads (a game id or a record id), else the first hand of the match
        ``match(key)`` reads (a match id or its record id); None when the tenant has neither.
        The same lookups as those two: at most five indexed ones."""
        name = key.strip()
        if id_problem(name):
            return None
        with self.sessions() as session:
            game = _find_game(session, self.tenant_id, name)
            if game is not None:
                return game.id
            match = _find_match(session, self.tenant_id, name)
            return None if match is None else session.scalar(_hand_ids(match.id).limit(1))

    def search_games(self, search: GameSearch = GameSearch()) -> GameSearchPage:
        """A numbered page of the games that match ``search``, latest played first (games
        without a time last), with the total. Two queries and one for the page's seats; the
        page costs O(page x page_size) rows skipped by the database (OFFSET)."""
        with self.sessions() as session:
            return _search_games(session, self.tenant_id, search)

    def player_summaries(self, filters: StatsFilter = StatsFilter()) -> list[PlayerSummary]:
        """``PlayerSummary`` of every player (or of ``filters.player_ids``) over the games
        selected, by player id: one GROUP BY over the seats, one over the breach findings."""
        with self.sessions() as session:
            return _player_summaries(session, self.tenant_id, filters)

    def player_trend(
        self, player_id: str, period: str, filters: StatsFilter = StatsFilter()
    ) -> list[TrendRow]:
        """A player's hands summed per ``period`` (one of ``TREND_PERIODS``), oldest first:
        one GROUP BY over the player's seats and one over their breach findings, so the
        answer has one row per period however many hands there are. Hands without a time
        are left out of the day, week and month periods; hands outside a match out of
        ``match``."""
        if period not in TREND_PERIODS:
            raise ValueError(f"unknown period {period!r}; known: {', '.join(TREND_PERIODS)}")
        with self.sessions() as session:
            return _player_trend(session, self.tenant_id, player_id, period, filters)


# -- replays ---------------------------------------------------------------------------------


def _place_in_hand(position: audit_pb2.Position) -> str:
    """Where a finding stands within its hand: its position without the hand's index."""
    within = audit_pb2.Position()
    within.CopyFrom(position)
    within.ClearField("hand_index")
    return describe_position(within)


def _trump_cards(
    record: records_pb2.GameRecord, steps: Sequence[audit_pb2.StepState]
) -> tuple[frozenset[str], ...]:
    """The trump card tokens after each step (empty before trump is known, or for a record
    whose ruleset cannot be read). Each distinct trump is worked out once: O(steps + distinct
    trumps x 54 card kinds)."""
    ruleset = resolve_ruleset(record.ruleset, record.ruleset_overrides_json)
    known: dict[tuple[str, int], frozenset[str]] = {}
    out = []
    for step in steps:
        key = (step.trump.level, step.trump.suit)
        if key not in known:
            known[key] = _trumps(ruleset, *key)
        out.append(known[key])
    return tuple(out)


def _trumps(
    ruleset: Ruleset | Violation, level: str, suit: records_pb2.Suit.ValueType
) -> frozenset[str]:
    if not level or isinstance(ruleset, Violation):
        return frozenset()
    try:
        ctx = trump_context(ruleset, rank_index(level), SUITS_BY_PROTO.get(suit))
    except (CardError, ValueError):
        return frozenset()
    return frozenset(card_token(k) for k in range(KINDS) if ctx.is_trump[k])


# -- queries ---------------------------------------------------------------------------------


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


def _check_game_filter(filters: GameFilter) -> None:
    check_id("ruleset", filters.ruleset or "", required=False)
    check_id("player_id", filters.player_id or "", required=False)
    check_id("finding_code", filters.finding_code or "", required=False)
    check_id("match_id", filters.match_id or "", required=False)


def _check_stats_filter(filters: StatsFilter) -> None:
    check_ids("player_ids", filters.player_ids)
    check_id("ruleset", filters.ruleset or "", required=False)


def _named_match(record_id: str) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """The match with this record id: "record_id <> ''" spelled out matches the unique index's
    own condition, so the database searches it instead of every match of the tenant."""
    return col(Match.record_id) == record_id, col(Match.record_id) != ""


def _find_game(session: Session, tenant: int, name: str) -> Game | None:
    """The game called ``name``: its id, else the single hand with that record id, else the one
    hand of a match with it."""
    mine = col(Game.tenant_id) == tenant
    found = session.scalar(select(Game).where(mine, col(Game.id) == name))
    if found is None:
        single = col(Game.dedupe_scope) == "", col(Game.record_id) != ""  # the unique index's
        found = session.scalar(select(Game).where(mine, col(Game.record_id) == name, *single))
    if found is None:
        hands = session.scalars(
            select(Game)
            .where(mine, col(Game.record_id) == name, col(Game.match_id).is_not(None))
            .limit(2)
        ).all()
        found = hands[0] if len(hands) == 1 else None
    return found


def _find_match(session: Session, tenant: int, name: str) -> Match | None:
    """The match called ``name``: its id, else its record id (its own id first: a record id
    that happens to be another match's id loses)."""
    mine = col(Match.tenant_id) == tenant
    found = session.scalar(select(Match).where(mine, col(Match.id) == name))
    if found is None:
        found = session.scalar(select(Match).where(mine, *_named_match(name)))
    return found


def _hand_ids(match_id: str) -> Select[str]:
    """The game ids of a match's hands, in hand order."""
    return select(col(Game.id)).where(col(Game.match_id) == match_id).order_by(col(Game.hand_index))


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
        key, mine = filters.match_id, col(Match.tenant_id) == tenant
        named = union_all(
            select(col(Match.id)).where(mine, col(Match.id) == key),
            select(col(Match.id)).where(mine, *_named_match(key)),
        )
        conditions.append(col(Game.match_id).in_(named))
    return conditions


def _page_size(page_size: int) -> int:
    return min(max(page_size, 1), MAX_PAGE_SIZE) if page_size else DEFAULT_PAGE_SIZE


def _fingerprint(filters: GameFilter | StatsFilter) -> str:
    """A short hash of the filters, carried in a page token: a token is only good for them."""
    return hashlib.sha256(repr(filters).encode()).hexdigest()[:12]


def _encode_token(kind: str, fingerprint: str, *parts: str) -> str:
    raw = "\x1f".join((kind, fingerprint, *parts)).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_token(token: str, kind: str, fingerprint: str, count: int) -> list[str]:
    """The ``count`` parts of a token ``_encode_token(kind, fingerprint, ...)`` made;
    ``BadPageToken`` for anything else. Each part is then a valid id (no NUL, at most 200
    characters), so a query may use it as it is."""
    if len(token) > MAX_PAGE_TOKEN:
        raise BadPageToken()
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadPageToken() from None
    fields = raw.split("\x1f")
    parts = fields[2:]
    if fields[:2] != [kind, fingerprint] or len(parts) != count:
        raise BadPageToken()
    if any(id_problem(part) for part in parts):
        raise BadPageToken()
    return parts


def _game_rows(session: Session, games: Sequence[Game]) -> tuple[GameRow, ...]:
    """Listing rows of ``games`` (``games`` and ``search_games`` alike) with their seats'
    player ids: one query for all seats."""
    seats: dict[str, list[str]] = defaultdict(lambda: [""] * 4)
    if games:
        for game_id, seat, key in session.execute(
            select(col(GamePlayer.game_id), col(GamePlayer.seat), col(Player.player_key))
            .join(Player, col(Player.id) == col(GamePlayer.player_id))
            .where(col(GamePlayer.game_id).in_([g.id for g in games]))
        ):
            if 0 <= seat < 4:
                seats[game_id][seat] = key
    return tuple(
        GameRow(
            game_id=g.id,
            record_id=g.record_id,
            ruleset=g.ruleset,
            player_ids=tuple(seats[g.id]),
            played_at=as_utc(g.played_at) if g.played_at is not None else None,
            stored_at=as_utc(g.stored_at),
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
    )


def _list_games(
    session: Session, tenant: int, filters: GameFilter, page_size: int, page_token: str
) -> GamePage:
    size = _page_size(page_size)
    fingerprint = _fingerprint(filters)
    after: tuple[datetime, str] | None = None
    if page_token:
        stamp_text, last_id = _decode_token(page_token, "games", fingerprint, 2)
        try:
            after = (as_utc(datetime.fromisoformat(stamp_text)), last_id)
        except ValueError:
            raise BadPageToken() from None
    conditions = _game_conditions(tenant, filters)
    total = session.scalar(select(func.count()).select_from(Game).where(*conditions)) or 0
    query = select(Game).where(*conditions)
    if after is not None:
        stamp, last_id = after
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
    rows = _game_rows(session, games)
    token = ""
    if more:
        last = games[-1]
        token = _encode_token("games", fingerprint, as_utc(last.stored_at).isoformat(), last.id)
    return GamePage(games=rows, next_page_token=token, total=total)


def _stats_conditions(tenant: int, filters: StatsFilter) -> list[ColumnElement[bool]]:
    conditions = _common_conditions(tenant, filters.ruleset, filters.played_from, filters.played_to)
    if filters.player_ids:
        conditions.append(col(Player.player_key).in_(filters.player_ids))
    return conditions


def _count_players(session: Session, tenant: int, filters: StatsFilter) -> int:
    selected = (
        select(col(GamePlayer.player_id))
        .join(Player, col(Player.id) == col(GamePlayer.player_id))
        .join(Game, col(Game.id) == col(GamePlayer.game_id))
        .where(*_stats_conditions(tenant, filters))
        .distinct()
        .subquery()
    )
    return session.scalar(select(func.count()).select_from(selected)) or 0


def _player_stats(
    session: Session,
    tenant: int,
    filters: StatsFilter,
    *,
    after: str = "",
    limit: int | None = None,
) -> list[PlayerStatsRow]:
    """Statistics of the players selected, by player id: those after ``after`` (a player id),
    at most ``limit`` of them."""
    gp = GamePlayer
    conditions = _stats_conditions(tenant, filters)
    if after:
        conditions.append(col(Player.player_key) > after)

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
        .limit(limit)
    )
    rows = session.execute(query).all()
    if limit is not None:  # breaches of this page's players only
        conditions.append(col(Player.player_key).in_([row[0] for row in rows]))
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
        for row in rows
    ]


def _finding_counts(session: Session, tenant: int, filters: GameFilter) -> list[FindingCount]:
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
        FindingCount(code, audit_pb2.Severity.ValueType(severity), count, games)
        for code, severity, count, games in session.execute(query)
    ]


def _list_players(session: Session, tenant: int, search: str) -> list[PlayerRow]:
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


def _player_hands(session: Session, tenant: int, player_id: str, limit: int) -> list[PlayerHandRow]:
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


# -- the dashboard's queries ----------------------------------------------------------------


def _text_condition(text: str) -> ColumnElement[bool]:
    """Games whose record id, game id or a player's id or name holds ``text``."""
    needle = text.lower()
    return or_(
        func.lower(col(Game.record_id)).contains(needle, autoescape=True),
        col(Game.id) == text,
        exists().where(
            col(GamePlayer.game_id) == col(Game.id),
            col(GamePlayer.player_id) == col(Player.id),
            or_(
                func.lower(col(Player.player_key)).contains(needle, autoescape=True),
                func.lower(col(Player.display_name)).contains(needle, autoescape=True),
            ),
        ),
    )


def _search_games(session: Session, tenant: int, search: GameSearch) -> GameSearchPage:
    size = min(max(search.page_size, 1), MAX_PAGE_SIZE)
    conditions = _game_conditions(tenant, search.filters)
    if search.text.strip():
        conditions.append(_text_condition(search.text.strip()))
    total = session.scalar(select(func.count()).select_from(Game).where(*conditions)) or 0
    pages = max(1, -(-total // size))
    page = min(max(search.page, 0), pages - 1)
    query = (
        select(Game)
        .where(*conditions)
        .order_by(
            col(Game.played_at).desc().nulls_last(),
            col(Game.stored_at).desc(),
            col(Game.id).desc(),
        )
        .offset(page * size)
        .limit(size)
    )
    games = list(session.scalars(query))
    return GameSearchPage(_game_rows(session, games), total, page, pages, size)


def _seat_sums(gp: type[GamePlayer]) -> tuple[ColumnElement[int], ...]:
    """The per-seat sums ``PlayerSummary`` and ``TrendRow`` share, in their field order."""

    def total(expression: SQLColumnExpression[int]) -> ColumnElement[int]:
        return func.coalesce(func.sum(expression), 0)

    def where(condition: ColumnElement[bool], value: SQLColumnExpression[int] | int = 1) -> Any:
        return total(case((condition, value), else_=0))

    dealer = col(gp.side) == "dealer"
    defender = col(gp.side) == "defender"
    decided = col(gp.won).is_not(None)
    team_points: Any = col(Game.defenders_points)
    return (
        func.count(),
        where(dealer),
        where(and_(dealer, decided)),
        where(and_(dealer, col(gp.won) == 1)),
        where(defender),
        where(and_(defender, decided)),
        where(and_(defender, col(gp.won) == 1)),
        where(and_(defender, team_points.is_not(None)), team_points),
        total(col(gp.throws_tried)),
        total(col(gp.throws_stood)),
        total(col(gp.kou_di_count)),
        total(col(gp.kou_di_points)),
    )


def _breach_counts(
    session: Session, conditions: Sequence[ColumnElement[bool]], *group: Any
) -> list[Any]:
    """Breach findings charged to a player's seat, grouped by ``group``, with their count."""
    return list(
        session.execute(
            select(*group, func.count())
            .select_from(Finding)
            .join(Player, col(Player.id) == col(Finding.player_id))
            .join(Game, col(Game.id) == col(Finding.game_id))
            .where(col(Finding.severity) == audit_pb2.SEVERITY_BREACH, *conditions)
            .group_by(*group)
        )
    )


def _player_summaries(session: Session, tenant: int, filters: StatsFilter) -> list[PlayerSummary]:
    gp = GamePlayer
    conditions = _stats_conditions(tenant, filters)
    in_match = col(Game.match_id).is_not(None)
    query = (
        select(
            col(Player.player_key),
            col(Player.display_name),
            *_seat_sums(gp),
            func.coalesce(
                func.sum(case((and_(col(gp.side) == "defender"), col(gp.points_taken)), else_=0)),
                0,
            ),
            func.coalesce(func.sum(col(gp.levels_gained)), 0),
            func.coalesce(func.sum(col(gp.levels_conceded)), 0),
            func.count(func.distinct(col(Game.match_id))),
            func.coalesce(
                func.sum(
                    case((in_match, col(gp.levels_gained) - col(gp.levels_conceded)), else_=0)
                ),
                0,
            ),
            func.min(col(Game.played_at)),
            func.max(col(Game.played_at)),
        )
        .select_from(gp)
        .join(Player, col(Player.id) == col(gp.player_id))
        .join(Game, col(Game.id) == col(gp.game_id))
        .where(*conditions)
        .group_by(col(Player.id), col(Player.player_key), col(Player.display_name))
        .order_by(col(Player.player_key))
    )
    breaches: dict[str, dict[str, int]] = defaultdict(dict)
    for key, code, count in _breach_counts(
        session, conditions, col(Player.player_key), col(Finding.code)
    ):
        breaches[key][code] = count
    out = []
    for row in session.execute(query):
        key, name, *sums = row
        (hands, d_hands, d_decided, d_wins, a_hands, a_decided, a_wins, team_points) = sums[:8]
        (tried, stood, kou_count, kou_points, own, gained, conceded, matches, net) = sums[8:17]
        first, last = sums[17:19]
        out.append(
            PlayerSummary(
                player_id=key,
                display_name=name,
                hands=hands,
                dealer_hands=d_hands,
                dealer_decided=d_decided,
                dealer_wins=d_wins,
                defender_hands=a_hands,
                defender_decided=a_decided,
                defender_wins=a_wins,
                team_points_defending=team_points,
                own_points_defending=own,
                throws_tried=tried,
                throws_stood=stood,
                kou_di_count=kou_count,
                kou_di_points=kou_points,
                levels_gained=gained,
                levels_conceded=conceded,
                matches=matches,
                match_levels=net,
                first_played=_as_time(first),
                last_played=_as_time(last),
                breaches_by_code=breaches.get(key, {}),
            )
        )
    return out


def _as_time(value: datetime | None) -> datetime | None:
    """A MIN or MAX of a time column, in UTC."""
    return None if value is None else as_utc(value)


def _period(session: Session, period: str) -> Any:
    """The SQL expression that names a game's period; both dialects give the same text."""
    played = col(Game.played_at)
    if session.get_bind().dialect.name == "postgresql":
        if period == "week":
            return func.to_char(func.date_trunc("week", played), "YYYY-MM-DD")
        return func.to_char(played, "YYYY-MM" if period == "month" else "YYYY-MM-DD")
    if period == "week":
        # The Monday on or before the day: 'weekday 0' moves to the next Sunday (or stays).
        return func.date(played, "weekday 0", "-6 days")
    return func.strftime("%Y-%m" if period == "month" else "%Y-%m-%d", played)


def _player_trend(
    session: Session, tenant: int, player_id: str, period: str, filters: StatsFilter
) -> list[TrendRow]:
    gp = GamePlayer
    conditions = [*_stats_conditions(tenant, filters), col(Player.player_key) == player_id]
    keys: tuple[Any, ...]
    if period == "match":
        keys = (col(Match.id), col(Match.record_id))
        conditions.append(col(Game.match_id).is_not(None))
    else:
        keys = (_period(session, period),)
        conditions.append(col(Game.played_at).is_not(None))

    def grouped(*columns: Any) -> Any:
        query = (
            select(*keys, *columns)
            .select_from(gp)
            .join(Player, col(Player.id) == col(gp.player_id))
            .join(Game, col(Game.id) == col(gp.game_id))
        )
        if period == "match":
            query = query.join(Match, col(Match.id) == col(Game.match_id))
        return query

    breaches = {
        tuple(row[: len(keys)]): row[-1]
        for row in session.execute(
            grouped(func.count())
            .join(
                Finding,
                and_(col(Finding.game_id) == col(gp.game_id), col(Finding.seat) == col(gp.seat)),
            )
            .where(col(Finding.severity) == audit_pb2.SEVERITY_BREACH, *conditions)
            .group_by(*keys)
        )
    }
    query = (
        grouped(
            func.min(col(Game.played_at)),
            *_seat_sums(gp),
            func.coalesce(func.sum(col(gp.levels_gained) - col(gp.levels_conceded)), 0),
        )
        .where(*conditions)
        .group_by(*keys)
    )
    out = []
    for row in session.execute(query):
        key = tuple(row[: len(keys)])
        first, *sums = row[len(keys) :]
        hands, d_hands, d_decided, d_wins, a_hands, a_decided, a_wins = sums[:7]
        team_points, tried, stood, kou_count, kou_points, net = sums[7:13]
        out.append(
            TrendRow(
                period=str(key[-1]),
                first_played=_as_time(first),
                hands=hands,
                dealer_hands=d_hands,
                dealer_decided=d_decided,
                dealer_wins=d_wins,
                defender_hands=a_hands,
                defender_decided=a_decided,
                defender_wins=a_wins,
                team_points_defending=team_points,
                throws_tried=tried,
                throws_stood=stood,
                kou_di_count=kou_count,
                kou_di_points=kou_points,
                levels_net=net,
                breaches=breaches.get(key, 0),
            )
        )
    return sorted(out, key=lambda r: (r.first_played or datetime.min.replace(tzinfo=UTC), r.period))
