"""Units: pairs, triples, tractors and the canonical split (R-UNIT), as engine/units.py cuts."""

from __future__ import annotations

from chaodipi.engine.cards import CLUBS, HEARTS, parse_cards, rank_index
from chaodipi.engine.order import TrumpContext, trump_context
from chaodipi.engine.presets import ANHUI, CHANGSHU, CLASSIC
from chaodipi.engine.units import Unit, canonical_split


def split(ctx: TrumpContext, tokens: str) -> list[str]:
    return [u.label() for u in canonical_split(ctx, parse_cards(tokens))]


def shapes(ctx: TrumpContext, tokens: str) -> list[tuple[int, int]]:
    return [u.shape for u in canonical_split(ctx, parse_cards(tokens))]


LEVEL6 = rank_index("6")


def test_r_unit_skip_side_suit_5577() -> None:
    # 当轮级牌为 6，则梅花对 5 与梅花对 7 也可组成连对.
    ctx = trump_context(CLASSIC, LEVEL6, HEARTS)
    assert split(ctx, "C5 C5 C7 C7") == ["♣5 ♣5 ♣7 ♣7"]


def test_r_unit_skip_trump_suit_5577_anhui() -> None:
    # 主牌5577算拖拉机 (level 6).
    ctx = trump_context(ANHUI, LEVEL6, HEARTS)
    assert shapes(ctx, "H5 H5 H7 H7") == [(2, 2)]


def test_r_unit_top_6677_not_a_trump_tractor() -> None:
    # 主牌中6677不算拖拉机: the level pair is not next to the trump-suit 7s.
    ctx = trump_context(ANHUI, LEVEL6, HEARTS)
    assert shapes(ctx, "H6 H6 H7 H7") == [(2, 1), (2, 1)]
    assert shapes(ctx, "S6 S6 H7 H7") == [(2, 1), (2, 1)]


def test_r_unit_top_other_level_pairs_are_equal_not_adjacent() -> None:
    ctx = trump_context(CLASSIC, LEVEL6, HEARTS)
    assert shapes(ctx, "S6 S6 C6 C6") == [(2, 1), (2, 1)]


def test_r_unit_top_two_level_cards_of_different_suits_are_no_pair() -> None:
    ctx = trump_context(CLASSIC, LEVEL6, HEARTS)
    assert shapes(ctx, "S6 C6") == [(1, 1), (1, 1)]


def test_r_unit_top_classic_chain_across_the_top() -> None:
    # trump A — other-level pair — trump-level pair — LJ pair — BJ pair.
    ctx = trump_context(CLASSIC, LEVEL6, HEARTS)
    assert shapes(ctx, "HA HA S6 S6 H6 H6 LJ LJ BJ BJ") == [(2, 5)]
    assert shapes(ctx, "HA HA D6 D6") == [(2, 2)]
    assert shapes(ctx, "C6 C6 H6 H6") == [(2, 2)]
    assert shapes(ctx, "H6 H6 LJ LJ") == [(2, 2)]


def test_r_unit_top_anhui_lists_the_whole_chain() -> None:
    # 2-A、付对6、主对66、小王对、大王对可以构成拖拉.
    ctx = trump_context(ANHUI, LEVEL6, HEARTS)
    assert shapes(ctx, "HK HK HA HA C6 C6 H6 H6 LJ LJ BJ BJ") == [(2, 6)]


def test_r_unit_cs_level_pairs_do_not_link() -> None:
    # 主牌的主對6加付對6等也不算拖拉機.
    ctx = trump_context(CHANGSHU, LEVEL6, HEARTS)
    assert shapes(ctx, "H6 H6 S6 S6") == [(2, 1), (2, 1)]
    assert shapes(ctx, "LJ LJ BJ BJ") == [(2, 1), (2, 1)]
    assert shapes(ctx, "H5 H5 BJ BJ") == [(2, 1), (2, 1)]
    assert shapes(ctx, "SA SA LJ LJ") == [(2, 1), (2, 1)]
    assert shapes(ctx, "HA HA C6 C6") == [(2, 1), (2, 1)]


def test_r_unit_cs_trump_suit_skips_its_five() -> None:
    # 主牌中557788不算拖拉機: the trump 5 is the top card; 4 and 7 are neighbours.
    ctx = trump_context(CHANGSHU, LEVEL6, HEARTS)
    assert shapes(ctx, "H5 H5 H7 H7 H8 H8") == [(2, 2), (2, 1)]
    assert shapes(ctx, "H4 H4 H7 H7") == [(2, 2)]


def test_r_unit_cs_spade_king_tops_the_spades() -> None:
    ctx = trump_context(CHANGSHU, LEVEL6, HEARTS)
    assert shapes(ctx, "SQ SQ SK SK") == [(2, 2)]
    assert shapes(ctx, "SK SK SA SA") == [(2, 1), (2, 1)]


def test_r_unit_cs_triples_and_tractor_of_triples() -> None:
    ctx = trump_context(CHANGSHU, LEVEL6, HEARTS)
    assert shapes(ctx, "C7 C7 C7") == [(3, 1)]
    assert shapes(ctx, "C7 C7 C7 C8 C8 C8") == [(3, 2)]
    assert shapes(ctx, "C5 C5 C5 C7 C7 C7") == [(3, 2)]


def test_r_unit_split_canonical_fewest_units_largest_first() -> None:
    ctx = trump_context(CLASSIC, LEVEL6, CLUBS)
    assert split(ctx, "D5 D5 D7 D7 DK") == ["♦5 ♦5 ♦7 ♦7", "♦K"]
    assert split(ctx, "D2 D2 D3 D3 D4 D4 D9 D9 DJ") == ["♦2 ♦2 ♦3 ♦3 ♦4 ♦4", "♦9 ♦9", "♦J"]


def test_r_unit_split_without_a_tractor_one_set_of_each_card() -> None:
    # No two linked cards held twice: each card is one set, largest first, then the higher;
    # equal trumps (the other suits' level pairs) in card order, spades before clubs.
    ctx = trump_context(CLASSIC, LEVEL6, HEARTS)
    assert split(ctx, "C3 C3 C9 C9 CK") == ["♣9 ♣9", "♣3 ♣3", "♣K"]
    assert split(ctx, "C6 C6 D6 S6 S6 BJ") == ["♠6 ♠6", "♣6 ♣6", "BJ", "♦6"]
    cs = trump_context(CHANGSHU, LEVEL6, HEARTS)
    assert split(cs, "C9 C9 C7 C7 C7 CK CJ CJ CJ") == ["♣J ♣J ♣J", "♣7 ♣7 ♣7", "♣9 ♣9", "♣K"]


def test_r_unit_split_cs_aaakk_canonical_prefers_the_tractor() -> None:
    # AAAKK: the canonical split takes A + AAKK (a tractor before a separate pair).
    ctx = trump_context(CHANGSHU, LEVEL6, HEARTS)
    assert split(ctx, "CA CA CA CK CK") == ["♣K ♣K ♣A ♣A", "♣A"]


def test_r_unit_split_unit_properties() -> None:
    unit = Unit(2, tuple(parse_cards("C5 C7")))
    assert (unit.size, unit.length, unit.is_tractor, unit.shape) == (4, 2, True, (2, 2))
    assert unit.name() == "tractor of 2 pairs"
    assert Unit(3, (1,)).name() == "triple"
