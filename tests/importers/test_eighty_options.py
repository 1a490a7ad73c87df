"""80-fen-shengji replays with other rule options, their seats, and the forced-unit tie (issue 14).

Each option is either modelled as ruleset data (the record's overrides) or reported
UNSUPPORTED naming it, so no option gives a false finding.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from chaodipi.auditor import audit_game
from chaodipi.auditor.reading import UNSUPPORTED_KEY
from chaodipi.engine.cards import KINDS, card_token
from chaodipi.importers import load_bytes
from chaodipi.v1 import audit_pb2, records_pb2

FIXTURES = Path(__file__).parent.parent / "fixtures" / "eighty"
SHAPES = json.loads((FIXTURES / "deal-shapes.json").read_text())
TRICKS = json.loads((FIXTURES / "deal-25-tricks.json").read_text())


def _import(data: Any) -> records_pb2.GameRecord:
    result = load_bytes(json.dumps(data).encode(), "r.json", "eighty")
    assert result.errors == [], result.errors
    (record,) = result.records
    return record.game


def _codes(report: audit_pb2.AuditReport) -> list[str]:
    return [f.code for f in report.findings]


def _with_rules(base: dict[str, Any], **rules: Any) -> dict[str, Any]:
    data = copy.deepcopy(base)
    data["rules"].update(rules)
    return data


def _levels_after(data: dict[str, Any], levels: list[int]) -> None:
    data["levelsAfter"] = levels
    scored = next(e for e in data["events"] if e["type"] == "round_scored")
    scored["levels"] = levels


# --- speedRun (C.2) -----------------------------------------------------------------------------


def test_eighty_speed_run_result_audits_clean() -> None:
    # deal-shapes: the dealer's team (0) wins with 60 (levelsUp 1): 2 → 5 on the speed ladder.
    data = _with_rules(SHAPES, speedRun=True)
    _levels_after(data, [5, 2])
    game = _import(data)
    assert json.loads(game.ruleset_overrides_json) == {
        "level": {"must_play": [], "rungs": ["2", "5", "T", "K", "A"]}
    }
    report = audit_game(game)
    assert _codes(report) == []
    result = report.computed.level_result
    assert (result.outcome, result.levels, result.dealer_team_level_after) == (
        records_pb2.OUTCOME_DEALER_UP,
        3,
        "5",
    )
    # The normal ladder's result under the speed run is a wrong claim.
    _levels_after(data, [3, 2])
    assert _codes(audit_game(_import(data))) == ["LEVEL_MISMATCH"]


def test_eighty_speed_run_swap_and_gate_free_rise() -> None:
    # deal-25-tricks: the attackers (team 1, on gate 2) reach 125, levelsUp 1. Normal rules
    # hold them on the unplayed gate 2; the speed run ignores gates: 2 → 5.
    data = _with_rules(TRICKS, speedRun=True)
    assert _codes(audit_game(_import(data))) == ["LEVEL_MISMATCH"]
    _levels_after(data, [2, 5])
    assert _codes(audit_game(_import(data))) == []


# --- strictTractorFollow (C.3), firstDealer (C.4) and the rest ----------------------------------


def test_eighty_strict_tractor_follow_off_drops_the_tractor_duty() -> None:
    game = _import(_with_rules(SHAPES, strictTractorFollow=False, partialTractorFollow=False))
    overrides = json.loads(game.ruleset_overrides_json)
    assert overrides == {"order": {"follow_shorter_tractors": False, "tractor_duty": False}}
    assert _codes(audit_game(game)) == []


def test_eighty_first_dealer_random_fixes_the_dealer_before_the_bids() -> None:
    # No cut: the dealer (0) is known from the first deal; the bids only set trump.
    data = _with_rules(TRICKS, firstDealer="random")
    data["events"] = [e for e in data["events"] if e["type"] != "cut"]
    game = _import(data)
    assert (game.context.first_hand, game.context.dealer) == (False, 0)
    report = audit_game(game)
    assert _codes(report) == []
    assert (report.computed.dealer, report.computed.trump.suit) == (0, records_pb2.SUIT_CLUBS)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"ruleset": "shanghai-80fen-0.8.0-v1"}, "ruleset 'shanghai-80fen-0.8.0-v1'"),
        ({"rules": {"jokerTractors": True}}, "rule option(s) jokerTractors"),
        ({"rules": {"firstDealer": "winner"}}, "rules.firstDealer 'winner'"),
    ],
)
def test_eighty_unmodelled_option_is_unsupported_naming_it(
    change: dict[str, Any], named: str
) -> None:
    data = copy.deepcopy(SHAPES)
    rules = change.pop("rules", {})
    data.update(change)
    data["rules"].update(rules)
    game = _import(data)
    assert game.metadata[UNSUPPORTED_KEY].startswith(named)
    report = audit_game(game)
    assert _codes(report) == ["UNSUPPORTED"]
    assert report.findings[0].message.startswith(named)
    assert report.findings[0].message.endswith("; nothing is checked")


def test_eighty_redeal_options_change_nothing_in_a_completed_deal() -> None:
    data = _with_rules(SHAPES, fullRebel="scramble", maxRedeal=1, pointRebelThreshold=20)
    game = _import(data)
    assert (game.ruleset_overrides_json, UNSUPPORTED_KEY in game.metadata) == ("", False)
    assert _codes(audit_game(game)) == []


def test_eighty_option_of_the_wrong_type_is_a_bad_record() -> None:
    result = load_bytes(
        json.dumps(_with_rules(SHAPES, speedRun="yes")).encode(), "r.json", "eighty"
    )
    assert [str(p) for p in result.errors] == [
        "r.json: $.rules.speedRun: expected true or false, found a string"
    ]


# --- players (C.5) ------------------------------------------------------------------------------


def test_eighty_players_from_the_d1_rows_seats() -> None:
    seats = [
        {"kind": "human", "provider": None, "model": None},
        {"kind": "api", "provider": "qwen", "model": "qwen3.8-flash"},
        {"kind": "peilian", "provider": None, "model": None},
        {"kind": "api", "provider": "qwen", "model": "qwen3.8-flash"},
    ]
    row = {
        "result_id": "fixture-eighty-6:1",
        "user_id": "hmac-1",
        "completed_at": 1760000000,
        "seats_json": json.dumps(seats),
        "replay_json": json.dumps(SHAPES),
    }
    game = _import(row)
    assert [(p.id, p.display_name) for p in game.players] == [
        ("eighty:human:hmac-1", "South (human)"),
        ("eighty:api:qwen/qwen3.8-flash", "East (api qwen/qwen3.8-flash)"),
        ("eighty:peilian", "North (peilian)"),
        ("eighty:api:qwen/qwen3.8-flash", "West (api qwen/qwen3.8-flash)"),
    ]


def test_eighty_raw_replay_has_seat_based_players() -> None:
    game = _import(SHAPES)
    assert [(p.id, p.display_name) for p in game.players][:2] == [
        ("eighty:seat0", "South (seat 0)"),
        ("eighty:seat1", "East (seat 1)"),
    ]


# --- R-THROW-FORCE-TIE (C.6) --------------------------------------------------------------------


def _tied_throw(forced: str) -> records_pb2.GameRecord:
    """An eighty hand (level 2, trump ♠, dealer 0) whose first lead throws ♣2 ♥2 and fails.

    ♣2 and ♥2 are other-suit level cards of equal order: seat 1's ♠2 beats either. The
    program forces the first of equal tops in the order the leader listed them: ♣2.
    """
    mine = ["C2", "H2", "D3", "D4", "D5"]
    seat1 = ["S2", "D6", "D7", "D8", "D9"]
    deck = [card_token(k) for k in range(KINDS) for _ in range(2)]
    for token in mine + seat1:
        deck.remove(token)
    hands = [mine + deck[:20], seat1 + deck[20:40], deck[40:65], deck[65:90]]
    kitty = deck[90:98]
    game = records_pb2.GameRecord(record_id="tie", ruleset="eighty")
    game.context.team0_level = game.context.team1_level = "2"
    game.context.dealer = 0
    for hand in hands:
        game.dealt_hands.hands.add(cards=hand)
    game.dealt_hands.kitty.extend(kitty)
    game.bids.add(seat=0, kind=records_pb2.BID_KIND_DECLARE, cards=["S2"])
    game.kitty_exchanges.add(seat=0, picked_up=kitty, buried=kitty)
    trick = game.tricks.add(leader=0)
    trick.plays.add(seat=0, cards=[forced], attempted=["C2", "H2"])
    return game


def test_r_throw_force_tie_the_other_tied_unit_breaks_the_programs_pick() -> None:
    # The eighty variant names the program's pick (attempt order): ♥2 is not it.
    report = audit_game(_tied_throw("H2"))
    wrong = [f for f in report.findings if f.code == "THROW_ENFORCED_WRONGLY"]
    assert [f.rule_id for f in wrong] == ["R-THROW-FORCE-TIE"]


def test_r_throw_force_tie_the_programs_pick_audits_clean() -> None:
    # The 80-fen program forces ♣2, the first of the tied units as the leader listed them
    # (throw_failed.proposed, kept in order as the play's attempt).
    game = _tied_throw("C2")
    assert list(game.tricks[0].plays[0].attempted) == ["C2", "H2"]
    assert "THROW_ENFORCED_WRONGLY" not in _codes(audit_game(game))


# --- the program's split of a failed throw ------------------------------------------------------


def test_r_throw_force_the_programs_split_links_the_first_listed_level_pair() -> None:
    # Written by the program's own code: in no-trump at level 2 the dealer (seat 3) throws
    # ♦2 ♦2 ♣2 ♣2 LJ LJ, listed so. rules.js components() links the first listed level pair
    # to the LJ pair (tractor ♦2♦2 LJ LJ) and leaves ♣2 ♣2 a pair, the lowest unit, forced.
    game = _import(json.loads((FIXTURES / "deal-throw-split.json").read_text()))
    trick = next(t for t in game.tricks if t.plays[0].attempted)
    assert [list(u.cards) for u in trick.declared_split] == [["D2", "D2", "LJ", "LJ"], ["C2", "C2"]]
    assert list(trick.plays[0].cards) == ["C2", "C2"]
    assert _codes(audit_game(game)) == []
    # Cut canonically instead (♣2 links), the throw would force ♦2 ♦2: the split is what counts.
    del trick.declared_split[:]
    assert _codes(audit_game(game)) == ["THROW_ENFORCED_WRONGLY"]
