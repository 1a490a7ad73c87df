"""Ruleset fields that say the foreign programs' rules (docs/foreign-formats.md), and that the
four presets keep their behaviour: every new field defaults to what the presets did."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.engine.bidding import (
    Bid,
    BidKind,
    RecordedDraw,
    Unsupported,
    apply_bid,
    bury,
    check_bid,
    end_drawing,
    fallback_trump,
    start_bidding,
)
from chaodipi.engine.cards import DIAMONDS, HEARTS, KINDS, Hand, parse_cards, rank_index
from chaodipi.engine.follow import check_follow
from chaodipi.engine.lead import check_throw, lead_units
from chaodipi.engine.level import level_result
from chaodipi.engine.order import TrumpContext, trump_context
from chaodipi.engine.presets import (
    ANHUI,
    BOTZONE,
    CHANGSHU,
    CLASSIC,
    PRESETS,
    SHUANGSHENG,
    ruleset_from_mapping,
)
from chaodipi.engine.ruleset import (
    BiddingRule,
    ForcedUnit,
    KittyRule,
    Outcome,
    PenaltyBasis,
    Ruleset,
    RulesetError,
    ThrowCompare,
    TrumpFallback,
    validate,
)
from chaodipi.engine.scoring import kitty_multiplier
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import Unit

TWO = rank_index("2")
SIX = rank_index("6")


def variant(**sections: object) -> Ruleset:
    return dataclasses.replace(CLASSIC, id="variant", **sections)  # type: ignore[arg-type]


def throw_variant(**fields: object) -> Ruleset:
    return variant(throw=dataclasses.replace(CLASSIC.throw, **fields))  # type: ignore[arg-type]


def order_variant(**fields: object) -> Ruleset:
    return variant(order=dataclasses.replace(CLASSIC.order, **fields))  # type: ignore[arg-type]


def hands(*seats: str) -> list[Hand]:
    return [Hand(tokens) for tokens in seats]


def labels(units: Sequence[Unit]) -> list[str]:
    return [u.label() for u in units]


# --- presets unchanged ----------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", [CLASSIC, SHUANGSHENG, ANHUI, CHANGSHU], ids=lambda r: r.id)
def test_variant_fields_default_to_the_presets_behaviour(ruleset: Ruleset) -> None:
    assert (ruleset.order.throw_tractor_duty, ruleset.order.throw_compare) == (
        True,
        ThrowCompare.LARGEST_UNIT,
    )
    assert ruleset.throw.forced_unit is ForcedUnit.SMALLEST
    assert ruleset.throw.penalty_basis in (PenaltyBasis.ATTEMPT, PenaltyBasis.FORCED_UNIT)
    assert (ruleset.kitty.per_card, ruleset.kitty.throw_per_card) == (0, 0)
    assert ruleset.bidding.max_overcalls is None
    fallbacks = {ruleset.bidding.fallback_first_hand, ruleset.bidding.fallback_later_hands}
    assert not fallbacks & {TrumpFallback.NO_TRUMP, TrumpFallback.RECORDED}
    ctx = trump_context(ruleset, TWO, HEARTS)
    assert (ctx.throw_tractor_duty, ctx.throw_compare) == (True, ThrowCompare.LARGEST_UNIT)


def test_variant_fields_load_from_a_house_variant_file() -> None:
    loaded = ruleset_from_mapping(
        {
            "base": "classic",
            "id": "foreign-like",
            "order": {"throw_tractor_duty": False, "throw_compare": "highest_card"},
            "throw": {"forced_unit": "lowest_beaten_card", "penalty_basis": "beatable_units"},
            "kitty": {"per_card": 1, "throw_per_card": 2},
            "bidding": {
                "ladder": ["1:*", "2:*", "2:LJ", "2:BJ"],
                "declare_bids": ["1:*"],
                "overcall_bids": ["2:*", "2:LJ", "2:BJ"],
                "chao_di_bids": [],
                "max_overcalls": 1,
                "fallback_first_hand": "recorded",
                "fallback_later_hands": "no_trump",
            },
        }
    )
    assert loaded.order.throw_compare is ThrowCompare.HIGHEST_CARD
    assert loaded.throw.forced_unit is ForcedUnit.LOWEST_BEATEN_CARD
    assert loaded.throw.penalty_basis is PenaltyBasis.BEATABLE_UNITS
    assert (loaded.kitty.per_card, loaded.kitty.throw_per_card) == (1, 2)
    assert loaded.bidding.max_overcalls == 1
    assert loaded.bidding.fallback_later_hands is TrumpFallback.NO_TRUMP
    with pytest.raises(RulesetError, match="max_overcalls"):
        ruleset_from_mapping({"base": "classic", "id": "x", "bidding": {"max_overcalls": -1}})
    assert "foreign-like" not in PRESETS  # loading does not register


# --- throws: forced unit and penalty ----------------------------------------------------------


def test_variant_throw_force_lowest_top_even_when_not_beaten() -> None:
    # eighty deal-shapes seq 128: ♠10♠10 + ♠Q thrown, only ♠Q is beaten, the pair is forced.
    table = hands("ST ST SQ", "SK S3", "S4", "S5")
    cards = parse_cards("ST ST SQ")
    ruleset = throw_variant(forced_unit=ForcedUnit.LOWEST_TOP, penalty_per_card=0)
    verdict = check_throw(trump_context(ruleset, TWO, HEARTS), ruleset.throw, 0, cards, table)
    assert labels([b.unit for b in verdict.beaten]) == ["♠Q"]
    assert verdict.forced is not None and verdict.forced.label() == "♠10 ♠10"
    assert verdict.penalty == 0
    classic = check_throw(trump_context(CLASSIC, TWO, HEARTS), CLASSIC.throw, 0, cards, table)
    assert classic.forced is not None and classic.forced.label() == "♠Q"


def test_variant_throw_force_lowest_top_tie_takes_the_larger_unit() -> None:
    # Trump ♥, level 2: ♠2♠2 and ♣2 share the other-level place; the pair comes first.
    table = hands("S2 S2 C2", "H2", "S3", "S4")
    ruleset = throw_variant(forced_unit=ForcedUnit.LOWEST_TOP)
    ctx = trump_context(ruleset, TWO, HEARTS)
    verdict = check_throw(ctx, ruleset.throw, 0, parse_cards("S2 S2 C2"), table)
    assert verdict.forced is not None and verdict.forced.label() == "♠2 ♠2"


def test_variant_throw_force_lowest_beaten_card_is_one_card() -> None:
    # botzone: ♠9♠9 (beaten by ♠Q♠Q) and ♠K (beaten by ♠A): one ♠9 is led, 10 x 3 fined.
    table = hands("S9 S9 SK", "SQ SQ", "SA", "S3")
    cards = parse_cards("S9 S9 SK")
    ruleset = throw_variant(
        forced_unit=ForcedUnit.LOWEST_BEATEN_CARD, penalty_basis=PenaltyBasis.BEATABLE_UNITS
    )
    verdict = check_throw(trump_context(ruleset, TWO, HEARTS), ruleset.throw, 0, cards, table)
    assert verdict.forced == Unit(1, tuple(parse_cards("S9")))
    assert verdict.penalty == 30


def test_variant_throw_force_lowest_beaten_card_of_a_tractor_is_its_lowest() -> None:
    # ♠5♠5♠6♠6 is beaten by ♠8♠8♠9♠9, ♠A by nothing: the tractor's first (lowest) card.
    table = hands("S5 S5 S6 S6 SA", "S8 S8 S9 S9", "S3", "S4")
    ruleset = throw_variant(forced_unit=ForcedUnit.LOWEST_BEATEN_CARD)
    ctx = trump_context(ruleset, TWO, HEARTS)
    verdict = check_throw(ctx, ruleset.throw, 0, parse_cards("S5 S5 S6 S6 SA"), table)
    assert verdict.forced == Unit(1, tuple(parse_cards("S5")))


def test_r_throw_force_tie_lowest_beaten_card_ties_tops_of_any_shape() -> None:
    # Trumps ♥ at 2: ♣2♣2 (beaten by LJ LJ) and ♠2 (beaten by BJ) have tops of equal order;
    # one card of either may be forced, as the Botzone judger looks at the tops alone.
    table = hands("C2 C2 S2", "LJ LJ BJ", "S5", "S6")
    ruleset = throw_variant(forced_unit=ForcedUnit.LOWEST_BEATEN_CARD)
    ctx = trump_context(ruleset, TWO, HEARTS)
    verdict = check_throw(ctx, ruleset.throw, 0, parse_cards("C2 C2 S2"), table)
    assert [u.label() for u in verdict.forced_options] == ["♠2", "♣2"]
    assert verdict.accepts_forced(parse_cards("S2")) and verdict.accepts_forced(parse_cards("C2"))


def test_variant_penalty_beatable_units_counts_each_beaten_unit_once() -> None:
    # ♠9♠9 is beaten by two seats, ♠K by one, ♠A by none: 10 x (2 + 1).
    table = hands("S9 S9 SK SA", "SQ SQ", "SA", "ST ST")
    cards = parse_cards("S9 S9 SK SA")
    due = {PenaltyBasis.BEATABLE_UNITS: 30, PenaltyBasis.ATTEMPT: 40, PenaltyBasis.FORCED_UNIT: 10}
    for basis, penalty in due.items():
        ruleset = throw_variant(penalty_basis=basis)
        verdict = check_throw(trump_context(ruleset, TWO, HEARTS), ruleset.throw, 0, cards, table)
        assert [b.seat for b in verdict.beaten] == [1, 3, 2]
        assert verdict.penalty == penalty, basis


# --- kitty multiplier ---------------------------------------------------------------------------


def _units(ctx: TrumpContext, tokens: str) -> tuple[Unit, ...]:
    return lead_units(ctx, parse_cards(tokens))


def _refused(ctx: TrumpContext, lead: tuple[Unit, ...], hand: Hand, tokens: str) -> str:
    """The code of the follow check's problem with the follow ``tokens``; "" when legal."""
    problem = check_follow(ctx, lead, hand, parse_cards(tokens))
    return "" if problem is None else problem.code


@pytest.mark.parametrize(
    ("lead", "stood", "eighty", "botzone"),
    [
        ("S7", False, 2, 1),
        ("S7 S7", False, 4, 2),
        ("S7 S7 S8 S8", False, 8, 4),
        ("S7 S7 S8 S8 S9 S9", False, 12, 6),
        ("SA SK", True, 4, 2),  # eighty deal-shapes' last lead: two singles thrown
        ("SA SK SK", True, 6, 4),
        ("S7 S7 S8 S8 SA", True, 10, 8),
    ],
)
def test_variant_kitty_per_card_and_throw_per_card(
    lead: str, stood: bool, eighty: int, botzone: int
) -> None:
    per_card_everywhere = variant(kitty=KittyRule(per_card=2, throw_per_card=2))
    per_card_plain = variant(kitty=KittyRule(per_card=1))  # throws keep the shape table
    ctx = trump_context(CLASSIC, TWO, HEARTS)
    units = _units(ctx, lead)
    assert (len(units) > 1) == stood  # a standing throw has several units
    assert kitty_multiplier(per_card_everywhere, units) == eighty
    assert kitty_multiplier(per_card_plain, units) == botzone


def test_variant_kitty_flat_throw_wins_over_throw_per_card() -> None:
    rule = variant(kitty=KittyRule(throw=2, throw_per_card=2))
    units = _units(trump_context(CLASSIC, TWO, HEARTS), "S7 S7 S8 S8 SA")
    assert kitty_multiplier(rule, units) == 2


# --- following ----------------------------------------------------------------------------------


def test_variant_follow_no_tractor_duty_inside_a_throw() -> None:
    no_duty = trump_context(order_variant(throw_tractor_duty=False), TWO, HEARTS)
    duty = trump_context(CLASSIC, TWO, HEARTS)
    lead = _units(duty, "S5 S5 S6 S6 SA")
    hand = Hand("S8 S8 S9 S9 SJ SJ S3 D4")
    pairs_only = parse_cards("S8 S8 SJ SJ S3")
    assert check_follow(no_duty, lead, hand, pairs_only) is None
    problem = check_follow(duty, lead, hand, pairs_only)
    assert problem is not None and problem.code == "FOLLOW_SHAPE"
    # The pairs are still owed.
    one_pair = parse_cards("S8 S9 SJ SJ S3")
    for ctx in (no_duty, duty):
        problem = check_follow(ctx, lead, hand, one_pair)
        assert problem is not None and problem.code == "FOLLOW_SHAPE"
    # A tractor led on its own keeps its duty.
    tractor = _units(duty, "S5 S5 S6 S6")
    assert check_follow(no_duty, tractor, hand, parse_cards("S8 S8 SJ SJ")) is not None


def test_r_follow_suit_botzone_same_type_follow_not_suit_checked() -> None:
    # checkLegalMove: a hand with no ♠ pair answers ♠9 ♠9 with ♣7 ♣7, keeping ♠3 ♠5.
    free = trump_context(BOTZONE, TWO, HEARTS)
    ours = trump_context(CLASSIC, TWO, HEARTS)
    pair = _units(ours, "S9 S9")
    hand = Hand("S3 S5 C7 C7 D4")
    assert _refused(free, pair, hand, "C7 C7") == ""
    assert _refused(ours, pair, hand, "C7 C7") == "FOLLOW_REVOKE"
    # A ♠ pair held owes it; another shape than the lead's owes the suit.
    for cards, tokens in (("S3 S3 S5 C7 C7", "C7 C7"), ("S3 S5 C7 C8 D4", "C7 C8")):
        assert _refused(free, pair, Hand(cards), tokens) == "FOLLOW_REVOKE"
    # A tractor answers a tractor from a hand holding none of ♠; a ♠ tractor held owes it.
    tractor = _units(ours, "S9 S9 S8 S8")
    assert _refused(free, tractor, Hand("S3 S3 S5 S5 C7 C7 C8 C8"), "C7 C7 C8 C8") == ""
    assert (
        _refused(free, tractor, Hand("S3 S3 S4 S4 C7 C7 C8 C8"), "C7 C7 C8 C8") == "FOLLOW_REVOKE"
    )
    # checkWinner takes such a play all of trump as a ruff, one of another side suit never.
    follows = [parse_cards("C7 C7"), parse_cards("H4 H4"), parse_cards("S3 S5")]
    assert trick_winner(free, pair, follows) == 2
    assert trick_winner(free, pair, [parse_cards("C7 C7"), parse_cards("D4 D4")]) == 0


def test_r_follow_shape_botzone_throw_of_pairs_and_singles_owes_no_pairs() -> None:
    # checkLegalMove checks a throw's structure only when its largest unit is a tractor.
    free = trump_context(BOTZONE, TWO, HEARTS)
    ours = trump_context(CLASSIC, TWO, HEARTS)
    throw = _units(ours, "SA SA SK")
    hand = Hand("S3 S3 S5 S6 D4")
    assert _refused(free, throw, hand, "S3 S5 S6") == ""
    assert _refused(ours, throw, hand, "S3 S5 S6") == "FOLLOW_SHAPE"
    # The suit is still owed, and a throw holding a tractor keeps its structure duty.
    assert _refused(free, throw, hand, "S3 S5 D4") == "FOLLOW_REVOKE"
    with_tractor = _units(ours, "SA SA SK SK S9")
    assert (
        _refused(free, with_tractor, Hand("S3 S3 S4 S4 S6 S7 D4"), "S3 S3 S4 S6 S7")
        == "FOLLOW_SHAPE"
    )


def test_r_unit_botzone_joker_pairs_inside_a_throw_are_no_tractor() -> None:
    # checkThrow links no jokers: LJ LJ BJ BJ is a tractor led alone, two pairs in a throw.
    ctx = trump_context(BOTZONE, TWO, HEARTS)
    assert labels(lead_units(ctx, parse_cards("LJ LJ BJ BJ"))) == ["LJ LJ BJ BJ"]
    throw = lead_units(ctx, parse_cards("LJ LJ BJ BJ H5"))
    assert labels(throw) == ["BJ BJ", "LJ LJ", "♥5"]
    assert kitty_multiplier(BOTZONE, throw) == 4  # the largest unit a pair
    ours = lead_units(trump_context(CLASSIC, TWO, HEARTS), parse_cards("LJ LJ BJ BJ H5"))
    assert labels(ours) == ["LJ LJ BJ BJ", "♥5"]
    # A follower owes the throw no tractor (nor, without one, any pair).
    hand = Hand("H3 H3 H4 H4 H6 H7 H8 S5")
    assert check_follow(ctx, throw, hand, parse_cards("H3 H4 H6 H7 H8")) is None


def _pair_count(cards: Sequence[int]) -> int:
    return sum(n // 2 for n in Counter(cards).values())


def _longest_tractor(ctx: TrumpContext, cards: Sequence[int]) -> int:
    counts = Counter(cards)
    longest = 0
    for start in counts:
        if counts[start] < 2:
            continue
        stack = [(start, 1)]
        while stack:
            kind, n = stack.pop()
            longest = max(longest, n if n >= 2 else 0)
            stack += [(up, n + 1) for up in ctx.link_up[kind] if counts[up] >= 2]
    return longest


def _eighty_follow_ok(
    ctx: TrumpContext, lead: list[int], units: Sequence[Unit], hand: list[int], play: Sequence[int]
) -> bool:
    """80-fen-shengji's ``followError`` (src/rules.js) with its default rules, returning ok."""
    suit = ctx.suit[lead[0]]
    held = [k for k in hand if ctx.suit[k] == suit]
    followed = [k for k in play if ctx.suit[k] == suit]
    if len(followed) != min(len(lead), len(held)):
        return False
    if _pair_count(followed) < min(_pair_count(lead), _pair_count(held)):
        return False
    if len(units) == 1 and units[0].is_tractor:
        longest = _longest_tractor(ctx, held)
        length = units[0].length
        required = length if longest >= length else longest if longest >= 2 else 0
        return _longest_tractor(ctx, followed) >= required
    return True


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_variant_follow_matches_the_eighty_program(seed: int) -> None:
    # Shorter tractors owed to a tractor lead (partialTractorFollow), none inside a throw.
    ruleset = order_variant(follow_shorter_tractors=True, throw_tractor_duty=False)
    rng = random.Random(seed)
    ctx = trump_context(ruleset, rng.randrange(13), rng.choice([0, 1, 2, 3, None]))
    suit = rng.choice([s for s in range(5) if len(ctx.steps[s]) >= 8])
    low = rng.randrange(len(ctx.steps[suit]) - 7)
    band = [step[0] for step in ctx.steps[suit][low : low + 8]]
    pool = band * 2
    if rng.random() < 0.6:
        start, length = rng.randrange(3), rng.randint(2, 4)
        lead = [k for k in band[start : start + length] for _ in range(2)]
        lead += rng.sample([k for k in band if k not in lead], rng.randint(0, 1))
    else:
        lead = rng.sample(pool, rng.randint(2, 6))
    for k in lead:
        pool.remove(k)
    rng.shuffle(pool)
    hand = pool[: rng.randint(len(lead) + 1, 12)]
    hand.append(rng.choice([k for k in range(KINDS) if ctx.suit[k] != suit]))  # may revoke
    units = lead_units(ctx, lead)
    held = Hand(hand)
    for play in {tuple(sorted(c)) for c in combinations(hand, len(lead))}:
        ours = check_follow(ctx, units, held, play) is None
        assert ours == _eighty_follow_ok(ctx, lead, units, hand, play), (labels(units), play)


# --- the trick ----------------------------------------------------------------------------------


def test_variant_trick_throw_compared_by_highest_card() -> None:
    # ♠K♠K + ♠A thrown, trumps ♥: ♥3♥3 + ♥A against ♥5♥5 + ♥4.
    plays = [parse_cards(p) for p in ("SK SK SA", "H3 H3 HA", "H5 H5 H4", "S3 S4 S6")]
    highest = trump_context(order_variant(throw_compare=ThrowCompare.HIGHEST_CARD), TWO, HEARTS)
    largest = trump_context(CLASSIC, TWO, HEARTS)
    lead = _units(largest, "SK SK SA")
    assert trick_winner(largest, lead, plays[1:]) == 2  # the higher pair decides
    assert trick_winner(highest, lead, plays[1:]) == 1  # the single highest card decides


def test_r_win_botzone_throw_compared_by_largest_unit_top() -> None:
    # ♠K ♠Q thrown, trumps ♥: ♥A ♥3 and ♥A ♥5 tie on their largest unit's top (♥A); under
    # largest_unit_top the earlier play keeps the trick, under largest_unit ♥5 beats ♥3.
    plays = [parse_cards(p) for p in ("SK SQ", "HA H3", "HA H5", "S3 S4")]
    top = trump_context(order_variant(throw_compare=ThrowCompare.LARGEST_UNIT_TOP), TWO, HEARTS)
    largest = trump_context(CLASSIC, TWO, HEARTS)
    lead = _units(largest, "SK SQ")
    assert trick_winner(largest, lead, plays[1:]) == 2
    assert trick_winner(top, lead, plays[1:]) == 1
    # A higher top still wins: ♥A ♥3 after ♥K ♥Q.
    assert trick_winner(top, lead, [parse_cards("HK HQ"), parse_cards("HA H3")]) == 2


def test_variant_trick_throw_answer_must_split_like_the_throw() -> None:
    # Two ♠ pairs thrown; a ♥ tractor is not two pairs to the 80-fen program.
    plays = [parse_cards(p) for p in ("SQ SQ S9 S9", "H3 H3 H4 H4", "S3 S4 S5 S6", "S7 S8 ST SJ")]
    highest = trump_context(order_variant(throw_compare=ThrowCompare.HIGHEST_CARD), TWO, HEARTS)
    largest = trump_context(CLASSIC, TWO, HEARTS)
    lead = _units(largest, "SQ SQ S9 S9")
    assert trick_winner(largest, lead, plays[1:]) == 1
    assert trick_winner(highest, lead, plays[1:]) == 0
    # A single unit led is compared as before.
    pair = [parse_cards(p) for p in ("S9 S9", "H3 H3", "H5 H5", "SA SA")]
    assert trick_winner(highest, _units(largest, "S9 S9"), pair[1:]) == 2


# --- bidding ------------------------------------------------------------------------------------

HAND = parse_cards("S6 H6 C6 D6 LJ BJ") * 2
UNRANKED = ("1:*", "2:*", "2:LJ", "2:BJ")


def bid(seat: int, kind: BidKind, tokens: str) -> Bid:
    return Bid(seat, kind, tuple(parse_cards(tokens)))


def test_variant_bid_max_overcalls_caps_the_snatches() -> None:
    capped = variant(
        bidding=BiddingRule(
            ladder=UNRANKED,
            overcall_bids=UNRANKED[1:],
            chao_di_bids=(),
            lock=False,
            declarer_may_overcall=True,
            max_overcalls=1,
        )
    )
    state = start_bidding(SIX, first_hand=True)
    for b in (bid(0, BidKind.DECLARE, "H6"), bid(1, BidKind.OVERCALL, "D6 D6")):
        state = apply_bid(capped, state, b, held=HAND)
    third = bid(2, BidKind.OVERCALL, "LJ LJ")
    assert check_bid(capped, state, third, held=HAND) == (
        "variant allows 1 overcall(s) in a hand; 1 made already"
    )
    uncapped = variant(bidding=dataclasses.replace(capped.bidding, max_overcalls=None))
    assert check_bid(uncapped, state, third, held=HAND) is None


def test_variant_bid_lock_on_an_unranked_pair_ladder() -> None:
    # The 80-fen program: a level pair of any suit is one rung; a lock stands on it.
    rule = variant(
        bidding=BiddingRule(
            ladder=UNRANKED,
            declare_bids=UNRANKED,
            overcall_bids=UNRANKED[1:],
            chao_di_bids=(),
        )
    )
    validate(rule)  # a lock needs each suit's pair on the ladder, or 2:*
    state = apply_bid(
        rule, start_bidding(SIX, first_hand=True), bid(0, BidKind.DECLARE, "H6"), held=HAND
    )
    assert check_bid(rule, state, bid(1, BidKind.OVERCALL, "S6 S6"), held=HAND) is None
    locked = apply_bid(rule, state, bid(0, BidKind.LOCK, "H6"), held=HAND)
    assert locked.standing is not None and locked.standing.entry == "2:*"
    reason = check_bid(rule, locked, bid(1, BidKind.OVERCALL, "S6 S6"), held=HAND)
    assert reason is not None and "not higher" in reason
    assert check_bid(rule, locked, bid(1, BidKind.OVERCALL, "LJ LJ"), held=HAND) is None


KITTY = parse_cards("S3 H4 C5 D6 S7 H8 C9 DT")


def _nobody_bid(fallback: TrumpFallback) -> Ruleset:
    return variant(
        bidding=dataclasses.replace(
            CLASSIC.bidding, fallback_first_hand=fallback, fallback_later_hands=fallback
        )
    )


def test_variant_fallback_no_trump_first_drawer_deals() -> None:
    ruleset = _nobody_bid(TrumpFallback.NO_TRUMP)
    result = fallback_trump(ruleset, KITTY, SIX, first_hand=True, first_drawer=2)
    assert not isinstance(result, Unsupported)
    assert (result.trump, result.decider) == (None, 2)
    state = bury(end_drawing(start_bidding(SIX, first_hand=True)), fallback=result)
    assert (state.dealer, state.trump_known, state.trump) == (2, True, None)
    later = fallback_trump(ruleset, KITTY, SIX, first_hand=False, first_drawer=2)
    assert not isinstance(later, Unsupported)
    kept = bury(end_drawing(start_bidding(SIX, first_hand=False, dealer=1)), fallback=later)
    assert (kept.dealer, kept.trump) == (1, None)


def test_variant_fallback_recorded_takes_the_records_trump_and_dealer() -> None:
    ruleset = _nobody_bid(TrumpFallback.RECORDED)
    drawn = RecordedDraw(trump=DIAMONDS, dealer=3)
    result = fallback_trump(ruleset, KITTY, SIX, first_hand=True, recorded=drawn)
    assert not isinstance(result, Unsupported)
    state = bury(end_drawing(start_bidding(SIX, first_hand=True)), fallback=result)
    assert (state.dealer, state.trump) == (3, DIAMONDS)
    missing = fallback_trump(ruleset, KITTY, SIX, first_hand=True)
    assert isinstance(missing, Unsupported) and "does not say" in missing.reason


# --- levels -------------------------------------------------------------------------------------


def test_variant_gates_are_must_play_ranks_passed_only_by_the_winning_dealer() -> None:
    # The 80-fen gates 2, 5, 10, K: a team passes one only by winning a hand it deals there.
    gates = variant(level=dataclasses.replace(CLASSIC.level, must_play=("2", "5", "T", "K")))
    held = level_result(gates, 110, TWO, TWO)  # eighty deal-25-tricks: defenders on gate 2
    assert (held.outcome, held.table_levels, held.levels) == (Outcome.DEFENDERS_UP, 1, 0)
    assert held.defender_level_after == TWO and held.next_deal == "defenders"
    stopped = level_result(gates, 10, rank_index("3"), TWO)  # D+3 from 3 stops on gate 5
    assert (stopped.dealer_level_after, stopped.stopped_at) == (rank_index("5"),) * 2
    passed = level_result(gates, 10, rank_index("5"), TWO)  # the dealer on 5 wins: 5 is played
    assert passed.dealer_level_after == rank_index("8")
