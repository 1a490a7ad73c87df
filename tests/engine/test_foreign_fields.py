"""Ruleset fields added for issue 14's foreign programs (80-fen options, Botzone, shengji-godot).

Each field defaults to what the presets did before it existed; each test shows the field
changing a judgment, so it can fail.
"""

from __future__ import annotations

import dataclasses

import pytest

from chaodipi.engine import Table, match_points
from chaodipi.engine.bidding import Bid, apply_bid, check_bid, start_bidding
from chaodipi.engine.cards import HEARTS, SPADES, Hand, parse_cards, rank_index
from chaodipi.engine.follow import check_follow
from chaodipi.engine.level import level_result, next_dealer
from chaodipi.engine.order import trump_context
from chaodipi.engine.presets import (
    ANHUI,
    BOTZONE,
    CHANGSHU,
    CLASSIC,
    EIGHTY,
    GODOT,
    SHUANGSHENG,
    ruleset_from_mapping,
)
from chaodipi.engine.ruleset import (
    HeldCheck,
    NextDealer,
    Outcome,
    PassingAce,
    Ruleset,
    RulesetError,
)
from chaodipi.engine.units import canonical_split

TWO, FIVE, SIX = rank_index("2"), rank_index("5"), rank_index("6")
KING, ACE = rank_index("K"), rank_index("A")


def level_variant(**fields: object) -> Ruleset:
    return dataclasses.replace(
        CLASSIC,
        id="variant",
        level=dataclasses.replace(CLASSIC.level, **fields),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("ruleset", [CLASSIC, SHUANGSHENG, ANHUI, CHANGSHU], ids=lambda r: r.id)
def test_new_fields_default_to_the_presets_behaviour(ruleset: Ruleset) -> None:
    assert ruleset.order.tractor_duty and ruleset.throw.allowed
    order = ruleset.order
    assert (order.same_shape_follow_free, order.throw_shape_needs_tractor) == (False, False)
    level = ruleset.level
    assert (level.must_play_hold, level.rungs, level.match_points) == (True, (), False)
    assert level.passing_ace is not PassingAce.STOP_AT_ACE
    assert level.next_dealer is not NextDealer.SAME_OR_NEXT
    bidding = ruleset.bidding
    assert (bidding.held_check, bidding.joker_colour_match) == (HeldCheck.COPIES, False)
    assert not any(entry.startswith("J+") for entry in bidding.ladder)


def test_new_fields_load_from_a_house_variant() -> None:
    loaded = ruleset_from_mapping(
        {
            "base": "classic",
            "id": "foreign-like",
            "order": {
                "tractor_duty": False,
                "same_shape_follow_free": True,
                "throw_shape_needs_tractor": True,
            },
            "throw": {"allowed": False},
            "level": {"rungs": ["2", "5", "T", "K", "A"], "must_play_hold": False},
            "bidding": {"held_check": "each_card", "joker_colour_match": True},
        }
    )
    assert not loaded.order.tractor_duty and not loaded.throw.allowed
    assert loaded.order.same_shape_follow_free and loaded.order.throw_shape_needs_tractor
    assert loaded.level.rungs == ("2", "5", "T", "K", "A")
    assert loaded.bidding.held_check is HeldCheck.EACH_CARD
    with pytest.raises(RulesetError, match="rungs"):
        ruleset_from_mapping({"base": "classic", "id": "x", "level": {"rungs": ["5", "2"]}})
    with pytest.raises(RulesetError, match="ladder"):
        ruleset_from_mapping({"base": "classic", "id": "x", "bidding": {"ladder": ["J+1:LJ"]}})


# --- following: order.tractor_duty --------------------------------------------------------------


def test_follow_without_tractor_duty_owes_a_tractor_lead_only_its_pairs() -> None:
    duty = trump_context(CLASSIC, TWO, HEARTS)
    no_duty = trump_context(GODOT, TWO, HEARTS)
    lead = tuple(canonical_split(duty, parse_cards("S5 S5 S6 S6")))
    assert lead[0].is_tractor
    hand = Hand("S8 S8 S9 S9 SJ SJ D4")
    pairs = parse_cards("S8 S8 SJ SJ")
    assert check_follow(no_duty, lead, hand, pairs) is None
    problem = check_follow(duty, lead, hand, pairs)
    assert problem is not None and problem.code == "FOLLOW_SHAPE"
    # The pairs are still owed.
    problem = check_follow(no_duty, lead, hand, parse_cards("S8 S9 SJ SJ"))
    assert problem is not None and problem.code == "FOLLOW_SHAPE"


# --- leading: throw.allowed -------------------------------------------------------------------


def test_r_lead_without_throws_a_lead_of_two_units_is_illegal() -> None:
    table = Table(GODOT, "2", "H")
    verdict = table.check_lead("SK SK SJ")
    assert (verdict.code, verdict.rule) == ("THROW_NOT_ALLOWED", "R-LEAD")
    assert verdict.reason == "♠K ♠K ♠J is a throw of a pair and a single; godot has no throws " + (
        "(lead one single, pair or tractor)"
    )
    assert table.check_lead("SK SK SQ SQ").legal  # one tractor
    assert Table(CLASSIC, "2", "H").check_lead("SK SK SJ").legal


def test_godot_joker_pairs_form_the_one_trump_tractor() -> None:
    table = Table(GODOT, "7", "S")
    assert table.check_lead("BJ BJ LJ LJ").legal
    assert not table.check_lead("LJ LJ S7 S7").legal  # a level pair never links
    assert not table.check_lead("S7 S7 H7 H7").legal


# --- levels -------------------------------------------------------------------------------------


def test_r_level_speed_run_rungs_one_rung_whatever_the_table_gives() -> None:
    speed = level_variant(rungs=("2", "5", "T", "K", "A"), must_play=("2", "5", "T", "K"))
    up = level_result(speed, 0, TWO, TWO)  # D+5 by the table: one rung, 2 to 5
    assert (up.dealer_level_after, up.levels, up.stopped_at) == (FIVE, 3, None)
    between = level_result(speed, 50, rank_index("3"), TWO)  # from 3: the next rung is 5
    assert between.dealer_level_after == FIVE
    defenders = level_result(speed, 150, KING, TWO)  # A+3 by the table: 2 to 5, gates ignored
    assert (defenders.defender_level_after, defenders.levels) == (FIVE, 3)
    swap = level_result(speed, 90, KING, TWO)
    assert (swap.outcome, swap.levels, swap.dealer_level_after) == (Outcome.SWAP, 0, KING)
    won = level_result(speed, 0, ACE, TWO)  # past the last rung: the match is won
    assert (won.match_winner, won.levels) == ("dealer", 1)


def test_r_level_stop_at_ace_caps_a_rise_and_a_rise_from_ace_wins() -> None:
    capped = level_result(GODOT, 0, rank_index("Q"), TWO)  # D+3 from Q: K is must-play
    assert capped.dealer_level_after == KING
    ace = level_variant(passing_ace=PassingAce.STOP_AT_ACE)
    stopped = level_result(ace, 0, KING, TWO)  # D+5 from K stops on A
    assert (stopped.dealer_level_after, stopped.levels, stopped.match_winner) == (ACE, 1, None)
    won = level_result(ace, 0, ACE, TWO)
    assert won.match_winner == "dealer"
    assert level_result(CLASSIC, 0, KING, TWO).dealer_level_after == rank_index("5")  # wraps


def test_r_level_must_play_hold_off_lets_a_team_leave_a_must_play_rank() -> None:
    # Defenders on 5 who win: held on 5 by default (they do not deal there), free in godot v1.
    held = level_result(level_variant(must_play=("5", "T", "K")), 130, SIX, FIVE)
    assert (held.defender_level_after, held.levels) == (FIVE, 0)
    free = level_result(GODOT, 130, SIX, FIVE)
    assert (free.defender_level_after, free.levels) == (SIX, 1)
    # A rise still stops on a must-play rank it would pass: 3 + 3 stops on 5.
    assert level_result(GODOT, 0, rank_index("3"), TWO).dealer_level_after == FIVE


def test_r_match_dealer_same_or_next_keeps_the_seat() -> None:
    kept = level_result(GODOT, 40, TWO, TWO)
    lost = level_result(GODOT, 90, TWO, TWO)
    assert (next_dealer(GODOT, 1, kept), next_dealer(GODOT, 1, lost)) == (1, 2)
    assert next_dealer(CLASSIC, 1, level_result(CLASSIC, 40, TWO, TWO)) == 3


def test_r_level_match_points_name_the_side_and_its_points() -> None:
    assert [match_points(BOTZONE, p) for p in (-20, 0, 35, 75, 80, 155, 200)] == [
        ("dealer", 3),
        ("dealer", 3),
        ("dealer", 2),
        ("dealer", 1),
        ("defenders", 1),
        ("defenders", 2),
        ("defenders", 3),
    ]
    with pytest.raises(ValueError, match="match points, not levels"):
        level_result(BOTZONE, 120, TWO, TWO)
    with pytest.raises(ValueError, match="levels, not match points"):
        match_points(CLASSIC, 120)


# --- bidding ------------------------------------------------------------------------------------


def _bid(seat: int, kind: str, tokens: str) -> Bid:
    return Bid.parse(seat, kind, tokens)


def test_r_bid_botzone_caller_may_snatch_with_the_card_it_called_with() -> None:
    # Botzone's judger accepts ♣J, then ♣J♣J by the same seat (the called card shown again).
    held = parse_cards("CJ CJ S3")
    state = start_bidding("J", first_hand=True)
    state = apply_bid(BOTZONE, state, _bid(1, "declare", "CJ"), held=held)
    snatch = _bid(1, "overcall", "CJ CJ")
    assert check_bid(BOTZONE, state, snatch, held=held) is None
    state = apply_bid(BOTZONE, state, snatch, held=held)
    assert (state.dealer, state.trump) == (1, 2)
    # The same id twice passes its `in` test: one ♣J shows the pair.
    one = parse_cards("CJ S3")
    called = apply_bid(
        BOTZONE, start_bidding("J", first_hand=True), _bid(1, "declare", "CJ"), held=one
    )
    assert check_bid(BOTZONE, called, snatch, held=one) is None
    # Under the copies check the card shown before counts against the hand.
    copies = dataclasses.replace(
        BOTZONE, bidding=dataclasses.replace(BOTZONE.bidding, held_check=HeldCheck.COPIES)
    )
    called = apply_bid(
        copies, start_bidding("J", first_hand=True), _bid(1, "declare", "CJ"), held=held
    )
    reason = check_bid(copies, called, snatch, held=held)
    assert reason is not None and "亮过主的牌不能再次亮主" in reason
    # Still one snatch a deal, by anyone.
    after = apply_bid(BOTZONE, called, _bid(2, "overcall", "SJ SJ"), held=parse_cards("SJ SJ"))
    reason = check_bid(BOTZONE, after, _bid(3, "overcall", "LJ LJ"), held=parse_cards("LJ LJ"))
    assert reason == "botzone allows 1 overcall(s) in a hand; 1 made already"


def test_r_bid_godot_joker_with_a_level_card_of_its_colour() -> None:
    state = start_bidding("2", first_hand=True)
    black = parse_cards("LJ C2 C2 H5")
    bid = _bid(1, "declare", "LJ C2")
    assert check_bid(GODOT, state, bid, held=black) is None
    after = apply_bid(GODOT, state, bid, held=black)
    assert (after.dealer, after.trump, after.standing and after.standing.entry) == (1, 2, "J+1:*")
    assert check_bid(GODOT, state, _bid(1, "declare", "LJ C2 C2"), held=black) is None
    red = check_bid(GODOT, state, _bid(1, "declare", "BJ C2"), held=parse_cards("BJ C2"))
    assert red == "BJ shows only with ♥ or ♦ level cards (the joker's colour must match), not ♣2"
    missing = check_bid(GODOT, state, _bid(1, "declare", "LJ C2"), held=parse_cards("C2"))
    assert missing is not None and "holds 0 LJ" in missing
    alone = check_bid(GODOT, state, _bid(1, "declare", "C2"), held=black)
    assert alone is not None and "is not a declare in godot" in alone
    mixed = check_bid(GODOT, state, _bid(1, "declare", "LJ C2 H2"), held=black)
    assert mixed is not None and "one joker with copies of one level card" in mixed
    # 公主: a joker pair makes no-trump.
    jokers = parse_cards("BJ BJ")
    state = apply_bid(
        GODOT, start_bidding("3", first_hand=True), _bid(2, "declare", "BJ BJ"), held=jokers
    )
    assert (state.dealer, state.trump_known, state.trump) == (2, True, None)
    # A classic ladder has no joker entries.
    classic = check_bid(CLASSIC, start_bidding("2", first_hand=True), bid, held=black)
    assert classic == "a bid shows copies of one card, not LJ ♣2"


def test_godot_and_eighty_keep_their_preset_values() -> None:
    assert (GODOT.kitty.single, GODOT.kitty.pair, GODOT.kitty.tractor) == (1, 2, 2)
    assert GODOT.level.must_play == ("5", "T", "K")
    assert EIGHTY.order.tractor_duty and EIGHTY.level.rungs == ()
    assert Table(GODOT, "2", SPADES).context.tractor_duty is False
