"""The audit service end to end: a real server, real channels, SQLite and PostgreSQL."""

from __future__ import annotations

import secrets
from collections import Counter
from datetime import UTC, datetime

import grpc
import pytest
from google.protobuf import descriptor_pool
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from chaodipi.auditor import audit_game
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.client import AuditClient, field_violations
from chaodipi.service.keys import create_key
from chaodipi.service.readmodel import ReadModel
from chaodipi.service.results import seat_rows
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2
from tests.service.service_support import Service

STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE
REJECTED = service_pb2.RecordSummary.STATUS_REJECTED


def malformed(seed: int) -> records_pb2.GameRecord:
    """A hand whose deck holds a card token that does not exist."""
    hand = generate_hand("classic", seed)
    hand.draw_order.deck[3] = "ZZ"
    return hand


def with_breach(seed: int) -> records_pb2.GameRecord:
    """A hand where two seats' cards in trick 3 are swapped (cards not in hand, revokes)."""
    hand = generate_hand("classic", seed)
    plays = hand.tricks[2].plays
    plays[1].cards[0], plays[2].cards[0] = plays[2].cards[0], plays[1].cards[0]
    return hand


def test_upload_stores_each_record_once(client: AuditClient) -> None:
    hands = [generate_hand("classic", s) for s in (1, 2, 3)]
    first = client.upload(hands)
    assert [s.status for s in first] == [STORED] * 3
    assert len({s.game for s in first}) == 3 and all(s.game.startswith("games/") for s in first)
    again = client.upload([hands[1], hands[1]])
    assert [s.status for s in again] == [DUPLICATE, DUPLICATE]
    assert all(s.game == first[1].game for s in again)
    assert client.list_games().total_size == 3


def test_match_is_stored_as_hands(client: AuditClient) -> None:
    match = generate_match("anhui", 4, max_hands=3)
    (summary,) = client.upload([match])
    assert summary.status == STORED and summary.record_id == match.match_id
    assert len(summary.hand_games) == len(match.hands) and not summary.game
    game = client.get_game(summary.hand_games[1])
    assert game.record.record_id == match.hands[1].record_id and game.hand_index == 1
    assert [p.id for p in game.record.players] == [p.id for p in match.players]
    listed = client.list_games()
    assert {g.name for g in listed.games} == set(summary.hand_games)
    assert {g.match for g in listed.games} == {summary.match}
    (dup,) = client.upload([match])
    assert dup.status == DUPLICATE and list(dup.hand_games) == list(summary.hand_games)
    by_record_id = client.get_game(match.hands[1].record_id)  # a hand's own id names it too
    assert by_record_id.name == summary.hand_games[1]
    stored = client.get_match(match.match_id)  # by the match's own id, as uploaded
    assert stored.name == summary.match and list(stored.hand_games) == list(summary.hand_games)
    assert not stored.record.hands and stored.record.match_id == match.match_id
    of_match = client.list_games(match=summary.match)
    assert {g.name for g in of_match.games} == set(summary.hand_games)


def test_bad_record_in_stream_keeps_the_good_ones(client: AuditClient) -> None:
    summaries = client.upload(
        [generate_hand("classic", 5), malformed(6), generate_hand("classic", 7)]
    )
    assert [s.status for s in summaries] == [STORED, REJECTED, STORED]
    assert "draw_order.deck[3]" in summaries[1].error and not summaries[1].game
    assert client.list_games().total_size == 2


def test_stream_of_only_bad_records_answers_each(client: AuditClient) -> None:
    (summary,) = client.upload([malformed(8)])
    assert summary.status == REJECTED
    assert [v.field for v in summary.violations] == ["draw_order.deck[3]"]
    assert client.list_games().total_size == 0


def test_batch_upload_answers_like_a_stream(client: AuditClient) -> None:
    hand = generate_hand("classic", 14)
    summaries = client.batch_upload([hand, malformed(15), hand])
    assert [s.status for s in summaries] == [STORED, REJECTED, DUPLICATE]
    assert [s.index for s in summaries] == [0, 1, 2]
    assert summaries[2].game == summaries[0].game


def test_rule_breaking_record_is_stored_with_findings(client: AuditClient) -> None:
    wrong_score = generate_hand("classic", 9)
    wrong_score.claim.defenders_points += 5
    clean = generate_hand("classic", 10)
    bad, good = client.upload([wrong_score, clean])
    assert bad.status == STORED and list(bad.finding_codes) == ["SCORE_MISMATCH"]
    assert bad.scoring_errors == 1 and good.scoring_errors == 0
    found = client.list_games(finding_code="SCORE_MISMATCH")
    assert [g.name for g in found.games] == [bad.game]
    assert [g.name for g in client.list_games(with_findings=False).games] == [good.game]
    replay = client.get_game(bad.game)
    assert [f.code for f in replay.report.findings] == ["SCORE_MISMATCH"]


def test_audit_stores_nothing_and_rejects_malformed(client: AuditClient) -> None:
    report = client.audit(with_breach(11))
    assert isinstance(report, audit_pb2.AuditReport) and report.breaches > 0
    assert client.list_games().total_size == 0
    with pytest.raises(grpc.RpcError) as caught:
        client.audit(malformed(12))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in field_violations(caught.value)] == ["game.draw_order.deck[3]"]
    with pytest.raises(grpc.RpcError) as caught:
        client.audit(generate_hand("classic", 13), ruleset="no-such-rules")
    assert [f for f, _ in field_violations(caught.value)] == ["ruleset"]


def test_list_filters_and_pages(client: AuditClient) -> None:
    hands = [generate_hand("classic" if s % 2 else "changshu", s) for s in range(20, 27)]
    stored = client.upload(hands)
    seen: list[str] = []
    token = ""
    while True:
        page = client.list_games(page_size=3, page_token=token)
        assert page.total_size == 7 and len(page.games) <= 3
        seen += [g.name for g in page.games]
        token = page.next_page_token
        if not token:
            break
    assert sorted(seen) == sorted(s.game for s in stored)
    classic = client.list_games(ruleset="classic")
    assert classic.total_size == sum(1 for h in hands if h.ruleset == "classic")
    player = hands[0].players[2].id
    by_player = client.list_games(player_id=player)
    assert by_player.total_size == sum(1 for h in hands if player in {p.id for p in h.players})
    assert all(player in g.player_ids for g in by_player.games)
    times = sorted(datetime.fromisoformat(h.played_at).replace(tzinfo=UTC) for h in hands)
    window = client.list_games(played_from=times[2], played_to=times[5])
    assert window.total_size == 3
    with pytest.raises(grpc.RpcError) as caught:
        client.list_games(page_token="not-a-token")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_replay_with_steps(client: AuditClient) -> None:
    hand = with_breach(30)
    (summary,) = client.upload([hand])
    plain = client.get_game(summary.game)
    assert not plain.report.steps and plain.record == hand
    full = client.get_game(summary.game, steps=True)
    expected = audit_game(hand, steps=True)
    assert list(full.report.steps) == list(expected.steps)
    assert list(full.report.findings) == list(expected.findings)
    assert any(step.finding_indexes for step in full.report.steps)


def test_player_stats_are_the_sums_of_stored_results(client: AuditClient) -> None:
    match = generate_match("classic", 31, max_hands=4)
    hands = [with_breach(32), *[generate_hand("classic", s) for s in (33, 34)]]
    client.upload([match, *hands])
    played = [*match.hands, *hands]
    for hand in match.hands:
        if not hand.players:
            hand.players.extend(match.players)
    player = hands[0].players[0].id
    totals: Counter[str] = Counter()
    breaches: Counter[str] = Counter()
    for hand in played:
        seats = [s for s, p in enumerate(hand.players) if p.id == player]
        if not seats:
            continue
        report = audit_game(hand)
        result = seat_rows(report.computed)[seats[0]]
        totals.update(
            games=1,
            tricks=result["tricks_won"],
            points=result["points_taken"],
            throws=result["throws_tried"],
            gained=result["levels_gained"],
            won=result["won"] or 0,
            decided=result["won"] is not None,
            dealer=result["side"] == "dealer",
        )
        breaches.update(
            f.code
            for f in report.findings
            if f.severity == 1 and f.position.HasField("seat") and f.position.seat == seats[0]
        )
    stats = client.get_player_stats(player)
    assert stats.player_id == player and stats.display_name == hands[0].players[0].display_name
    assert stats.name == f"players/{player}"
    assert (
        stats.hands_played,
        stats.tricks_won,
        stats.points_taken,
        stats.throws_tried,
        stats.levels_gained,
        stats.hands_as_dealer_side,
    ) == (
        totals["games"],
        totals["tricks"],
        totals["points"],
        totals["throws"],
        totals["gained"],
        totals["dealer"],
    )
    assert stats.hands_as_dealer_side + stats.hands_as_defenders == stats.hands_played
    assert dict(stats.breaches_by_code) == dict(breaches) and breaches
    assert stats.win_rate == pytest.approx(totals["won"] / totals["decided"])
    everyone = list(client.players())
    assert sum(s.hands_played for s in everyone) == 4 * len(played)
    assert [s.player_id for s in client.players([player])] == [player]
    assert list(client.players(ruleset="anhui")) == []
    none_selected = client.get_player_stats(player, ruleset="anhui")
    assert none_selected.hands_played == 0 and none_selected.display_name == stats.display_name


def test_reaudit_leaves_the_stored_audit(client: AuditClient) -> None:
    (summary,) = client.upload([generate_hand("classic", 40)])
    report = client.reaudit_game(summary.game, ruleset="shuangsheng")
    assert report.ruleset == "shuangsheng"
    assert client.get_game(summary.game).report.ruleset == "classic"
    with pytest.raises(grpc.RpcError) as caught:
        client.reaudit_game(summary.game, overrides_json="[1]")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    # Sizes that make no game (issue 13): refused naming the field and its range.
    with pytest.raises(grpc.RpcError) as caught:
        client.reaudit_game(summary.game, overrides_json='{"hand_size": 1, "kitty_size": 158}')
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    (violation,) = getattr(caught.value, "violations", ())
    assert violation[0] == "ruleset_overrides_json"
    assert violation[1].startswith("ruleset.hand_size: 1 is not within 22-26")
    with pytest.raises(grpc.RpcError) as caught:
        client.reaudit_game("0123456789abcdef")
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_health_and_reflection(service: Service) -> None:
    with grpc.insecure_channel(service.target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = database.get_services()
        assert "chaodipi.v1.AuditService" in services
        assert "grpc.health.v1.Health" in services
        pool = descriptor_pool.DescriptorPool(database)
        described = pool.FindServiceByName("chaodipi.v1.AuditService")
        assert {m.name for m in described.methods} == {
            "UploadRecords",
            "BatchUploadRecords",
            "AuditRecord",
            "GetGame",
            "ListGames",
            "ReauditGame",
            "AnalyzeGame",
            "GetMatch",
            "GetPlayerStats",
            "ListPlayers",
        }
        assert pool.FindMessageTypeByName("chaodipi.v1.GameRecord").fields_by_name["tricks"]


def test_player_hands_are_the_stored_seat_rows(service: Service) -> None:
    tenant = f"tenant-{secrets.token_hex(4)}"
    match = generate_match("classic", 51, max_hands=4)
    with AuditClient(service.target, api_key=create_key(service.sessions, tenant)[1]) as client:
        client.upload([match])
    player = match.players[1].id
    model = ReadModel.for_tenant(service.sessions, tenant)
    assert model is not None
    rows = model.player_hands(player)
    assert model.player_hands("nobody") == []
    expected = []
    for hand in match.hands:
        hand.players.extend(match.players)
        computed = audit_game(hand).computed
        seat = seat_rows(computed)[1]
        result = computed.level_result
        after = (
            result.dealer_team_level_after
            if seat["side"] == "dealer"
            else result.defender_team_level_after
        )
        expected.append(
            (
                seat["side"],
                seat["points_taken"],
                seat["levels_gained"] - seat["levels_conceded"],
                after,
            )
        )
    got = [
        (r.side, r.points_taken, r.levels_gained - r.levels_conceded, r.level_after) for r in rows
    ]
    assert sorted(got) == sorted(expected)
    assert [r.played_at for r in rows] == sorted(r.played_at for r in rows if r.played_at)
