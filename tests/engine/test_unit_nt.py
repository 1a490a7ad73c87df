"""No-trump tractors across the level cards and the little joker (R-UNIT-NT) and what follows.

With no trump suit the level cards of all four suits are equal and sit right under the jokers:
a pair of one level card links to the LJ pair and the LJ pair to the BJ pair. The link is ruleset
data (``order.tractor_links`` holds ``("LJ", "other-level")``); these tests pin the split and its
consequences: the throw check, the forced unit and penalty, the trick's winner and the kitty.
"""

from __future__ import annotations

import pytest

from chaodipi.engine.cards import HEARTS, Hand, parse_cards, rank_index
from chaodipi.engine.lead import check_throw, lead_units
from chaodipi.engine.order import trump_context
from chaodipi.engine.presets import ANHUI, BOTZONE, CHANGSHU, CLASSIC, EIGHTY, SHUANGSHENG
from chaodipi.engine.ruleset import Ruleset
from chaodipi.engine.scoring import kitty_multiplier
from chaodipi.engine.table import Table
from chaodipi.engine.trick import trick_winner

SIX = rank_index("6")
LINKED = [CLASSIC, SHUANGSHENG, ANHUI, EIGHTY]
"""The rulesets R-UNIT-NT covers, and the 80-fen program, whose `components()` agrees."""


def shapes(ruleset: Ruleset, tokens: str, trump: int | None = None) -> list[tuple[int, int]]:
    ctx = trump_context(ruleset, SIX, trump)
    return [u.shape for u in lead_units(ctx, parse_cards(tokens))]


@pytest.mark.parametrize("ruleset", LINKED, ids=lambda r: r.id)
def test_r_unit_nt_level_pair_links_to_the_little_jokers(ruleset: Ruleset) -> None:
    assert shapes(ruleset, "C6 C6 LJ LJ") == [(2, 2)]
    assert shapes(ruleset, "D6 D6 LJ LJ BJ BJ") == [(2, 3)]
    assert shapes(ruleset, "LJ LJ BJ BJ") == [(2, 2)]


@pytest.mark.parametrize("ruleset", LINKED, ids=lambda r: r.id)
def test_r_unit_nt_level_pairs_of_two_suits_are_never_adjacent(ruleset: Ruleset) -> None:
    assert shapes(ruleset, "C6 C6 D6 D6") == [(2, 1), (2, 1)]
    # Only one of the two level pairs can join the jokers: a tractor and a pair.
    assert shapes(ruleset, "C6 C6 D6 D6 LJ LJ") == [(2, 2), (2, 1)]
    assert shapes(ruleset, "C6 C6 BJ BJ") == [(2, 1), (2, 1)]  # LJ lies between


@pytest.mark.parametrize("ruleset", LINKED, ids=lambda r: r.id)
def test_r_unit_nt_only_without_a_trump_suit(ruleset: Ruleset) -> None:
    # With a trump suit the trump suit's level pair lies between LJ and the other level cards.
    assert shapes(ruleset, "C6 C6 LJ LJ", HEARTS) == [(2, 1), (2, 1)]
    assert shapes(ruleset, "C6 C6 H6 H6 LJ LJ", HEARTS) == [(2, 3)]


def test_r_unit_nt_botzone_and_changshu_keep_their_own_links() -> None:
    # The Botzone judger links only LJ LJ BJ BJ (R-UNIT-NT is not its rule); changshu links
    # nothing across the level cards or the jokers (R-UNIT-CS).
    assert shapes(BOTZONE, "C6 C6 LJ LJ") == [(2, 1), (2, 1)]
    assert shapes(BOTZONE, "LJ LJ BJ BJ") == [(2, 2)]
    assert shapes(CHANGSHU, "C6 C6 LJ LJ") == [(2, 1), (2, 1)]
    assert shapes(CHANGSHU, "LJ LJ BJ BJ") == [(2, 1), (2, 1)]


@pytest.mark.parametrize("ruleset", [CLASSIC, ANHUI], ids=lambda r: r.id)
def test_r_unit_nt_the_tractor_lead_is_no_throw(ruleset: Ruleset) -> None:
    # Two pairs would each be beaten by seat 1's big jokers: a failed throw, ♣6 ♣6 forced and a
    # penalty. One tractor is no throw: nothing is checked, forced or fined.
    ctx = trump_context(ruleset, SIX, None)
    seats = [Hand("C6 C6 LJ LJ S3"), Hand("BJ BJ S4"), Hand("D6 D6 S5"), Hand("H6 S7 S8")]
    verdict = check_throw(ctx, ruleset.throw, 0, parse_cards("C6 C6 LJ LJ"), seats)
    assert (verdict.is_throw, verdict.stands, verdict.forced, verdict.penalty) == (
        False,
        True,
        None,
        0,
    )


def test_r_unit_nt_a_throw_with_the_tractor_forces_the_beaten_unit() -> None:
    # ♣6 ♣6 LJ LJ with ♥6: seat 1's big jokers beat the single, but they are no 2-pair tractor,
    # so the tractor stands (as two pairs, both were beaten).
    table = Table(CLASSIC, "6", "NT")
    seats = [Hand("C6 C6 LJ LJ H6"), Hand("BJ BJ S4"), Hand("D6 D6 S5"), Hand("S7 S8")]
    verdict = table.throw(0, "C6 C6 LJ LJ H6", seats)
    assert [b.unit.label() for b in verdict.beaten] == ["♥6"]
    assert verdict.forced is not None and verdict.forced.label() == "♥6"
    assert verdict.penalty == 50  # classic: 10 for every card of the attempt


def test_r_unit_nt_tractor_wins_over_a_tractor_of_a_side_suit() -> None:
    # Seat 1 is void in spades and trumps the spade tractor with a no-trump tractor; two loose
    # trump pairs (seat 2) could not win it.
    ctx = trump_context(CLASSIC, SIX, None)
    lead = lead_units(ctx, parse_cards("S8 S8 S9 S9"))
    follows = [parse_cards("D6 D6 LJ LJ"), parse_cards("C6 C6 BJ BJ"), parse_cards("S2 S3 S4 S5")]
    assert trick_winner(ctx, lead, follows) == 1
    assert trick_winner(ctx, lead, follows[1:]) == 0


@pytest.mark.parametrize(
    ("ruleset", "multiplier"),
    [(CLASSIC, 8), (SHUANGSHENG, 8), (ANHUI, 8), (EIGHTY, 8), (BOTZONE, 4)],
    ids=lambda v: v.id if isinstance(v, Ruleset) else str(v),
)
def test_r_unit_nt_kitty_counts_the_last_lead_as_a_tractor(
    ruleset: Ruleset, multiplier: int
) -> None:
    # As two pairs it was a throw: classic and anhui counted a pair (x4), shuangsheng x2.
    ctx = trump_context(ruleset, SIX, None)
    units = lead_units(ctx, parse_cards("C6 C6 LJ LJ"))
    assert kitty_multiplier(ruleset, units) == multiplier
