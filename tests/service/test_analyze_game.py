"""``AnalyzeGame``: a stored game's end solved by the audit workers, on SQLite and PostgreSQL;
analysis, not findings: the stored audit is untouched."""

from __future__ import annotations

import grpc
import pytest

from chaodipi.auditor.analysis import analyse_game, default_window
from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient, field_violations


def test_analyze_game_gives_each_play_its_cost_as_the_auditor_does(client: AuditClient) -> None:
    hand = generate_hand("classic", 13)
    (summary,) = client.upload([hand])
    stored = client.get_game(summary.game).report
    response = client.analyze_game(summary.game, window=2)
    assert response.name == summary.game and response.analysed, response.reason
    local = analyse_game(hand, window=2)
    assert [(p.seat, tuple(p.cards), p.cost) for p in response.plays] == [
        (p.seat, p.cards, p.cost) for p in local.plays
    ]
    assert (response.perfect, response.actual) == (local.perfect, local.actual)
    assert list(response.lost_by_seat) == local.lost_by_seat()
    # By the uploader's record id too; and nothing stored changed.
    assert client.analyze_game(hand.record_id, window=2).plays == response.plays
    assert client.get_game(summary.game).report == stored


@pytest.mark.parametrize("ruleset", ["changshu", "anhui"])
def test_analyze_game_default_window_is_the_rulesets(client: AuditClient, ruleset: str) -> None:
    (summary,) = client.upload([generate_hand(ruleset, 2)])
    response = client.analyze_game(summary.game)
    assert response.window == default_window(ruleset)


def test_analyze_game_with_a_breach_in_the_window_answers_not_analysed(
    client: AuditClient,
) -> None:
    hand = generate_hand("classic", 21)
    last = hand.tricks[-1].plays
    last[1].cards[0], last[2].cards[0] = last[2].cards[0], last[1].cards[0]
    (summary,) = client.upload([hand])
    response = client.analyze_game(summary.game, window=2)
    assert not response.analysed and "breach" in response.reason and not response.plays


@pytest.mark.parametrize("window", [-1, 14])
def test_analyze_game_window_out_of_range_is_invalid_argument(
    client: AuditClient, window: int
) -> None:
    (summary,) = client.upload([generate_hand("classic", 5)])
    with pytest.raises(grpc.RpcError) as caught:
        client.analyze_game(summary.game, window=window)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [name for name, _ in field_violations(caught.value)] == ["window"]


def test_analyze_game_of_no_stored_game_is_not_found(client: AuditClient) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        client.analyze_game("0123456789abcdef")
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
