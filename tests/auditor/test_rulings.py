"""Rulings as the audit of a whole hand applies them, on hands scripted around one case."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from chaodipi.auditor import audit_game, audit_match
from chaodipi.auditor.generate import fill_claims, generate_hand
from chaodipi.auditor.reading import read_game
from chaodipi.auditor.state import Cleared
from chaodipi.auditor.wire import tokens
from chaodipi.engine import RANK_LETTERS, FirstHandLevels, ForcedTie, get_ruleset
from chaodipi.engine.presets import CLASSIC
from chaodipi.v1 import records_pb2
from tests.auditor.conftest import hand
from tests.auditor.scripted import scripted_hand, swap_teams

NO_TRUMP_BIDS = [(2, "declare", "D6"), (1, "overcall", "BJ BJ", "NT")]
"""Seat 2 declares ♦, seat 1 overcalls with the big jokers and names no-trump (level 6)."""


def test_r_unit_nt_a_tractor_lead_is_no_failed_throw_in_the_audit() -> None:
    # Seat 0 leads ♣6 ♣6 LJ LJ in no-trump; seat 1 holds the big jokers, which beat each pair.
    record = scripted_hand(
        "classic",
        ["C6 C6 LJ LJ", "BJ BJ", "D6", ""],
        bids=NO_TRUMP_BIDS,
        trump="NT",
        leads={0: ("C6 C6 LJ LJ", "")},
    )
    report = audit_game(record)
    assert [f.code for f in report.findings] == []
    first = report.computed.tricks[0]
    assert (first.throw_attempted, first.penalty) == (False, 0)
    # The Botzone judger's rules link only LJ LJ BJ BJ: there it is a throw that fails.
    botzone = audit_game(record, ruleset=get_ruleset("botzone"))
    assert "THROW_NOT_ENFORCED" in [f.code for f in botzone.findings]


SPADE_BIDS = [(1, "declare", "S2")]
"""Seat 1 declares ♠ at level 2."""


def _tie_hand(ruleset: str, attempt: str, forced: str) -> records_pb2.GameRecord:
    # Seat 0 throws ♣2 ♥2 LJ under ♠ trump at level 2: seat 1's ♠2 beats both level singles and
    # its big joker the LJ. ♣2 and ♥2 tie for the smallest beaten unit.
    return scripted_hand(
        ruleset,
        ["C2 H2 LJ", "S2 BJ", "", ""],
        bids=SPADE_BIDS,
        trump="S",
        levels=("2", "2"),
        leads={0: (forced, attempt)},
    )


@pytest.mark.parametrize("forced", ["C2", "H2"])
def test_r_throw_force_tie_the_audit_accepts_every_tied_unit(forced: str) -> None:
    record = _tie_hand("classic", "C2 H2 LJ", forced)
    report = audit_game(record)
    assert [f.message for f in report.findings] == []
    assert list(report.computed.tricks[0].forced_unit) == [forced]
    assert report.computed.tricks[0].penalty == 30


def test_r_throw_force_tie_a_unit_outside_the_tied_set_is_enforced_wrongly() -> None:
    report = audit_game(_tie_hand("classic", "C2 H2 LJ", "LJ"))
    wrong = [f for f in report.findings if f.code == "THROW_ENFORCED_WRONGLY"]
    assert len(wrong) == 1
    assert wrong[0].rule_id == "R-THROW-FORCE"
    assert "the rule forces one of ♥2, ♣2 (tied)" in wrong[0].message
    assert wrong[0].evidence.details["forced_options"] == "H2 | C2"


def test_r_throw_force_tie_a_variant_naming_its_pick_flags_the_other() -> None:
    # A variant that forces the tied unit listed first in the attempt (the 80-fen program's).
    variant = dataclasses.replace(
        CLASSIC,
        id="first-listed",
        throw=dataclasses.replace(CLASSIC.throw, forced_tie=ForcedTie.ATTEMPT_ORDER),
    )
    picked = audit_game(_tie_hand("classic", "C2 H2 LJ", "C2"), ruleset=variant)
    assert [f.message for f in picked.findings] == []
    other = audit_game(_tie_hand("classic", "C2 H2 LJ", "H2"), ruleset=variant)
    wrong = [f for f in other.findings if f.code == "THROW_ENFORCED_WRONGLY"]
    assert [f.rule_id for f in wrong] == ["R-THROW-FORCE-TIE"]
    assert wrong[0].message.endswith(
        "the rule forces ♣2: of the tied units ♣2, ♥2, first-listed forces the one whose top "
        "card comes first in the attempt"
    )


def _stake_hand(ruleset: str, *, enforced: bool) -> records_pb2.GameRecord:
    # Seat 0 throws ♣A ♣J ♣J; seat 2's ♣Q ♣Q beats the pair (nothing beats ♣A): one failed throw.
    attempt = "CA CJ CJ"
    return scripted_hand(
        ruleset,
        ["CA CJ CJ", "", "CQ CQ", ""],
        bids=SPADE_BIDS,
        trump="S",
        levels=("2", "2"),
        leads={0: ("CJ CJ", attempt) if enforced else (attempt, "")},
    )


def test_r_throw_penalty_shuangsheng_charges_one_stake_unit_per_failed_throw() -> None:
    record = _stake_hand("shuangsheng", enforced=True)
    report = audit_game(record)
    assert [f.message for f in report.findings] == []
    assert (report.computed.stake_units, report.computed.penalties_total) == (1, 0)
    assert record.claim.stake_units == 1  # the generator's claims carry the count
    record.claim.stake_units = 0
    wrong = [f for f in audit_game(record).findings if f.code == "PENALTY_MISMATCH"]
    assert [f.message for f in wrong] == [
        "1 failed throw charges 1 stake unit (底金, one each); 0 units were claimed"
    ]
    assert (wrong[0].evidence.expected, wrong[0].evidence.recorded) == ("1", "0")


def test_r_throw_penalty_an_unenforced_throw_still_owes_its_stake_unit() -> None:
    report = audit_game(_stake_hand("shuangsheng", enforced=False))
    assert "THROW_NOT_ENFORCED" in [f.code for f in report.findings]
    assert report.computed.stake_units == 1


def test_r_throw_penalty_no_stake_units_outside_shuangsheng() -> None:
    record = _stake_hand("classic", enforced=True)
    report = audit_game(record)
    assert (report.computed.stake_units, report.computed.penalties_total) == (0, 30)
    assert not record.claim.HasField("stake_units")
    record.claim.stake_units = 1
    wrong = [f.message for f in audit_game(record).findings if f.code == "PENALTY_MISMATCH"]
    assert wrong == ["no table stake (底金) is due in this hand; 1 unit was claimed"]


@pytest.mark.parametrize("seed", [0, 1])
def test_r_match_dealer_a_hand_that_ends_the_match_names_no_next_dealer(seed: int) -> None:
    # Both teams on A in shuangsheng: a rise of either side passes A and wins the match.
    record = generate_hand("shuangsheng", seed, first_hand=False, team_levels=(12, 12), dealer=0)
    computed = audit_game(record).computed
    assert computed.level_result.outcome in (
        records_pb2.OUTCOME_DEALER_WINS_MATCH,
        records_pb2.OUTCOME_DEFENDERS_WIN_MATCH,
    )
    assert not computed.HasField("next_dealer")
    assert not computed.HasField("next_dealer_team")


@pytest.mark.parametrize("ruleset", ["classic", "shuangsheng", "anhui", "changshu"])
@pytest.mark.parametrize("seed", range(3))
def test_r_bid_first_hand_of_unequal_levels_audits_alike_with_the_teams_swapped(
    ruleset: str, seed: int
) -> None:
    # Team 0 on 2, team 1 on 5: each seat declares with its own team's level card.
    record = generate_hand(ruleset, seed, first_hand=True, team_levels=(0, 3))
    report = audit_game(record)
    assert [f.message for f in report.findings] == []
    swapped = audit_game(swap_teams(record))
    assert [f.message for f in swapped.findings] == []
    assert swapped.computed.dealer == (report.computed.dealer + 1) % 4
    assert swapped.computed.trump == report.computed.trump
    assert swapped.computed.defenders_points == report.computed.defenders_points
    assert any("first hand's teams stand at different levels" in note for note in report.notes)


def test_r_bid_first_hand_a_bid_shows_the_bidders_own_level() -> None:
    # Team 0 on 2, team 1 on 5: seat 1 declares ♣5, seat 2 overcalls ♦2 ♦2, seat 1 ♥5 ♥5.
    record = generate_hand("classic", 3, first_hand=True, team_levels=(0, 3))
    assert [(b.seat, list(b.cards)) for b in record.bids] == [
        (1, ["C5"]),
        (2, ["D2", "D2"]),
        (1, ["H5", "H5"]),
    ]
    report = audit_game(record)
    assert [f.message for f in report.findings] == []
    assert (report.computed.dealer, report.computed.trump.level) == (1, "5")
    # A level card of the other team's level is no level card for this bidder.
    record.bids[0].cards[:] = ["C2"]
    illegal = [f.message for f in audit_game(record).findings if f.code == "BID_ILLEGAL"]
    assert illegal[0] == ("seat 1's declare of ♣2: ♣2 is not a level card (team 1's level 5)")


def _anhui_hand(
    levels: tuple[int, int],
    holding_team: int,
    wanted: Callable[[int], bool],
    cleared: Cleared,
    number: int,
) -> records_pb2.GameRecord:
    """The first generated anhui hand whose defenders' points are ``wanted`` (claims filled
    with the match's must-play history, which the hand adds to)."""
    for seed in range(1000):
        record = generate_hand(
            "anhui",
            seed,
            first_hand=False,
            team_levels=levels,
            dealer=holding_team,
            hand_number=number,
            players=PLAYERS,
            claims=False,
        )
        if wanted(audit_game(record).computed.defenders_points):
            fill_claims(record, cleared)
            return record
    raise AssertionError("no generated hand scores as wanted")


PLAYERS = [(f"p{seat}", f"Player {seat}") for seat in range(4)]
J, FIVE = 9, 3


def test_r_level_must_a_rank_cleared_earlier_in_the_match_is_passed() -> None:
    # Team 0 deals at J and keeps the deal with D+0 (75 points): it has won a hand dealt at J.
    # It then loses the deal at J, and wins as defenders: it passes J, which it cleared.
    cleared: Cleared = (set(), set())
    hands = [
        _anhui_hand((J, FIVE), 0, lambda points: points == 75, cleared, 1),
        _anhui_hand((J, FIVE), 0, lambda points: 80 <= points <= 85, cleared, 2),
        _anhui_hand((J, FIVE), 1, lambda points: 90 <= points < 120, cleared, 3),
    ]
    assert cleared == ({J}, set())
    match = records_pb2.MatchRecord(match_id="anhui-j", ruleset="anhui")
    for pid, name in PLAYERS:
        match.players.add(id=pid, display_name=name)
    match.hands.extend(hands)
    report = audit_match(match)
    assert [f.message for f in report.findings] == []
    assert [[f.message for f in hand.findings] for hand in report.hands] == [[], [], []]
    last = report.hands[2].computed.level_result
    assert last.outcome == records_pb2.OUTCOME_DEFENDERS_UP
    assert last.levels >= 1
    assert last.defender_team_level_after == RANK_LETTERS[J + last.levels]
    # Audited alone, the third hand knows no history: team 0 stays on J, and its claim (made
    # with the history) is a LEVEL_MISMATCH.
    alone = audit_game(hands[2])
    assert alone.computed.level_result.defender_team_level_after == "J"
    assert [f.code for f in alone.findings] == ["LEVEL_MISMATCH"]


def test_r_level_must_dealt_and_lost_is_not_cleared() -> None:
    # Team 0 deals at J and loses the deal: as defenders next hand, it still stops on J.
    cleared: Cleared = (set(), set())
    hands = [
        _anhui_hand((J, FIVE), 0, lambda points: 80 <= points <= 85, cleared, 1),
        _anhui_hand((J, FIVE), 1, lambda points: 90 <= points < 120, cleared, 2),
    ]
    assert cleared == (set(), set())
    match = records_pb2.MatchRecord(match_id="anhui-j-lost", ruleset="anhui")
    for pid, name in PLAYERS:
        match.players.add(id=pid, display_name=name)
    match.hands.extend(hands)
    report = audit_match(match)
    assert [f.message for f in report.findings] == []
    last = report.hands[1].computed.level_result
    assert (last.levels, last.defender_team_level_after) == (0, "J")


def test_r_score_record_incomplete_counts_each_seats_cards_in_words() -> None:
    record = hand("classic", 1)
    del record.tricks[-1]
    messages = [f.message for f in audit_game(record).findings if f.code == "RECORD_INCOMPLETE"]
    assert messages == [
        "the hand is not played out (seat 0 has 1 card left, seat 1 has 1 card left, seat 2 has "
        "1 card left, seat 3 has 1 card left); kitty, score and level are not checked"
    ]
    del record.tricks[:]
    messages = [f.message for f in audit_game(record).findings if f.code == "RECORD_INCOMPLETE"]
    assert messages[0].startswith("the hand is not played out (seat 0 has 25 cards left, ")


def test_r_deal_invalid_counts_a_deal_mostly_absent_and_lists_a_short_one() -> None:
    record = hand("classic", 1)
    del record.draw_order.deck[10:]
    found = [f for f in audit_game(record).findings if f.code == "DEAL_INVALID"]
    assert found[0].message == (
        "the deal is not 2 whole decks (it holds 10 of 108 cards): 98 cards missing"
    )
    assert found[0].evidence.recorded == "98 cards missing"
    assert found[1].message == "seat 0 was dealt 1 card; classic deals 25"
    record = hand("classic", 1)
    deck = record.draw_order.deck
    deck[5] = "DQ" if deck[5] != "DQ" else "DK"
    found = [f for f in audit_game(record).findings if f.code == "DEAL_INVALID"]
    assert len(found) == 1 and found[0].message.startswith("the deal is not 2 whole decks: extra ")
    assert "; missing " in found[0].message and "cards" not in found[0].message


def test_r_deal_invalid_whole_decks_dealt_in_wrong_sizes_name_the_sizes_alone() -> None:
    record = hand("classic", 1)
    read = read_game(record)
    assert not isinstance(read, list)
    record.ClearField("draw_order")
    seats = [list(cards) for cards in read.hands]
    seats[1].append(seats[0].pop())  # 24 and 26 cards: still two whole decks
    for cards in seats:
        record.dealt_hands.hands.add(cards=tokens(cards))
    record.dealt_hands.kitty.extend(tokens(read.kitty))
    found = [f.message for f in audit_game(record).findings if f.code == "DEAL_INVALID"]
    assert found == [
        "seat 0 was dealt 24 cards; classic deals 25",
        "seat 1 was dealt 26 cards; classic deals 25",
    ]


def test_r_bid_first_hand_of_unequal_levels_may_be_unsupported_by_a_variant() -> None:
    variant = dataclasses.replace(
        CLASSIC,
        id="strict",
        bidding=dataclasses.replace(CLASSIC.bidding, first_hand_levels=FirstHandLevels.UNSUPPORTED),
    )
    record = generate_hand("classic", 3, first_hand=True, team_levels=(0, 3))
    for version in (record, swap_teams(record)):
        report = audit_game(version, ruleset=variant)
        assert [f.code for f in report.findings] == ["UNSUPPORTED"]
        assert "teams stand at different levels" in report.findings[0].message


def test_r_held_a_lead_of_copies_no_deck_holds_is_not_judged_even_when_dealt() -> None:
    # A deal with three ♣7 in seat 0's hand (two decks: DEAL_INVALID), which it then leads.
    record = scripted_hand(
        "classic", ["C7 C7", "", "", ""], bids=SPADE_BIDS, trump="S", levels=("2", "2")
    )
    dealt = record.dealt_hands.hands[0].cards
    dealt[next(i for i, card in enumerate(dealt) if card != "C7")] = "C7"
    record.tricks[0].plays[0].cards[:] = ["C7", "C7", "C7"]
    report = audit_game(record)
    first = [
        (f.code, f.position.play, f.message)
        for f in report.findings
        if f.position.trick == 0 and f.code != "DEAL_INVALID"
    ]
    assert first[0] == (
        "CARD_NOT_IN_HAND",
        0,
        "seat 0: ♣7 ♣7 ♣7 cannot be led: 2 decks hold 2 of each card",
    )
    # No follow is judged against it (only their card counts); no play can win against
    # it, so the table's claim names the winner.
    assert "WRONG_CARD_COUNT" in {code for code, _, _ in first}
    assert not {code for code, _, _ in first} & {"FOLLOW_REVOKE", "FOLLOW_SHAPE"}
    assert report.computed.tricks[0].winner == record.tricks[0].claim.winner
    assert "DEAL_INVALID" in {f.code for f in report.findings}
