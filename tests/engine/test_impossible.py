"""Cards that cannot exist are refused before any search (R-HELD, R-LEAD, R-WIN)."""

from __future__ import annotations

import pytest

from chaodipi.engine.cards import HEARTS, parse_cards
from chaodipi.engine.lead import check_lead, lead_units
from chaodipi.engine.order import trump_context
from chaodipi.engine.presets import CHANGSHU, CLASSIC
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import SplitError, canonical_split


def test_r_held_a_lead_of_more_copies_than_the_decks_is_impossible() -> None:
    ctx = trump_context(CLASSIC, 4, HEARTS)
    verdict = check_lead(ctx, parse_cards("C7 C7 C7 C8 C8"))
    assert verdict is not None
    assert (verdict.code, verdict.rule) == ("CARDS_IMPOSSIBLE", "R-HELD")
    assert verdict.reason == "♣7 ♣7 ♣7 cannot be led: 2 decks hold 2 of each card"
    # Three decks hold a triple.
    assert check_lead(trump_context(CHANGSHU, 4, HEARTS), parse_cards("C7 C7 C7 C8 C8")) is None


def test_r_held_the_split_of_impossible_cards_is_refused() -> None:
    ctx = trump_context(CLASSIC, 4, HEARTS)
    with pytest.raises(SplitError, match="♣7 ♣7 ♣7 cannot exist: 2 decks hold 2"):
        canonical_split(ctx, parse_cards("C7 C7 C7 C8"))


def test_r_win_a_play_of_impossible_cards_or_another_size_cannot_win() -> None:
    ctx = trump_context(CLASSIC, 4, HEARTS)
    lead = lead_units(ctx, parse_cards("C7 C7 C8 C8"))
    # Three trump 9s and a 10 could be cut as a pair over a pair: no deck holds them.
    assert trick_winner(ctx, lead, [parse_cards("H9 H9 H9 HT")]) == 0
    assert trick_winner(ctx, lead, [parse_cards("H9 H9 HT HT")]) == 1
    # A trump pair, two cards short of the lead, does not take it.
    assert trick_winner(ctx, lead, [parse_cards("H9 H9")]) == 0
