"""The read model's dashboard reads (sign-in by key, game lookup and search, player summaries
and trends), on SQLite and PostgreSQL, for one tenant only."""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Iterator
from datetime import date

import pytest

from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.service.db import make_engine, session_factory
from chaodipi.service.ingest import ingest_records
from chaodipi.service.keys import create_key, revoke_key
from chaodipi.service.migrate import upgrade
from chaodipi.service.readmodel import (
    TREND_PERIODS,
    GameFilter,
    GameSearch,
    ReadModel,
    StatsFilter,
)
from chaodipi.service.store import ensure_tenant
from chaodipi.v1 import audit_pb2, records_pb2

HANDS = [("classic", 70), ("anhui", 71), ("changshu", 72), ("shuangsheng", 73), ("classic", 74)]


def with_breach(record: records_pb2.GameRecord) -> records_pb2.GameRecord:
    """The record with two seats' first cards in trick 3 swapped (cards not held, revokes)."""
    plays = record.tricks[2].plays
    plays[1].cards[0], plays[2].cards[0] = plays[2].cards[0], plays[1].cards[0]
    return record


@pytest.fixture
def model(database_url: str) -> Iterator[ReadModel]:
    """A new tenant of its own holding five hands (one with breaches) and a 3-hand match."""
    engine = make_engine(database_url)
    upgrade(engine)
    sessions = session_factory(engine)
    model = ReadModel(sessions, ensure_tenant(sessions, f"dash-{secrets.token_hex(4)}"))
    records: list[records_pb2.GameRecord | records_pb2.MatchRecord] = [
        generate_hand(ruleset, seed) for ruleset, seed in HANDS
    ]
    with_breach(records[1])  # type: ignore[arg-type]
    records.append(generate_match("classic", 75, max_hands=3))
    summaries = ingest_records(sessions, model.tenant_id, records)
    assert all(s.status == s.STATUS_STORED for s in summaries)
    yield model
    engine.dispose()


def other_tenant(model: ReadModel) -> ReadModel:
    return ReadModel(model.sessions, ensure_tenant(model.sessions, f"other-{model.tenant_id}"))


def test_an_api_key_signs_in_to_its_tenant_only(model: ReadModel) -> None:
    name = model.tenant_name()
    key_id, key = create_key(model.sessions, name)
    signed = ReadModel.for_api_key(model.sessions, f"  {key}\n")
    assert signed == model and signed.tenant_name() == name
    assert ReadModel.for_api_key(model.sessions, key + "x") is None
    assert ReadModel.for_api_key(model.sessions, "") is None
    assert revoke_key(model.sessions, key_id)
    assert ReadModel.for_api_key(model.sessions, key) is None


def test_resolve_game_takes_a_game_id_or_a_record_id(model: ReadModel) -> None:
    """What ``game`` and ``match`` read, as one game id: the lookups are theirs."""
    rows = model.games(page_size=100).games
    hand = next(r for r in rows if r.record_id == "classic-70")
    assert model.resolve_game(hand.game_id) == hand.game_id
    assert model.resolve_game(f" {hand.record_id}\n") == hand.game_id
    match = model.match(next(r.match_id for r in rows if r.match_id))
    assert match is not None
    assert model.resolve_game(match.record.match_id) == match.hand_game_ids[0]
    assert model.resolve_game(match.match_id) == match.hand_game_ids[0]
    second = model.game(match.hand_game_ids[1])
    assert second is not None
    assert model.resolve_game(second.record.record_id) == second.game_id  # a hand of a match
    assert model.resolve_game("no-such-record") is None and model.resolve_game(" ") is None
    assert other_tenant(model).resolve_game(hand.game_id) is None
    assert other_tenant(model).resolve_game(hand.record_id) is None


def test_search_by_record_id_player_and_date_in_numbered_pages(model: ReadModel) -> None:
    everything = model.search_games(GameSearch(page_size=3))
    assert everything.total == 8 and everything.pages == 3 and len(everything.games) == 3
    pages = [model.search_games(GameSearch(page=n, page_size=3)).games for n in range(3)]
    seen = [g.game_id for page in pages for g in page]
    assert len(seen) == len(set(seen)) == 8
    played = [g.played_at for page in pages for g in page]
    assert played == sorted(played, reverse=True)  # latest played first
    last = model.search_games(GameSearch(page=99, page_size=3))
    assert last.page == 2 and len(last.games) == 2  # a page past the end is the last one

    record_id = pages[0][0].record_id
    found = model.search_games(GameSearch(text=record_id.upper()))
    assert [g.record_id for g in found.games] == [record_id]
    player = pages[0][0].player_ids[0]
    by_player = model.search_games(GameSearch(text=player))
    assert by_player.total == model.games(GameFilter(player_id=player)).total > 0
    assert model.search_games(GameSearch(text="%")).total == 0  # no wildcard

    day = pages[0][0].played_at
    assert day is not None
    start = day.replace(hour=0, minute=0, second=0, microsecond=0)
    dated = model.search_games(GameSearch(GameFilter(played_from=start, played_to=day)))
    assert all(g.played_at is not None and start <= g.played_at < day for g in dated.games)
    flagged = model.search_games(GameSearch(GameFilter(with_findings=True), text=""))
    assert flagged.total >= 1 and all(g.breaches for g in flagged.games)
    assert other_tenant(model).search_games(GameSearch(text=record_id)).total == 0


def test_player_summaries_add_up_the_stored_hands(model: ReadModel) -> None:
    summaries = {s.player_id: s for s in model.player_summaries()}
    assert summaries and other_tenant(model).player_summaries() == []
    for player_id, summary in summaries.items():
        stats = model.player_stats(StatsFilter((player_id,)))[0]
        hands = model.player_hands(player_id)
        assert summary.hands == stats.games == len(hands)
        assert summary.dealer_hands == stats.hands_as_dealer_side
        assert summary.defender_hands == stats.hands_as_defenders
        assert summary.dealer_hands == sum(h.side == "dealer" for h in hands)
        assert summary.throws_tried == stats.throws_tried
        assert summary.throws_stood == stats.throws_stood
        assert (summary.kou_di_count, summary.kou_di_points) == (
            stats.kou_di_count,
            stats.kou_di_points,
        )
        assert summary.levels_gained - summary.levels_conceded == sum(
            h.levels_gained - h.levels_conceded for h in hands
        )
        assert summary.breaches_by_code == stats.breaches_by_code
        assert summary.dealer_wins <= summary.dealer_decided <= summary.dealer_hands
        assert summary.defender_wins <= summary.defender_decided <= summary.defender_hands
        assert summary.own_points_defending == sum(
            h.points_taken for h in hands if h.side == "defender"
        )
        team = 0
        for h in hands:
            if h.side == "defender":
                game = model.game(h.game_id)
                assert game is not None
                team += game.report.computed.defenders_points
        assert summary.team_points_defending == team
    match_players = {p.id for p in generate_match("classic", 75, max_hands=3).players}
    assert all(summaries[p].matches == 1 for p in match_players)
    breached = model.player_summaries(StatsFilter(ruleset="anhui"))
    assert sum(s.breaches for s in breached) == sum(
        1
        for row in model.games(GameFilter(ruleset="anhui")).games
        for f in (model.game(row.game_id).report.findings)  # type: ignore[union-attr]
        if f.severity == audit_pb2.SEVERITY_BREACH and f.position.HasField("seat")
    )


@pytest.mark.parametrize("period", TREND_PERIODS)
def test_a_trend_sums_to_the_summary(model: ReadModel, period: str) -> None:
    summaries = model.player_summaries()
    for summary in summaries:
        rows = model.player_trend(summary.player_id, period)
        assert [r.first_played for r in rows] == sorted(r.first_played for r in rows)  # type: ignore[type-var]
        assert len({r.period for r in rows}) == len(rows)
        if period == "match":
            assert sum(r.hands for r in rows) == sum(
                1 for g in model.games(GameFilter(player_id=summary.player_id)).games if g.match_id
            )
            assert sum(r.levels_net for r in rows) == summary.match_levels
            continue
        assert sum(r.hands for r in rows) == summary.hands  # every generated hand has a time
        assert sum(r.dealer_wins for r in rows) == summary.dealer_wins
        assert sum(r.defender_decided for r in rows) == summary.defender_decided
        assert sum(r.team_points_defending for r in rows) == summary.team_points_defending
        assert sum(r.kou_di_points for r in rows) == summary.kou_di_points
        assert sum(r.levels_net for r in rows) == summary.levels_gained - summary.levels_conceded
        assert sum(r.breaches for r in rows) == summary.breaches
        for row in rows:
            first = row.first_played
            assert first is not None
            if period == "week":
                monday = date.fromisoformat(row.period)
                assert monday.weekday() == 0 and 0 <= (first.date() - monday).days < 7
            else:
                assert first.date().isoformat().startswith(row.period)
    assert other_tenant(model).player_trend(summaries[0].player_id, period) == []


def test_a_trend_period_must_be_known(model: ReadModel) -> None:
    with pytest.raises(ValueError, match="known: day, week, month, match"):
        model.player_trend("anyone", "year")


def test_week_and_month_buckets_agree_on_both_databases(model: ReadModel) -> None:
    """The same hands give the same periods (the dialects' date functions differ)."""
    player = model.player_summaries()[0].player_id
    hands = model.player_hands(player)
    weeks = Counter(
        date.fromordinal(h.played_at.date().toordinal() - h.played_at.weekday()).isoformat()
        for h in hands
        if h.played_at
    )
    months = Counter(f"{h.played_at:%Y-%m}" for h in hands if h.played_at)
    assert {r.period: r.hands for r in model.player_trend(player, "week")} == weeks
    assert {r.period: r.hands for r in model.player_trend(player, "month")} == months
