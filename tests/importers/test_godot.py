"""shengji-godot game logs: the real log (docs/game-logs/standard_log.json of
qian-loong/shengji-godot), its figures, the rule_config options and bad logs (issue 14)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chaodipi.auditor import audit_game
from chaodipi.auditor.reading import INCOMPLETE_KEY, UNSUPPORTED_KEY
from chaodipi.importers import detect_format, load, load_bytes
from chaodipi.importers.godot import card_token
from chaodipi.importers.problems import RecordError
from chaodipi.v1 import audit_pb2, records_pb2

FIXTURES = Path(__file__).parent.parent / "fixtures" / "godot"
REAL = FIXTURES / "standard_log.json"
COMPACT = json.loads((FIXTURES / "standard_log.compact.json").read_text())


def _games(data: Any) -> list[records_pb2.GameRecord]:
    result = load_bytes(json.dumps(data, ensure_ascii=False).encode(), "g.json", "godot")
    assert result.errors == [], result.errors
    return [r.game for r in result.records]


def _codes(report: audit_pb2.AuditReport) -> list[str]:
    return [f.code for f in report.findings]


def _log(**config: Any) -> dict[str, Any]:
    data = copy.deepcopy(COMPACT)
    data["rule_config"].update(config)
    return data


def test_card_strings() -> None:
    assert [card_token(t, "$") for t in ("♠10", "♥2", "♦A", "♣J", "BlackJoker", "RedJoker")] == [
        "ST",
        "H2",
        "DA",
        "CJ",
        "LJ",  # the black joker is the small one (小王)
        "BJ",
    ]
    with pytest.raises(RecordError, match="found '♠1'"):
        card_token("♠1", "$")


# --- the real log -------------------------------------------------------------------------------


def test_real_log_is_detected_and_read_round_by_round() -> None:
    assert detect_format("standard_log.json", REAL.read_bytes()) == "godot"
    result = load(REAL)
    assert result.errors == []
    games = [r.game for r in result.records]
    assert [g.record_id for g in games] == [f"standard_log:round{n}" for n in (1, 2, 3, 4)]
    assert {g.ruleset for g in games} == {"godot"}
    assert {g.ruleset_overrides_json for g in games} == {""}  # the terminal host's config
    # Pretty and compact (no hand snapshots) read the same.
    compact = _games(COMPACT)
    for game in compact:
        game.record_id = game.record_id.replace("g:", "standard_log:")
    assert compact == games


def test_real_log_records_hold_the_logs_figures() -> None:
    games = [r.game for r in load(REAL).records]
    # A.2.1 / A.2.4: tricks, trick points, the attackers' (our defenders') total.
    assert [len(g.tricks) for g in games] == [23, 24, 23, 0]
    assert [sum(t.claim.points for t in g.tricks) for g in games[:3]] == [200, 200, 200]
    assert [g.claim.defenders_points for g in games[:3]] == [115, 130, 10]
    assert [(g.context.team0_level, g.context.team1_level) for g in games] == [
        ("2", "2"),
        ("2", "2"),
        ("3", "2"),
        ("5", "2"),
    ]
    assert [(g.context.dealer, g.context.first_hand) for g in games] == [
        (1, True),
        (3, True),
        (2, True),
        (3, True),
    ]
    assert [[(b.seat, list(b.cards)) for b in g.bids] for g in games] == [
        [(1, ["LJ", "C2"])],  # BlackJoker + ♣2 (v1 type 3)
        [(3, ["LJ", "S2"])],
        [(2, ["BJ", "BJ"])],  # 公主: two RedJokers (v1 type 4)
        [(3, ["BJ", "H2"])],  # at team 1's level 2, though team 0 is on 5
    ]
    assert [g.claim.trump.suit for g in games] == [
        records_pb2.SUIT_CLUBS,
        records_pb2.SUIT_SPADES,
        records_pb2.SUIT_NO_TRUMP,
        records_pb2.SUIT_HEARTS,
    ]
    results = [g.claim.level_result for g in games[:3]]
    assert results == [
        records_pb2.LevelResult(
            outcome=records_pb2.OUTCOME_SWAP,
            dealer_team_level_after="2",
            defender_team_level_after="2",
        ),
        records_pb2.LevelResult(
            outcome=records_pb2.OUTCOME_DEFENDERS_UP,
            levels=1,
            dealer_team_level_after="2",
            defender_team_level_after="3",
        ),
        records_pb2.LevelResult(
            outcome=records_pb2.OUTCOME_DEALER_UP,
            levels=2,
            dealer_team_level_after="5",
            defender_team_level_after="2",
        ),
    ]
    assert [g.claim.next_dealer for g in games[:3]] == [2, 0, 2]  # new_dealer -1: the same seat
    assert games[3].metadata[INCOMPLETE_KEY] == "round 4 was in progress when the log was written"
    assert [(p.id, p.display_name) for p in games[0].players][:2] == [
        ("godot:seat0", "South (seat 0)"),
        ("godot:seat1", "East (seat 1)"),
    ]


def test_real_log_audits_clean_with_every_figure_matching() -> None:
    games = [r.game for r in load(REAL).records]
    for game in games[:3]:
        report = audit_game(game)
        assert _codes(report) == [], [(f.code, f.message) for f in report.findings]
        computed = report.computed
        # Every figure computed, not only compared: winners, points, total, levels, dealer.
        assert [t.winner for t in computed.tricks] == [t.claim.winner for t in game.tricks]
        assert [t.points for t in computed.tricks] == [t.claim.points for t in game.tricks]
        assert computed.defenders_points == game.claim.defenders_points
        assert computed.level_result == game.claim.level_result
        assert computed.next_dealer == game.claim.next_dealer
        assert computed.dealer == game.context.dealer
    report = audit_game(games[3])
    assert _codes(report) == ["RECORD_INCOMPLETE"]
    assert report.findings[0].message.startswith("round 4 was in progress")


def test_real_log_through_the_cli_is_read_not_rejected() -> None:
    from chaodipi.cli.main import app

    result = CliRunner().invoke(app, ["audit", str(REAL)])
    assert result.exit_code == 1  # round 4's RECORD_INCOMPLETE warning, nothing else
    assert result.output.count("(godot): clean") == 3


# --- what the audit finds in a changed log ----------------------------------------------------


def _round(data: dict[str, Any], n: int) -> dict[str, Any]:
    rounds: list[dict[str, Any]] = data["rounds"]
    return rounds[n - 1]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda d: _round(d, 1)["tricks"][0].update(winner=1), "TRICK_WINNER_MISMATCH"),
        (lambda d: _round(d, 1)["tricks"][0].update(trick_score=10), "TRICK_POINTS_MISMATCH"),
        (lambda d: _round(d, 2)["settlement"].update(final_score=135), "SCORE_MISMATCH"),
        (lambda d: _round(d, 3)["settlement"].update(bottom_multiplier=2), "KITTY_MISMATCH"),
        (lambda d: _round(d, 4).update(team_ranks=[4, 2]), "LEVEL_MISMATCH"),  # round 3: 3 to 5
        (lambda d: _round(d, 1)["settlement"].update(new_dealer=3), "DEALER_MISMATCH"),
        (lambda d: _round(d, 1).update(trump_suit=1), "TRUMP_MISMATCH"),
        (lambda d: _round(d, 2)["bid"].update(suit=1), "BID_ILLEGAL"),  # seat 3 has no ♥2
    ],
)
def test_changed_log_is_found(change: Any, code: str) -> None:
    data = copy.deepcopy(COMPACT)
    change(data)
    found = {c for g in _games(data) for c in _codes(audit_game(g))}
    assert code in found


def test_a_lead_of_two_units_is_not_a_throw_in_godot() -> None:
    # Round 1, trick 3: seat 0 led ♠7♠7; with ♠A added it is a pair and a single.
    data = copy.deepcopy(COMPACT)
    trick = _round(data, 1)["tricks"][2]
    assert trick["plays"][0]["cards"] == ["♠7", "♠7"]
    trick["plays"][0]["cards"] = ["♠7", "♠7", "♠A"]
    report = audit_game(_games(data)[0])
    assert "THROW_NOT_ALLOWED" in _codes(report)
    assert "THROW_NOT_ENFORCED" not in _codes(report)


# --- schema versions and rule_config --------------------------------------------------------


def test_version_2_numbers_the_bid_types_anew() -> None:
    data = copy.deepcopy(COMPACT)
    data["version"] = 2
    _round(data, 3)["bid"]["type"] = 5  # PAIR_JOKER is 5 in v2 (4 in v1)
    games = _games(data)
    assert [list(b.cards) for b in games[2].bids] == [["BJ", "BJ"]]
    assert all(_codes(audit_game(g)) in ([], ["RECORD_INCOMPLETE"]) for g in games)
    _round(data, 1)["bid"]["type"] = 4  # JOKER_PAIR_RANK: BlackJoker with ♣2 ♣2
    assert [list(b.cards) for b in _games(data)[0].bids] == [["LJ", "C2", "C2"]]
    data["version"] = 1
    result = load_bytes(json.dumps(data).encode(), "g.json", "godot")
    assert "expected a version 1 bid type 1-4, found 5" in str(result.errors[0])


def test_mode_a_bids_without_a_joker() -> None:
    data = _log(bid_requires_joker=False)
    for n, kind in ((1, 1), (2, 1), (3, 4), (4, 2)):  # a level card, a pair, 公主
        _round(data, n)["bid"]["type"] = kind
    games = _games(data)
    assert json.loads(games[0].ruleset_overrides_json)["bidding"]["declare_bids"] == [
        "1:*",
        "2:*",
        "2:LJ",
        "2:BJ",
    ]
    assert [list(g.bids[0].cards) for g in games] == [["C2"], ["S2"], ["BJ", "BJ"], ["H2", "H2"]]
    reports = [audit_game(g) for g in games]
    assert [_codes(r) for r in reports[:3]] == [[], [], []]
    assert "BID_ILLEGAL" in _codes(reports[3])  # seat 3 holds one ♥2


def test_colour_rule_off_and_other_must_play_ranks_are_overrides() -> None:
    games = _games(_log(trump_joker_color_match=False, no_skip_ranks=[10, 5]))
    assert json.loads(games[0].ruleset_overrides_json) == {
        "bidding": {"joker_colour_match": False},
        "level": {"must_play": ["5", "T"]},
    }
    assert all(_codes(audit_game(g)) in ([], ["RECORD_INCOMPLETE"]) for g in games)
    off = _games(_log(no_skip_enabled=False))[0]
    assert json.loads(off.ruleset_overrides_json) == {"level": {"must_play": []}}


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"fixed_trump_suit": 1}, "rule_config fixed_trump_suit = 1"),
        ({"upgrade_threshold": 100}, "rule_config upgrade_table, upgrade_threshold: a table"),
        ({"trump_mode": 3}, "rule_config trump_mode = 3"),
        ({"joker_always_trump": False}, "rule_config joker_always_trump = false"),
        ({"strict_follow_structure": False}, "rule_config strict_follow_structure = false"),
        ({"shuffle_mode": 1}, "rule_config shuffle_mode: unknown to the variant"),
    ],
)
def test_unmodelled_rule_config_is_unsupported_naming_it(
    config: dict[str, Any], named: str
) -> None:
    for game in _games(_log(**config)):
        assert game.metadata[UNSUPPORTED_KEY].startswith(named)
        report = audit_game(game)
        assert _codes(report) == ["UNSUPPORTED"]
        assert report.findings[0].message.startswith(named)


def test_r_level_godot_upgrade_table_and_step_are_level_bands() -> None:
    # The competitive preset's table (rule_config.gd), and quick's step of 2.
    table = [[0, 0, 3], [1, 0, 2], [50, 0, 1], [100, 1, 0], [150, 1, 1], [200, 1, 2], [250, 1, 3]]
    game = _games(_log(upgrade_threshold=100, upgrade_table=table, upgrade_step=2))[0]
    bands = json.loads(game.ruleset_overrides_json)["level"]["bands"]
    assert [(b["lo"], b["hi"], b["outcome"], b["levels"]) for b in bands] == [
        (0, 0, "dealer_up", 6),
        (5, 45, "dealer_up", 4),
        (50, 95, "dealer_up", 2),
        (100, 145, "swap", 0),
        (150, 195, "defenders_up", 2),
        (200, 245, "defenders_up", 4),
        (250, None, "defenders_up", 6),
    ]
    assert UNSUPPORTED_KEY not in game.metadata


def test_a_counter_bid_is_unsupported() -> None:
    data = copy.deepcopy(COMPACT)
    data["version"] = 2
    _round(data, 3)["bid"]["type"] = 5
    _round(data, 2)["counter_bid_history"] = [{"seat": 0, "type": 5}]
    games = _games(data)
    assert _codes(audit_game(games[1])) == ["UNSUPPORTED"]
    assert UNSUPPORTED_KEY not in games[0].metadata


# --- bad logs -----------------------------------------------------------------------------------


def _errors(data: Any) -> list[str]:
    result = load_bytes(json.dumps(data, ensure_ascii=False).encode(), "g.json", "godot")
    return [f"{e.location}: {e.message}" for e in result.errors]


def test_round_without_the_debug_snapshot_is_rejected_alone() -> None:
    data = copy.deepcopy(COMPACT)
    del _round(data, 2)["debug"]
    assert _errors(data) == [
        "$.rounds[1].debug: missing: expected the debug snapshot with the dealt hands"
    ]
    assert len(_games_lenient(data)) == 3


def _games_lenient(data: Any) -> list[records_pb2.RecordFile]:
    return load_bytes(json.dumps(data).encode(), "g.json", "godot").records


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (
            lambda d: _round(d, 1)["debug"]["initial_hands"][0].__setitem__(0, "♠1"),
            "$.rounds[0].debug.initial_hands[0][0]: expected a card",
        ),
        (
            lambda d: _round(d, 1)["debug"]["hand_with_bottom"].reverse(),
            "$.rounds[0].debug.hand_with_bottom: expected seat 1's dealt hand followed by",
        ),
        (
            lambda d: _round(d, 1)["buried_indices"].__setitem__(0, 0),
            "$.rounds[0].debug.buried_cards: expected the cards of hand_with_bottom at",
        ),
        (
            lambda d: _round(d, 1)["bid"].update(seat=0),
            "$.rounds[0].bid.seat: expected 1: the bidder deals the round",
        ),
        (lambda d: d.update(version=3), "$.version: expected 1 or 2, found 3"),
    ],
)
def test_bad_log_is_named_where_it_is_bad(change: Any, error: str) -> None:
    data = copy.deepcopy(COMPACT)
    change(data)
    assert any(e.startswith(error) for e in _errors(data)), _errors(data)


def test_a_round_cut_in_its_last_trick_is_incomplete_without_a_breach() -> None:
    data = copy.deepcopy(COMPACT)
    played = _round(data, 1)
    played["_in_progress"] = True
    played["settlement"] = {}
    played["tricks"] = played["tricks"][:5]
    played["tricks"][-1]["plays"] = played["tricks"][-1]["plays"][:2]
    report = audit_game(_games(data)[0])
    assert _codes(report) == ["RECORD_INCOMPLETE"]


def test_the_programs_rank_linked_tractor_is_unsupported_not_a_false_finding() -> None:
    # Level 2, trump ♣: the program links the level pair ♣2♣2 with ♣3♣3 by rank; the variant
    # cannot, so the round is UNSUPPORTED rather than a THROW_NOT_ALLOWED it never broke.
    data = copy.deepcopy(COMPACT)
    lead = _round(data, 1)["tricks"][0]["plays"][0]
    lead.update(cards=["♣2", "♣2", "♣3", "♣3"], pattern="Tractor(2对)")
    game = _games(data)[0]
    assert game.metadata[UNSUPPORTED_KEY] == (
        "trick 1: the program's tractor C2 C2 C3 C3 (a level pair linked by rank) is not a "
        "tractor the godot variant can say"
    )
    assert _codes(audit_game(game)) == ["UNSUPPORTED"]
    # A tractor both read alike is audited as usual.
    lead.update(cards=["♠7", "♠7", "♠8", "♠8"])
    assert UNSUPPORTED_KEY not in _games(data)[0].metadata


def test_a_round_nobody_bid_is_no_trump_dealt_by_the_designated_dealer() -> None:
    data = copy.deepcopy(COMPACT)
    _round(data, 1).update(bid={"type": "NO_BID"}, trump_suit=-1)
    game = _games(data)[0]
    assert (game.context.first_hand, game.context.dealer, list(game.bids)) == (False, 1, [])
    computed = audit_game(game).computed
    assert (computed.dealer, computed.trump.suit) == (1, records_pb2.SUIT_NO_TRUMP)


# --- the program's own test logs (tools/tests/fixtures, v2) --------------------------------------


def _program_log(name: str) -> tuple[records_pb2.GameRecord, audit_pb2.AuditReport]:
    result = load(FIXTURES / f"game_log_{name}.json")
    assert result.errors == []
    [record] = result.records
    return record.game, audit_game(record.game)


def test_r_throw_godot_dumps_the_program_enforced_audit_clean() -> None:
    # allow_dump: nine dumps failed (dump_failures) and their lowest card was played; seat 3's
    # ♥5 ♥9 ♣6 takes trick 5 by its first card's suit and highest card, as the program says.
    game, report = _program_log("dump_enforced")
    assert _codes(report) == []
    assert json.loads(game.ruleset_overrides_json)["throw"] == {"allowed": True}
    failed = [
        (t + 1, list(p.attempted), list(p.cards))
        for t, trick in enumerate(game.tricks)
        for p in trick.plays
        if p.attempted
    ]
    assert len(failed) == 9
    assert failed[0] == (1, ["DA", "DJ", "DT"], ["DT"])
    assert (game.tricks[4].claim.winner, game.claim.defenders_points) == (3, 170)


def test_r_throw_godot_a_dump_the_program_let_stand_is_not_enforced() -> None:
    # Written before the program checked dumps; its validator finds dump_not_biggest.
    _, report = _program_log("dump_illegal_legacy")
    assert [(f.code, f.position.trick) for f in report.findings] == [
        ("THROW_NOT_ENFORCED", 0),
        ("THROW_NOT_ENFORCED", 1),
        ("THROW_NOT_ENFORCED", 3),
        ("THROW_NOT_ENFORCED", 5),
    ]


def test_r_follow_shape_godot_pairs_owed_in_a_deal_without_bidding_audit_clean() -> None:
    # strict_follow_structure with pairs led; no bidding (bid null): the logged trump stands.
    game, report = _program_log("strict_follow")
    assert _codes(report) == []
    assert game.claim.trump.suit == records_pb2.SUIT_SPADES
    assert json.loads(game.ruleset_overrides_json)["bidding"]["fallback_first_hand"] == "recorded"


def test_r_unit_godot_a_level_pair_linked_by_rank_is_unsupported() -> None:
    # tractor_allow_rank_card: ♠5♠5♠6♠6♠7♠7 at level 5 is a tractor for the program.
    game, report = _program_log("tractor_rank")
    assert _codes(report) == ["UNSUPPORTED"]
    assert "trick 1" in game.metadata[UNSUPPORTED_KEY]


def test_r_unit_godot_four_level_cards_in_two_pairs_are_unsupported() -> None:
    data = json.loads((FIXTURES / "game_log_strict_follow.json").read_text())
    trick = _round(data, 1)["tricks"][1]  # ♠9♠9 led, seat 1 follows ♣2♣2
    trick["plays"][0]["cards"] = ["♠2", "♠2", "♥2", "♥2"]
    [game] = _games(data)
    assert "four_same_is_tractor" in game.metadata[UNSUPPORTED_KEY]


def test_r_level_godot_the_competitive_table_and_counter_bids() -> None:
    # The competitive preset: threshold 100 and its table as bands, mode A bids; rounds 4-6
    # were counter-bid (反主): unsupported, not bad records (their bury is the second one).
    result = load(FIXTURES / "game_log_competitive.json")
    assert result.errors == []
    games = [r.game for r in result.records]
    reports = [audit_game(g) for g in games]
    assert [_codes(r) for r in reports] == [[]] * 3 + [["UNSUPPORTED"]] * 3
    assert [g.claim.defenders_points for g in games[:3]] == [100, 125, 120]
    assert {g.claim.level_result.outcome for g in games[:3]} == {records_pb2.OUTCOME_SWAP}
    assert all("counter-bid" in g.metadata[UNSUPPORTED_KEY] for g in games[3:])


def test_r_bid_godot_the_classic_presets_ai_game_audits_clean() -> None:
    # Six rounds of AI play under the classic preset (joker bids, dumps allowed, the table of
    # §3.5): every round not counter-bid audits clean, levels 2-5 and a 公主 (no-trump) bid.
    result = load(FIXTURES / "game_log_classic.json")
    assert result.errors == []
    games = [r.game for r in result.records]
    codes = [_codes(audit_game(g)) for g in games]
    assert codes == [[], ["UNSUPPORTED"], [], [], ["UNSUPPORTED"], []]
    assert [g.claim.defenders_points for g in games] == [120, 90, 55, 55, 140, 90]
    assert games[5].claim.trump.suit == records_pb2.SUIT_NO_TRUMP
