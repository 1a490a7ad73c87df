"""The read model: every read of stored games, on SQLite and PostgreSQL, for one tenant only."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from chaodipi.auditor import audit_game
from chaodipi.auditor.analysis import analyse_game
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.engine.presets import get_ruleset
from chaodipi.service.db import make_engine, session_factory
from chaodipi.service.ingest import ingest_records
from chaodipi.service.migrate import upgrade
from chaodipi.service.readmodel import (
    STALE_STEPS_NOTE,
    GameFilter,
    ReadModel,
    StatsFilter,
    StoredGame,
)
from chaodipi.service.store import ensure_tenant
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2


def with_breach(record: records_pb2.GameRecord) -> records_pb2.GameRecord:
    """The record with two seats' first cards in trick 3 swapped (cards not held, revokes)."""
    plays = record.tricks[2].plays
    plays[1].cards[0], plays[2].cards[0] = plays[2].cards[0], plays[1].cards[0]
    return record


@pytest.fixture
def model(database_url: str) -> Iterator[ReadModel]:
    """The read model of a new tenant of its own on the test database."""
    engine = make_engine(database_url)
    upgrade(engine)
    sessions = session_factory(engine)
    yield ReadModel(sessions, ensure_tenant(sessions, f"tenant-{secrets.token_hex(4)}"))
    engine.dispose()


def ident(name: str) -> str:
    """The id in a resource name (``games/abc`` -> ``abc``)."""
    return name.partition("/")[2]


def store(
    model: ReadModel, *records: records_pb2.GameRecord | records_pb2.MatchRecord
) -> list[service_pb2.RecordSummary]:
    summaries = ingest_records(model.sessions, model.tenant_id, records)
    assert all(s.status == s.STATUS_STORED for s in summaries), [s.error for s in summaries]
    return summaries


def test_another_tenant_reads_nothing_of_this_one(model: ReadModel) -> None:
    hand = with_breach(generate_hand("classic", 60))
    match = generate_match("classic", 61, max_hands=2)
    game, stored_match = store(model, hand, match)
    other = ReadModel(model.sessions, ensure_tenant(model.sessions, f"other-{model.tenant_id}"))
    assert other.games().total == 0 and other.games().games == ()
    assert other.players() == [] and other.player_stats() == [] and other.finding_counts() == []
    assert other.player_hands(hand.players[0].id) == []
    assert other.game(ident(game.game)) is None and other.replay(ident(game.game)) is None
    assert other.game(hand.record_id) is None
    assert other.match(ident(stored_match.match)) is None and other.match(match.match_id) is None
    assert model.games().total == 1 + len(match.hands)


def test_for_tenant_finds_a_tenant_by_name_and_creates_none(model: ReadModel) -> None:
    name = f"named-{secrets.token_hex(4)}"
    assert ReadModel.for_tenant(model.sessions, name) is None
    assert ReadModel.for_tenant(model.sessions, name) is None
    created = ensure_tenant(model.sessions, name)
    assert ReadModel.for_tenant(model.sessions, name) == ReadModel(model.sessions, created)


def test_games_filter_and_count_findings(model: ReadModel) -> None:
    clean, broken = generate_hand("classic", 62), with_breach(generate_hand("anhui", 63))
    wrong_score = generate_hand("classic", 64)
    wrong_score.claim.defenders_points += 5
    summaries = store(model, clean, broken, wrong_score)
    ids = [ident(s.game) for s in summaries]
    page = model.games()
    assert page.total == 3 and {g.game_id for g in page.games} == set(ids)
    assert [g.game_id for g in model.games(GameFilter(with_findings=False)).games] == [ids[0]]
    scoring = model.games(GameFilter(finding_code="SCORE_MISMATCH"))
    assert [g.game_id for g in scoring.games] == [ids[2]] and scoring.total == 1
    assert model.games(GameFilter(ruleset="anhui")).games[0].game_id == ids[1]
    first = model.games(page_size=2)
    rest = model.games(page_size=2, page_token=first.next_page_token)
    assert [g.game_id for g in first.games + rest.games] == [g.game_id for g in page.games]
    assert len(first.games) == 2 and rest.next_page_token == "" and rest.total == 3
    counts = {c.code: c for c in model.finding_counts()}
    assert counts["SCORE_MISMATCH"].count == 1
    assert counts["SCORE_MISMATCH"].severity == audit_pb2.SEVERITY_SCORING_ERROR
    stored = audit_game(broken).findings
    assert sum(c.count for c in counts.values()) == len(stored) + 1
    only_anhui = model.finding_counts(GameFilter(ruleset="anhui"))
    assert sum(c.count for c in only_anhui) == len(stored)


def test_replay_steps_point_at_the_stored_findings(model: ReadModel) -> None:
    hand = with_breach(generate_hand("classic", 65))
    (summary,) = store(model, hand)
    game = model.game(ident(summary.game))
    assert game is not None and game.record == hand and not game.report.steps
    assert game.played_at == datetime.fromisoformat(hand.played_at).astimezone(UTC)
    replay = model.replay(ident(summary.game))
    assert replay is not None and not replay.differs
    assert list(replay.audit.findings) == list(game.report.findings)
    assert len(replay.trump_cards) == len(replay.audit.steps) > 50
    assert not replay.trump_cards[0] and "BJ" in replay.trump_cards[-1]
    assert len(replay.finding_places) == len(replay.audit.findings)
    assert replay.finding_places[0].startswith("trick 3")
    message = replay.message()
    assert list(message.report.steps) == list(audit_game(hand, steps=True).steps)
    assert list(message.report.findings) == list(game.report.findings)
    assert not message.report.notes and message.name == summary.game
    assert not game.message().report.steps


def test_a_replay_whose_stored_audit_is_stale_drops_finding_indexes() -> None:
    hand = generate_hand("classic", 66)
    hand.claim.defenders_points += 5  # SCORE_MISMATCH now; the stored audit had another finding
    old = audit_pb2.AuditReport()
    old.findings.add(code="FOLLOW_REVOKE")
    now = datetime(2026, 10, 1, tzinfo=UTC)
    replay = StoredGame("g", "", now, None, None, None, hand, old).replay()
    assert replay.differs and any(s.finding_indexes for s in replay.audit.steps)
    message = replay.message()
    assert message.report.steps and not any(s.finding_indexes for s in message.report.steps)
    assert list(message.report.notes) == [STALE_STEPS_NOTE]
    assert list(message.report.findings) == list(old.findings)


def test_a_hand_of_a_match_replays_like_its_stored_audit(model: ReadModel) -> None:
    match = generate_match("classic", 67, max_hands=3)
    with_breach(match.hands[1])
    (summary,) = store(model, match)
    stored = model.match(ident(summary.match))
    assert stored is not None and stored.record.match_id == match.match_id
    assert model.match(match.match_id) == stored  # by its record id too
    hand_ids = tuple(ident(name) for name in summary.hand_games)
    assert stored.hand_game_ids == hand_ids
    for key in (ident(summary.match), match.match_id):
        hands = model.games(GameFilter(match_id=key)).games
        assert {(g.game_id, g.hand_index) for g in hands} == {
            (game_id, i) for i, game_id in enumerate(hand_ids)
        }
    replay = model.replay(hand_ids[1])
    assert replay is not None and replay.game.hand_index == 1 and not replay.differs
    assert replay.audit.findings and all(f.position.hand_index == 1 for f in replay.audit.findings)
    assert all(not place.startswith("hand") for place in replay.finding_places)


def test_a_game_is_named_by_its_id_or_its_record_id(model: ReadModel) -> None:
    hand = generate_hand("classic", 72)
    first, second = (
        generate_match("classic", 73, max_hands=2),
        generate_match("anhui", 74, max_hands=2),
    )
    second.hands[0].record_id = first.hands[0].record_id  # shared by hands of two matches
    single, stored_first, _ = store(model, hand, first, second)
    game = model.game(hand.record_id)
    assert game is not None and game.game_id == ident(single.game)
    assert model.replay(hand.record_id) is not None
    hand_of_match = model.game(first.hands[1].record_id)
    assert hand_of_match is not None and hand_of_match.match_id == ident(stored_first.match)
    assert model.game(first.hands[0].record_id) is None  # two hands have it: it names neither
    for name in ("", "a\x00b", "x" * 201, "no-such-record"):
        assert model.game(name) is None and model.match(name) is None


def test_reaudit_under_another_ruleset_stores_nothing(model: ReadModel) -> None:
    (summary,) = store(model, generate_hand("classic", 68))
    game = model.game(ident(summary.game))
    assert game is not None
    assert game.reaudit(get_ruleset("shuangsheng")).ruleset == "shuangsheng"
    assert game.reaudit().ruleset == "classic"
    again = model.game(ident(summary.game))
    assert again is not None and again.report == game.report


def test_endgame_losses_are_the_players_own_costs_over_their_hands(model: ReadModel) -> None:
    hands = [generate_hand("anhui", s) for s in (72, 73)]
    store(model, *hands)
    player = hands[0].players[1].id
    expected = analysed = 0
    for hand in hands:
        seats = [p.id for p in hand.players]
        if player in seats:
            analysis = analyse_game(hand)
            if analysis.analysed:
                analysed += 1
                expected += analysis.lost_by_seat()[seats.index(player)]
    losses = model.endgame_losses(player)
    assert (losses.hands, losses.points_lost) == (analysed, expected) and analysed
    assert model.endgame_losses("nobody").per_hand is None


def test_players_their_statistics_and_hands(model: ReadModel) -> None:
    hands = [generate_hand("classic", s) for s in (69, 70, 71)]
    store(model, *hands)
    seated = [p for h in hands for p in h.players]
    player = hands[0].players[0]
    rows = {r.player_id: r for r in model.players()}
    assert set(rows) == {p.id for p in seated}
    assert rows[player.id].games == sum(1 for p in seated if p.id == player.id)
    found = model.players(search=player.display_name.upper()[:4])
    assert player.id in {r.player_id for r in found} and len(found) <= len(rows)
    (stats,) = model.player_stats(StatsFilter((player.id,)))
    assert stats.games == rows[player.id].games and stats.display_name == player.display_name
    assert model.player_stats(StatsFilter(ruleset="anhui")) == []
    history = model.player_hands(player.id)
    assert len(history) == stats.games
    assert [h.played_at for h in history] == sorted(h.played_at for h in history if h.played_at)
