"""Who wins a trick (R-WIN, R-ORDER-TIE)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.engine.cards import (
    CLUBS,
    HEARTS,
    Hand,
    full_deck,
    parse_cards,
    points_of,
    rank_index,
)
from chaodipi.engine.follow import legal_follow
from chaodipi.engine.lead import lead_units
from chaodipi.engine.order import TrumpContext, trump_context
from chaodipi.engine.presets import ANHUI, CHANGSHU, CLASSIC, SHUANGSHENG
from chaodipi.engine.ruleset import Ruleset
from chaodipi.engine.trick import trick_winner

CTX = trump_context(CLASSIC, rank_index("6"), HEARTS)


def winner(ctx: TrumpContext, lead: str, *follows: str) -> int:
    cards = parse_cards(lead)
    return trick_winner(ctx, lead_units(ctx, cards), [parse_cards(f) for f in follows])


def test_r_win_higher_card_of_the_led_suit() -> None:
    assert winner(CTX, "C9", "CK", "C3", "CA") == 3
    assert winner(CTX, "C9", "C3", "C4", "C5") == 0


def test_r_win_off_suit_discard_never_wins() -> None:
    assert winner(CTX, "C9", "SA", "DA", "C3") == 0


def test_r_win_trump_beats_side_and_higher_trump_beats_trump() -> None:
    assert winner(CTX, "CA", "H2", "S6", "C3") == 2
    assert winner(CTX, "CA", "H2", "H3", "BJ") == 3


def test_r_win_two_trump_singles_do_not_beat_a_pair() -> None:
    # 若是两张主牌单张是无法杀掉对子的.
    assert winner(CTX, "C9 C9", "H2 H3", "BJ LJ", "C3 C4") == 0
    assert winner(CTX, "C9 C9", "H2 H3", "H2 H2", "C10 C10") == 2


def test_r_win_tractor_needs_a_tractor() -> None:
    # A trump pair and two singles do not beat a tractor; a trump tractor does.
    assert winner(CTX, "C9 C9 C10 C10", "H2 H2 H3 H4", "H2 H2 H3 H3", "CJ CJ CQ CQ") == 2
    # Two trump pairs that are no tractor do not either.
    assert winner(CTX, "C9 C9 C10 C10", "H2 H2 H4 H4", "S3 S3 S4 S4") == 0


def test_r_win_throw_largest_unit_first() -> None:
    # Lead ♣A ♣K ♣K (a pair and a single); trumps must also be a pair and a single.
    assert winner(CTX, "CA CK CK", "H2 H3 H4", "H2 H2 H3", "H3 H3 H2") == 3
    assert winner(CTX, "CA CK CK", "H3 H3 H2", "H3 H3 BJ") == 2
    # A follow that holds the shape in a better cut: ♥3♥3♥4♥4♥5♥5 as 44 55 + 33.
    assert winner(CTX, "C9 C9 C10 C10 C2 C2", "H3 H3 H4 H4 H7 H7", "H3 H3 H4 H4 H5 H5") == 2


def test_r_win_cs_triple() -> None:
    ctx = trump_context(CHANGSHU, rank_index("6"), CLUBS)
    assert winner(ctx, "S9 S9 S9", "C3 C3 C4", "C3 C3 C3", "SK SK SK") == 2


def test_r_order_tie_first_played_wins() -> None:
    # Level cards of the other suits are equal: the first played wins.
    assert winner(CTX, "C9", "S6", "D6", "C6") == 1
    assert winner(CTX, "C9 C9", "S6 S6", "D6 D6") == 1
    assert winner(CTX, "CA", "CA") == 0


def test_r_win_trick_points() -> None:
    assert points_of(parse_cards("C5 CT CK H2")) == 25


RULESETS = [CLASSIC, SHUANGSHENG, ANHUI, CHANGSHU]


def _permute_equal(rng: random.Random, ctx: TrumpContext) -> dict[int, int]:
    """A random permutation of the kinds within every step: equal cards trade places."""
    mapping: dict[int, int] = {}
    for steps in ctx.steps:
        for step in steps:
            shuffled = rng.sample(step, len(step))
            mapping.update(zip(step, shuffled, strict=True))
    return mapping


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(RULESETS))
def test_r_order_tie_winner_stable_under_equal_cards(seed: int, ruleset: Ruleset) -> None:
    rng = random.Random(seed)
    ctx = trump_context(ruleset, rng.randrange(13), rng.choice([0, 1, 2, 3, None]))
    deck = full_deck(ruleset.decks)
    rng.shuffle(deck)
    size = ruleset.hand_size
    table = [deck[i * size : (i + 1) * size] for i in range(4)]
    lead_suit = ctx.suit[table[0][0]]
    suited = [k for k in table[0] if ctx.suit[k] == lead_suit]
    lead = rng.sample(suited, rng.randint(1, min(3, len(suited))))
    units = lead_units(ctx, lead)
    plays = [lead] + [list(legal_follow(ctx, units, Hand(table[s]))) for s in (1, 2, 3)]
    first = trick_winner(ctx, units, plays[1:])
    mapping = _permute_equal(rng, ctx)
    swapped = [[mapping[k] for k in p] for p in plays]
    swapped_units = lead_units(ctx, swapped[0])
    assert [u.shape for u in swapped_units] == [u.shape for u in units]
    assert trick_winner(ctx, swapped_units, swapped[1:]) == first
