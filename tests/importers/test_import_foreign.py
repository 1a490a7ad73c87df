"""The foreign fixtures imported field by field, and audited under their own variants."""

from __future__ import annotations

from pathlib import Path

import pytest

from chaodipi.importers import load
from chaodipi.importers.botzone import card_token as botzone_card
from chaodipi.importers.eighty import card_token as eighty_card
from chaodipi.v1 import records_pb2

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _game(name: str) -> records_pb2.GameRecord:
    result = load(FIXTURES / name, strict=True)
    assert len(result.records) == 1
    return result.records[0].game


def test_card_ids() -> None:
    assert [eighty_card(i) for i in (0, 12, 13, 26, 39, 52, 53, 54 + 8)] == [
        "S2",
        "SA",
        "H2",
        "D2",
        "C2",
        "LJ",
        "BJ",
        "ST",
    ]
    assert [botzone_card(i) for i in (0, 1, 2, 3, 4, 36, 51, 54, 107)] == [
        "SA",
        "HA",
        "CA",
        "DA",
        "S2",
        "ST",
        "DK",
        "SA",
        "BJ",
    ]


def test_eighty_deal_25_tricks() -> None:
    game = _game("eighty/deal-25-tricks.json")
    assert (game.record_id, game.ruleset, game.ruleset_overrides_json) == (
        "fixture-eighty-6:1",
        "eighty",
        "",
    )
    ctx = game.context
    assert (ctx.team0_level, ctx.team1_level) == ("2", "2")
    assert (ctx.first_hand, ctx.hand_number) == (True, 1)
    assert not ctx.HasField("dealer")  # a first hand: the bidding decides
    assert game.draw_order.first_drawer == 1
    assert len(game.draw_order.deck) == 108
    assert game.draw_order.deck[:3] == ["C7", "D4", "LJ"]
    assert [(b.seat, b.kind, list(b.cards), b.drawn_count) for b in game.bids] == [
        (1, records_pb2.BID_KIND_DECLARE, ["H2"], 21),
        (0, records_pb2.BID_KIND_OVERCALL, ["C2", "C2"], 36),
    ]
    (exchange,) = game.kitty_exchanges
    assert exchange.seat == 0
    assert list(exchange.buried) == ["D3", "D3", "S4", "S4", "D5", "S6", "H6", "S8"]
    assert len(game.tricks) == 25
    throw = game.tricks[3]
    assert throw.leader == 1
    assert (list(throw.plays[0].attempted), list(throw.plays[0].cards)) == (["H9", "HA"], ["H9"])
    assert (throw.claim.winner, throw.claim.points) == (0, 10)
    claim = game.claim
    assert (claim.defenders_points, claim.kitty_bonus, claim.kitty_multiplier) == (125, 10, 2)
    assert claim.level_result == records_pb2.LevelResult(
        outcome=records_pb2.OUTCOME_DEFENDERS_UP,
        levels=0,  # gate 2 held the rise
        dealer_team_level_after="2",
        defender_team_level_after="2",
    )
    assert claim.trump == records_pb2.Trump(level="2", suit=records_pb2.SUIT_CLUBS)
    assert game.metadata["eighty.ruleset"] == "shanghai-80fen-0.7.14-v1"


def test_eighty_envelope_equals_raw() -> None:
    assert _game("eighty/deal-25-tricks.envelope.json") == _game("eighty/deal-25-tricks.json")


def test_eighty_deal_shapes() -> None:
    game = _game("eighty/deal-shapes.json")
    assert len(game.tricks) == 18
    throw = game.tricks[2].plays[0]
    assert (list(throw.attempted), list(throw.cards)) == (["ST", "ST", "SQ"], ["ST", "ST"])
    assert game.claim.kitty_multiplier == 4
    assert game.claim.defenders_points == 60
    assert game.claim.level_result == records_pb2.LevelResult(
        outcome=records_pb2.OUTCOME_DEALER_UP,
        levels=1,
        dealer_team_level_after="3",
        defender_team_level_after="2",
    )


def test_botzone_full_deal() -> None:
    game = _game("botzone/full-deal.json")
    assert (game.record_id, game.ruleset) == ("full-deal", "botzone")
    assert (game.context.team0_level, game.context.first_hand) == ("2", True)
    assert game.draw_order.first_drawer == 0
    assert len(game.draw_order.deck) == 108
    assert game.draw_order.deck[100:] == ["SJ", "H4", "LJ", "C5", "ST", "CJ", "H7", "C7"]
    assert [(b.seat, b.kind, list(b.cards), b.drawn_count) for b in game.bids] == [
        (1, records_pb2.BID_KIND_DECLARE, ["H2"], 42),
        (3, records_pb2.BID_KIND_OVERCALL, ["D2", "D2"], 80),
    ]
    assert game.kitty_exchanges[0].seat == 3
    assert len(game.tricks) == 25
    throw = game.tricks[3]
    assert (throw.leader, list(throw.plays[0].attempted), list(throw.plays[0].cards)) == (
        2,
        ["S7", "SA"],
        ["S7"],
    )
    assert (throw.claim.winner, throw.claim.penalty) == (1, 10)
    assert game.claim.defenders_points == 120
    assert game.claim.trump == records_pb2.Trump(level="2", suit=records_pb2.SUIT_DIAMONDS)
    assert game.metadata["botzone.seed"] == "4"


def test_botzone_platform_log_reads_the_same() -> None:
    platform = _game("botzone/full-deal.platform.json")
    platform.record_id = "full-deal"
    assert platform == _game("botzone/full-deal.json")


FOREIGN_DEALS = ("eighty/deal-25-tricks.json", "eighty/deal-shapes.json", "botzone/full-deal.json")


@pytest.mark.parametrize("name", FOREIGN_DEALS)
def test_fixture_audits_clean_under_its_variant(name: str) -> None:
    auditor = pytest.importorskip("chaodipi.auditor")
    report = auditor.audit_game(_game(name))
    assert not report.rejections
    assert [f"{f.code}: {f.message}" for f in report.findings] == []


def test_botzone_deal_nobody_called_takes_the_drawn_trump_and_banker_as_recorded() -> None:
    auditor = pytest.importorskip("chaodipi.auditor")
    game = _game("botzone/full-deal.json")
    del game.bids[:]  # the judger then draws ♦ and banker 3 from its seed, as recorded
    report = auditor.audit_game(game)
    assert [f.code for f in report.findings] == []
    assert (report.computed.dealer, report.computed.trump.suit) == (3, records_pb2.SUIT_DIAMONDS)
    game.claim.ClearField("trump")
    report = auditor.audit_game(game)
    assert [f.code for f in report.findings] == ["UNSUPPORTED"]


def test_eighty_deal_nobody_declared_is_no_trump_dealt_by_the_first_drawer() -> None:
    auditor = pytest.importorskip("chaodipi.auditor")
    game = _game("eighty/deal-25-tricks.json")
    del game.bids[:]
    computed = auditor.audit_game(game).computed
    assert (computed.dealer, computed.trump.suit) == (1, records_pb2.SUIT_NO_TRUMP)


@pytest.mark.parametrize(
    ("name", "ruleset", "codes"),
    [
        # classic forces the smallest beaten unit (♠Q), not the lowest-top one, and counts a
        # two-single throw as its largest unit (kitty x2, not 2 x 2 cards).
        (
            "eighty/deal-shapes.json",
            "classic",
            {"THROW_ENFORCED_WRONGLY", "KITTY_MISMATCH", "SCORE_MISMATCH", "LEVEL_MISMATCH"},
        ),
        # classic fines every card of the attempted throw: 20, where botzone fined 10.
        ("botzone/full-deal.json", "classic", {"PENALTY_MISMATCH"}),
    ],
)
def test_foreign_record_shows_what_differs_under_a_preset(
    name: str, ruleset: str, codes: set[str]
) -> None:
    auditor = pytest.importorskip("chaodipi.auditor")
    from chaodipi.engine.presets import get_ruleset

    report = auditor.audit_game(_game(name), ruleset=get_ruleset(ruleset))
    assert {f.code for f in report.findings} == codes


@pytest.mark.parametrize("ruleset", ["classic", "shuangsheng", "anhui", "changshu"])
def test_foreign_record_can_be_audited_under_our_rulesets(ruleset: str) -> None:
    auditor = pytest.importorskip("chaodipi.auditor")
    from chaodipi.engine.presets import get_ruleset

    report = auditor.audit_game(_game("botzone/full-deal.json"), ruleset=get_ruleset(ruleset))
    assert report.ruleset == ruleset
    if ruleset != "changshu":  # a 2-deck deal is rejected under the 3-deck rules
        assert not report.rejections
