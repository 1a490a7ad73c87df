"""The throw check, forced unit and penalty (R-THROW-CHECK, R-THROW-FORCE, R-THROW-PENALTY)."""

from __future__ import annotations

import dataclasses
import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.engine.cards import HEARTS, SPADES, Hand, full_deck, parse_cards, rank_index
from chaodipi.engine.lead import check_throw, lead_units
from chaodipi.engine.order import TrumpContext, trump_context
from chaodipi.engine.presets import ANHUI, CHANGSHU, CLASSIC, SHUANGSHENG, ruleset_from_mapping
from chaodipi.engine.ruleset import ForcedTie, ForcedUnit, Ruleset, RulesetError
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import canonical_split

LEVEL2 = rank_index("2")
CTX = trump_context(CLASSIC, LEVEL2, HEARTS)


def hands(*seats: str) -> list[Hand]:
    return [Hand(tokens) for tokens in seats]


def test_r_throw_check_classic_three_top_singles_stand() -> None:
    # 外面已打出梅花对A、梅花对K、梅花Q、梅花J、梅花10: ♣10 ♣J ♣Q may go together.
    table = hands("C10 CJ CQ S3", "C9 C9 C8 S4", "C7 C7 C3 S5", "C6 C5 C4 S6")
    verdict = check_throw(CTX, CLASSIC.throw, 0, parse_cards("C10 CJ CQ"), table)
    assert verdict.is_throw and verdict.stands
    assert (verdict.beaten, verdict.forced, verdict.penalty) == ((), None, 0)
    assert "stands" in verdict.reason


def test_r_throw_check_classic_king_and_jack_pair_stand() -> None:
    # 梅花K一张、梅花对J, 外面已打出梅花对A、梅花对Q: the other ♣K is only equal.
    table = hands("CK CJ CJ", "CK C10 C10", "C9 C9", "C8 C8 C3")
    verdict = check_throw(CTX, CLASSIC.throw, 0, parse_cards("CK CJ CJ"), table)
    assert verdict.stands


def test_r_throw_check_partner_counts_and_penalty_per_ruleset() -> None:
    table = hands("CK CJ CJ", "C10 C10", "CQ CQ", "C3")
    cards = parse_cards("CK CJ CJ")
    expected = {CLASSIC: 30, ANHUI: 20, SHUANGSHENG: 0, CHANGSHU: 0}
    for ruleset, penalty in expected.items():
        ctx = trump_context(ruleset, LEVEL2, HEARTS)
        verdict = check_throw(ctx, ruleset.throw, 0, cards, table)
        assert not verdict.stands
        assert [(b.unit.label(), b.seat, b.by.label()) for b in verdict.beaten] == [
            ("♣J ♣J", 2, "♣Q ♣Q")
        ]
        assert verdict.forced is not None and verdict.forced.label() == "♣J ♣J"
        assert verdict.penalty == penalty


def test_r_throw_penalty_messages() -> None:
    table = hands("CK CJ CJ", "C10 C10", "CQ CQ", "C3")
    cards = parse_cards("CK CJ CJ")
    classic = check_throw(CTX, CLASSIC.throw, 0, cards, table)
    assert classic.reason == (
        "♣K ♣J ♣J thrown by seat 0 fails: seat 2 holds ♣Q ♣Q over ♣J ♣J; forced ♣J ♣J; "
        "penalty 30 points"
    )
    ctx = trump_context(SHUANGSHENG, LEVEL2, HEARTS)
    stake = check_throw(ctx, SHUANGSHENG.throw, 0, cards, table)
    assert stake.penalty == 0 and "half the table stake (底金) is charged" in stake.reason


def test_r_throw_check_cs_message_example() -> None:
    ctx = trump_context(CHANGSHU, rank_index("6"), HEARTS)
    table = hands("CK C3", "C2 C2", "CA CK CK C4", "CA CA C9")
    verdict = check_throw(ctx, CHANGSHU.throw, 2, parse_cards("CA CK CK"), table)
    assert verdict.reason == (
        "♣A ♣K ♣K thrown by seat 2 fails: seat 3 holds ♣A ♣A over ♣K ♣K; forced ♣K ♣K"
    )
    assert verdict.penalty == 0


def test_r_throw_check_cs_triple_beats_a_pair() -> None:
    ctx = trump_context(CHANGSHU, rank_index("6"), HEARTS)
    table = hands("CQ CJ CJ", "CK CK CK", "C3", "C4")
    verdict = check_throw(ctx, CHANGSHU.throw, 0, parse_cards("CQ CJ CJ"), table)
    assert [(b.unit.label(), b.by.label()) for b in verdict.beaten] == [
        ("♣J ♣J", "♣K ♣K"),
        ("♣Q", "♣K"),
    ]
    assert verdict.forced is not None and verdict.forced.label() == "♣Q"


def test_r_throw_check_longer_tractor_contains_a_higher_one() -> None:
    table = hands("C5 C5 C6 C6 CA", "S3", "S4", "C8 C8 C9 C9 C10 C10")
    verdict = check_throw(CTX, CLASSIC.throw, 0, parse_cards("C5 C5 C6 C6 CA"), table)
    assert [(b.seat, b.by.label()) for b in verdict.beaten] == [(3, "♣9 ♣9 ♣10 ♣10")]
    assert verdict.forced is not None and verdict.forced.shape == (2, 2)
    assert verdict.penalty == 50


def test_r_throw_check_trumping_is_not_considered() -> None:
    table = hands("CA CK", "H3 H3 BJ", "S3", "C3")
    assert check_throw(CTX, CLASSIC.throw, 0, parse_cards("CA CK"), table).stands


def test_r_throw_check_one_unit_is_no_throw() -> None:
    table = hands("CK CK", "CA CA", "S3", "S4")
    verdict = check_throw(CTX, CLASSIC.throw, 0, parse_cards("CK CK"), table)
    assert not verdict.is_throw and verdict.stands and verdict.penalty == 0


def test_r_throw_force_smallest_fewest_cards_then_lowest() -> None:
    # Beaten: ♣J ♣J (by seat 1) and ♣8 ♣8 (seats 1 and 3): the lower pair is forced.
    table = hands("CJ CJ C8 C8", "CQ CQ", "S3", "C10 C10")
    verdict = check_throw(CTX, CLASSIC.throw, 0, parse_cards("CJ CJ C8 C8"), table)
    assert [(b.unit.label(), b.seat) for b in verdict.beaten] == [
        ("♣J ♣J", 1),
        ("♣8 ♣8", 1),
        ("♣8 ♣8", 3),
    ]
    assert verdict.forced is not None and verdict.forced.label() == "♣8 ♣8"
    # A beaten single is forced before a beaten pair.
    table = hands("CJ CJ C9", "CQ CQ C10", "S3", "S4")
    verdict = check_throw(CTX, CLASSIC.throw, 0, parse_cards("CJ CJ C9"), table)
    assert verdict.forced is not None and verdict.forced.label() == "♣9"


def _brute_beaters(ctx: TrumpContext, counts: list[int], shape: tuple[int, int], top: int) -> int:
    """Highest top strength of any sub-multiset forming one unit of ``shape`` above ``top``."""
    suit = ctx.suit[top]
    cards = [k for k in range(54) for _ in range(counts[k]) if ctx.suit[k] == suit]
    best = -1
    for combo in set(combinations(cards, shape[0] * shape[1])):
        units = canonical_split(ctx, combo)
        if len(units) == 1 and units[0].shape == shape:
            strength = ctx.strength[units[0].top]
            if strength > ctx.strength[top]:
                best = max(best, strength)
    return best


RULESETS = [CLASSIC, SHUANGSHENG, ANHUI, CHANGSHU]


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(RULESETS))
def test_r_throw_check_agrees_with_brute_force(seed: int, ruleset: Ruleset) -> None:
    rng = random.Random(seed)
    ctx = trump_context(ruleset, rng.randrange(13), rng.choice([0, 1, 2, 3, None]))
    # Few suits, few cards: the brute force stays small but units are common.
    suit = rng.choice([s for s in range(5) if sum(ctx.suit[k] == s for k in range(54)) >= 6])
    deck = [k for k in full_deck(ruleset.decks) if ctx.suit[k] == suit]
    rng.shuffle(deck)
    size = min(6, len(deck) // 4)
    table = [Hand(deck[i * size : (i + 1) * size]) for i in range(4)]
    leader = rng.randrange(4)
    mine = list(table[leader])
    cards = rng.sample(mine, rng.randint(2, len(mine)))
    verdict = check_throw(ctx, ruleset.throw, leader, cards, table)
    assert verdict.units == lead_units(ctx, cards)
    found = {(b.unit, b.seat): ctx.strength[b.by.top] for b in verdict.beaten}
    if not verdict.is_throw:
        return
    for unit in verdict.units:
        for seat in range(4):
            if seat == leader:
                continue
            expected = _brute_beaters(ctx, table[seat].counts, unit.shape, unit.top)
            assert found.get((unit, seat), -1) == expected
    assert verdict.stands == (not found)


# --- R-THROW-FORCE-TIE: tied smallest units -----------------------------------------------------

SPADES_2 = trump_context(CLASSIC, LEVEL2, SPADES)


def test_r_throw_force_tie_other_level_singles_are_each_acceptable() -> None:
    # Trump ♠ at level 2: ♣2 and ♥2 are equal trumps, both beaten by seat 1's ♠2.
    table = hands("C2 H2 S9", "S2 D3", "S5", "S6")
    verdict = check_throw(SPADES_2, CLASSIC.throw, 0, parse_cards("C2 H2"), table)
    assert [u.label() for u in verdict.forced_options] == ["♥2", "♣2"]
    assert verdict.tied == verdict.forced_options
    assert verdict.accepts_forced(parse_cards("C2")) and verdict.accepts_forced(parse_cards("H2"))
    assert not verdict.accepts_forced(parse_cards("C2 H2"))
    assert verdict.penalty == 20
    assert "forced ♥2 (or ♣2, tied with it)" in verdict.reason


def test_r_throw_force_tie_level_pairs_under_no_trump() -> None:
    # No-trump at level 6: ♦6 ♦6 and ♣6 ♣6 are equal pairs, both beaten by seat 2's LJ LJ.
    ctx = trump_context(CLASSIC, rank_index("6"), None)
    table = hands("D6 D6 C6 C6", "S3", "LJ LJ", "S4")
    verdict = check_throw(ctx, CLASSIC.throw, 0, parse_cards("D6 D6 C6 C6"), table)
    assert sorted(u.label() for u in verdict.forced_options) == ["♣6 ♣6", "♦6 ♦6"]
    assert verdict.accepts_forced(parse_cards("C6 C6")) and verdict.accepts_forced(
        parse_cards("D6 D6")
    )


def test_r_throw_force_tie_only_units_of_one_shape_and_equal_order_tie() -> None:
    # ♣2 and ♥2 tie; LJ (beaten by the big joker) is higher and is never an option.
    table = hands("C2 H2 LJ", "S2 BJ", "S5", "S6")
    verdict = check_throw(SPADES_2, CLASSIC.throw, 0, parse_cards("C2 H2 LJ"), table)
    assert [u.label() for u in verdict.forced_options] == ["♥2", "♣2"]
    assert not verdict.accepts_forced(parse_cards("LJ"))
    # One smallest unit: no tie, one option.
    alone = check_throw(SPADES_2, CLASSIC.throw, 0, parse_cards("C2 LJ"), table)
    assert [u.label() for u in alone.forced_options] == ["♣2"]
    assert "tied" not in alone.reason


@pytest.mark.parametrize(
    ("forced_unit", "attempt", "picked"),
    [
        (ForcedUnit.SMALLEST, "C2 H2", "♣2"),
        (ForcedUnit.SMALLEST, "H2 C2", "♥2"),
        (ForcedUnit.LOWEST_TOP, "C2 H2 LJ", "♣2"),
        (ForcedUnit.LOWEST_BEATEN_CARD, "H2 C2", "♥2"),
    ],
)
def test_r_throw_force_tie_a_variant_may_name_the_first_in_the_attempt(
    forced_unit: ForcedUnit, attempt: str, picked: str
) -> None:
    rules = dataclasses.replace(
        CLASSIC.throw, forced_unit=forced_unit, forced_tie=ForcedTie.ATTEMPT_ORDER
    )
    table = hands("C2 H2 S9", "S2 SA D3", "S5", "S6")
    verdict = check_throw(SPADES_2, rules, 0, parse_cards(attempt), table)
    assert [u.label() for u in verdict.forced_options] == [picked]
    assert sorted(u.label() for u in verdict.tied) == ["♣2", "♥2"]
    assert verdict.forced is not None and verdict.forced.label() == picked


def test_r_throw_force_tie_attempt_order_of_equal_pairs_under_no_trump() -> None:
    # The 80-fen program's examples: [♦6 ♦6 ♣6 ♣6] forces ♦6 ♦6 (its first tied unit).
    rules = dataclasses.replace(
        CLASSIC.throw, forced_unit=ForcedUnit.LOWEST_TOP, forced_tie=ForcedTie.ATTEMPT_ORDER
    )
    ctx = trump_context(CLASSIC, rank_index("6"), None)
    table = hands("D6 D6 C6 C6", "S3", "LJ LJ", "S4")
    for attempt, picked in (("D6 D6 C6 C6", "♦6 ♦6"), ("C6 D6 C6 D6", "♣6 ♣6")):
        verdict = check_throw(ctx, rules, 0, parse_cards(attempt), table)
        assert [u.label() for u in verdict.forced_options] == [picked]


@pytest.mark.parametrize("ruleset", [CLASSIC, SHUANGSHENG, ANHUI, CHANGSHU], ids=lambda r: r.id)
def test_r_throw_force_tie_the_presets_accept_any_tied_unit(ruleset: Ruleset) -> None:
    assert ruleset.throw.forced_tie is ForcedTie.ANY
    loaded = ruleset_from_mapping({"base": ruleset.id, "throw": {"forced_tie": "attempt_order"}})
    assert loaded.throw.forced_tie is ForcedTie.ATTEMPT_ORDER
    with pytest.raises(
        RulesetError, match=r"throw\.forced_tie: expected one of any, attempt_order"
    ):
        ruleset_from_mapping({"base": ruleset.id, "throw": {"forced_tie": "first"}})


# --- shengji-godot's dumps (challenge_dump, determine_winner) ----------------------------------

GODOT_DUMPS = ruleset_from_mapping({"base": "godot", "throw": {"allowed": True}})
GODOT_CTX = trump_context(GODOT_DUMPS, LEVEL2, SPADES)


def test_r_throw_check_godot_tractor_falls_to_a_pair_above_its_lowest() -> None:
    # challenge_dump checks a dump's pairs one by one: ♣9 ♣9 over ♣8 ♣8 beats ♣7♣7♣8♣8.
    table = hands("C7 C7 C8 C8 CA", "C9 C9 C3", "C4", "C5")
    verdict = check_throw(GODOT_CTX, GODOT_DUMPS.throw, 0, parse_cards("C7 C7 C8 C8 CA"), table)
    assert not verdict.stands
    assert [(b.unit.label(), b.by.label()) for b in verdict.beaten] == [("♣7 ♣7 ♣8 ♣8", "♣9 ♣9")]
    # The classic check asks for a tractor to beat a tractor.
    classic = check_throw(CTX, CLASSIC.throw, 0, parse_cards("C7 C7 C8 C8 CA"), table)
    assert classic.stands


def test_r_throw_force_godot_plays_the_lowest_card_of_the_dump() -> None:
    # _smallest_card: the lowest card of the whole dump, beaten or not (♣K is the one beaten).
    table = hands("CK C3 C3", "CA", "C2", "S5")
    verdict = check_throw(GODOT_CTX, GODOT_DUMPS.throw, 0, parse_cards("CK C3 C3"), table)
    assert [u.label() for u in verdict.forced_options] == ["♣3"]
    assert verdict.penalty == 0
    # Equal cards (other suits' level cards): the first listed.
    table = hands("C2 H2 LJ", "BJ", "S5", "S6")
    for attempt, picked in (("C2 H2 LJ", "♣2"), ("LJ H2 C2", "♥2")):
        verdict = check_throw(GODOT_CTX, GODOT_DUMPS.throw, 0, parse_cards(attempt), table)
        assert [u.label() for u in verdict.forced_options] == [picked]


def _godot_winner(lead: str, *follows: str) -> int:
    units = lead_units(GODOT_CTX, parse_cards(lead))
    return trick_winner(GODOT_CTX, units, [parse_cards(f) for f in follows])


def test_r_win_godot_a_follow_takes_its_suit_from_its_first_card() -> None:
    # game_log_dump_enforced.json trick 5: ♥5 ♥9 ♣6 answers ♥A ♥A ♥K and wins, the program
    # ranking side suits ♠ < ♥ < ♦ < ♣ by its sort values.
    assert _godot_winner("HA HA HK", "H3 H4 H4", "H5 H9 C6", "D3 D3 D4") == 2
    # Listed club first, the same cards are a discard.
    assert _godot_winner("HA HA HK", "H3 H4 H4", "C6 H5 H9", "D3 D3 D4") == 0


def test_r_win_godot_any_dump_answers_a_dump_and_the_first_trump_one_takes_it() -> None:
    # A same-suit dump of another shape with a higher card wins; a pair of trumps (not a dump)
    # does not trump two singles; the first trump dump takes the trick, a later one must be higher.
    assert _godot_winner("D10 D8 D7", "DQ DQ DK") == 1
    assert _godot_winner("DA DK", "S3 S3") == 0
    assert _godot_winner("DA DK", "S3 S4", "SA SK", "S5 S6") == 2
    # Pairs of consecutive ranks are a tractor for the program, not a dump, in any suits.
    assert _godot_winner("DA DK DQ DJ", "D3 D3 C4 C4") == 0
