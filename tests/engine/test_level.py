"""Levels (R-LEVEL, R-LEVEL-AH, R-LEVEL-MUST), the match (R-MATCH), dealers (R-MATCH-DEALER)."""

from __future__ import annotations

import dataclasses

import pytest

from chaodipi.engine.cards import rank_index
from chaodipi.engine.level import (
    PAST_ACE,
    LevelResult,
    clears_must_play,
    level_result,
    next_dealer,
)
from chaodipi.engine.presets import ANHUI, CHANGSHU, CLASSIC, SHUANGSHENG
from chaodipi.engine.ruleset import MustPlayCleared, Outcome, Ruleset

D, SWAP, A, WIN = (
    Outcome.DEALER_UP,
    Outcome.SWAP,
    Outcome.DEFENDERS_UP,
    Outcome.DEALER_WINS_MATCH,
)

# Every row of RULES.md §8, checked at its edges. Levels start at 2 so no stop applies.
CLASSIC_RECONSTRUCTED_ROWS = [
    (0, D, 5),
    (5, D, 3),
    (35, D, 3),
    (40, D, 2),
    (55, D, 2),
    (60, D, 1),
    (75, D, 1),
    (80, SWAP, 0),
    (95, SWAP, 0),
    (100, A, 1),
    (115, A, 1),
    (120, A, 2),
    (135, A, 2),
    (140, A, 3),
    (155, A, 3),
    (160, A, 4),
    (200, A, 6),
]
SHUANGSHENG_ROWS = [
    (0, D, 6),
    (5, D, 5),
    (10, D, 5),
    (15, D, 4),
    (20, D, 4),
    (25, D, 3),
    (30, D, 3),
    (35, D, 2),
    (40, D, 1),
    (75, D, 1),
    (80, SWAP, 0),
    (115, SWAP, 0),
    (120, A, 1),
    (125, A, 2),
    (160, A, 2),
    (165, A, 3),
    (200, A, 3),
    (205, A, 4),
    (240, A, 4),
    (245, A, 5),
    (280, A, 5),
    (285, A, 6),
    (320, A, 6),
]
ANHUI_ROWS = [
    (0, D, 8),
    (5, D, 7),
    (10, D, 7),
    (15, D, 6),
    (45, D, 3),
    (50, D, 3),
    (55, D, 2),
    (70, D, 1),
    (75, D, 0),
    (80, SWAP, 0),
    (85, SWAP, 0),
    (90, A, 1),
    (95, A, 1),
    (100, A, 2),
    (150, A, 7),
]
CHANGSHU_ROWS = [
    (0, WIN, 0),
    (5, D, 11),
    (60, D, 6),
    (110, D, 1),
    (115, D, 0),
    (120, SWAP, 0),
    (125, SWAP, 0),
    (130, A, 1),
    (135, A, 1),
    (140, A, 2),
    (200, A, 8),
]


def _rows(ruleset: Ruleset, rows: list[tuple[int, Outcome, int]]) -> list[object]:
    return [pytest.param(ruleset, p, o, n, id=f"{ruleset.id}-{p}") for p, o, n in rows]


@pytest.mark.parametrize(
    ("ruleset", "points", "outcome", "levels"),
    _rows(SHUANGSHENG, SHUANGSHENG_ROWS)
    + _rows(ANHUI, ANHUI_ROWS)
    + _rows(CHANGSHU, CHANGSHU_ROWS),
)
def test_r_level_table_rows(ruleset: Ruleset, points: int, outcome: Outcome, levels: int) -> None:
    result = level_result(ruleset, points, 0, 0)
    assert (result.outcome, result.table_levels) == (outcome, levels)


@pytest.mark.parametrize(
    ("ruleset", "points", "outcome", "levels"), _rows(CLASSIC, CLASSIC_RECONSTRUCTED_ROWS)
)
def test_r_level_classic_reconstructed_table_rows(
    ruleset: Ruleset, points: int, outcome: Outcome, levels: int
) -> None:
    # Reconstructed from a damaged text (0 大光 D+5, 40 小光 D+3, 20 points a level).
    assert "level.bands" in ruleset.reconstructed
    result = level_result(ruleset, points, 0, 0)
    assert (result.outcome, result.table_levels) == (outcome, levels)


def test_r_level_changshu_text_example_sixty_points_is_six_levels() -> None:
    # 如抓分方抓了60分則莊家方升6級
    result = level_result(CHANGSHU, 60, rank_index("2"), rank_index("2"))
    assert (result.levels, result.dealer_level_after) == (6, rank_index("8"))


def test_r_level_d_plus_zero_keeps_the_deal_without_rising() -> None:
    result = level_result(ANHUI, 75, rank_index("4"), rank_index("9"))
    assert (result.outcome, result.levels, result.next_deal) == (D, 0, "dealer")
    assert result.dealer_level_after == rank_index("4")


def test_r_level_swap_takes_the_deal_at_own_level() -> None:
    result = level_result(SHUANGSHENG, 80, rank_index("5"), rank_index("9"))
    assert result.next_deal == "defenders"
    assert (result.dealer_level_after, result.defender_level_after) == (
        rank_index("5"),
        rank_index("9"),
    )


def test_r_level_defenders_rise() -> None:
    result = level_result(SHUANGSHENG, 130, rank_index("5"), rank_index("3"))
    assert (result.defender_level_after, result.next_deal) == (rank_index("5"), "defenders")


def test_r_score_negative_points_read_as_zero_in_the_table() -> None:
    assert level_result(SHUANGSHENG, -20, 0, 0).table_levels == 6


def test_r_level_ah_text_example_ten_with_fifty_points_stops_on_j() -> None:
    # 如庄家打10，虽然闲家只抓了50分，正常庄家应打K，但庄家仍然必须打J。
    result = level_result(ANHUI, 50, rank_index("T"), rank_index("5"))
    assert result.table_levels == 3  # 10 → K "normally": fixes 10-point steps around 80
    assert (result.levels, result.dealer_level_after, result.stopped_at) == (
        1,
        rank_index("J"),
        rank_index("J"),
    )
    assert "stops on J" in result.describe()


def test_r_level_must_dealer_on_j_plays_j_so_may_pass_it() -> None:
    result = level_result(ANHUI, 60, rank_index("J"), rank_index("5"))
    assert (result.levels, result.dealer_level_after, result.stopped_at) == (
        2,
        rank_index("K"),
        None,
    )


def test_r_level_must_defenders_on_j_have_not_played_j_and_stay() -> None:
    result = level_result(ANHUI, 100, rank_index("8"), rank_index("J"))
    assert (result.table_levels, result.levels) == (2, 0)
    assert (result.defender_level_after, result.next_deal) == (rank_index("J"), "defenders")


def test_r_level_must_defenders_rising_past_j_stop_on_it() -> None:
    result = level_result(ANHUI, 110, rank_index("8"), rank_index("9"))
    assert (result.levels, result.defender_level_after) == (2, rank_index("J"))


def test_r_level_must_a_stops_a_dealer_rise() -> None:
    result = level_result(ANHUI, 50, rank_index("Q"), rank_index("5"))
    assert (result.levels, result.dealer_level_after, result.match_winner) == (
        2,
        rank_index("A"),
        None,
    )


def test_r_level_must_a_must_be_won_as_dealer_to_finish() -> None:
    won = level_result(ANHUI, 60, rank_index("A"), rank_index("5"))
    assert (won.match_winner, won.dealer_level_after) == ("dealer", PAST_ACE)
    kept = level_result(ANHUI, 75, rank_index("A"), rank_index("5"))  # D+0: not past A
    assert kept.match_winner is None
    defenders = level_result(ANHUI, 150, rank_index("5"), rank_index("A"))
    assert (defenders.match_winner, defenders.defender_level_after) == (None, rank_index("A"))


def test_r_level_classic_passing_a_wraps_to_2() -> None:
    # 当一方升级超过 A 后，则再次循环到 2 开始继续升级
    result = level_result(CLASSIC, 5, rank_index("K"), rank_index("5"))
    assert (result.dealer_level_after, result.match_winner) == (rank_index("3"), None)


@pytest.mark.parametrize("ruleset", [SHUANGSHENG, CHANGSHU], ids=["shuangsheng", "changshu"])
def test_r_match_first_team_past_a_wins(ruleset: Ruleset) -> None:
    dealer = level_result(ruleset, 20, rank_index("Q"), rank_index("5"))
    assert (dealer.match_winner, dealer.dealer_level_after) == ("dealer", PAST_ACE)
    defenders = level_result(ruleset, 300, rank_index("5"), rank_index("K"))
    assert (defenders.match_winner, defenders.defender_level_after) == ("defenders", PAST_ACE)


def test_r_match_changshu_zero_points_wins_the_match() -> None:
    # 如果得分為 0，稱為 “大光” 莊家那方自動獲得這一局的勝利
    result = level_result(CHANGSHU, 0, rank_index("4"), rank_index("9"))
    assert (result.outcome, result.match_winner) == (WIN, "dealer")


def test_r_match_changshu_has_no_cap() -> None:
    assert level_result(CHANGSHU, 300, 0, 0).table_levels == 18


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("ruleset", [CLASSIC, SHUANGSHENG, CHANGSHU], ids=lambda r: r.id)
def test_r_match_dealer_kept_deal_goes_to_partner(ruleset: Ruleset, dealer: int) -> None:
    for points in (40, 115 if ruleset is CHANGSHU else 75):  # D+n and (changshu) D+0
        result = level_result(ruleset, points, 0, 0)
        assert next_dealer(ruleset, dealer, result) == (dealer + 2) % 4


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("ruleset", [CLASSIC, SHUANGSHENG, CHANGSHU], ids=lambda r: r.id)
def test_r_match_dealer_lost_deal_goes_to_the_next_seat(ruleset: Ruleset, dealer: int) -> None:
    for points in (125, 200):
        result = level_result(ruleset, points, 0, 0)
        assert next_dealer(ruleset, dealer, result) == (dealer + 1) % 4


def test_r_match_dealer_none_after_the_match_is_won() -> None:
    result = level_result(CHANGSHU, 0, 0, 0)
    assert next_dealer(CHANGSHU, 1, result) is None


@pytest.mark.parametrize(
    ("points", "declarer", "expected"),
    [
        (40, 0, 0),  # kept deal, dealer declares: 自放自打
        (40, 2, 2),  # kept deal, dealer's partner declares
        (40, 1, 2),  # kept deal, an opponent declares: 上放下打, the member after it
        (40, 3, 0),
        (100, 1, 1),  # the defenders (1, 3) took the deal; one of them declares
        (100, 0, 1),  # an opponent of the new holders declares
        (100, 2, 3),
    ],
)
def test_r_match_dealer_anhui_by_declaration(points: int, declarer: int, expected: int) -> None:
    result = level_result(ANHUI, points, 0, 0)
    assert next_dealer(ANHUI, 0, result, declarer_next_hand=declarer) == expected


def test_r_match_dealer_anhui_unknown_without_the_declaration() -> None:
    assert next_dealer(ANHUI, 0, level_result(ANHUI, 40, 0, 0)) is None


def test_r_level_result_is_a_value() -> None:
    result = level_result(SHUANGSHENG, 40, 0, 0)
    assert isinstance(result, LevelResult)
    with pytest.raises(AttributeError):
        result.levels = 3  # type: ignore[misc]


@pytest.mark.parametrize(("ruleset", "points"), [(ANHUI, 75), (CHANGSHU, 115)], ids=["anhui", "cs"])
def test_r_level_d_plus_zero_is_the_floor_of_the_text_formula(
    ruleset: Ruleset, points: int
) -> None:
    # ⌊(80−75)/10⌋ and ⌊(120−115)/10⌋ are 0: the dealer's team keeps the deal without rising.
    result = level_result(ruleset, points, "9", "4")
    assert (result.outcome, result.table_levels, result.levels) == (D, 0, 0)
    assert (result.dealer_level_after, result.next_deal) == (rank_index("9"), "dealer")
    assert level_result(ruleset, points + 5, "9", "4").outcome is SWAP


def test_r_match_dealer_d_plus_zero_passes_the_deal_to_the_partner() -> None:
    result = level_result(CHANGSHU, 115, "9", "4")
    assert next_dealer(CHANGSHU, 3, result) == 1


def test_r_level_must_levels_are_the_levels_actually_moved() -> None:
    # A+2 by the table for defenders on J: they take the deal and move 0 (they have not won a
    # hand dealt at J); a dealer on 10 with D+3 moves 1 and stops on J.
    on_j = level_result(ANHUI, 100, "8", "J")
    assert (on_j.outcome, on_j.table_levels, on_j.levels, on_j.next_deal) == (A, 2, 0, "defenders")
    stopped = level_result(ANHUI, 50, "T", "5")
    assert (stopped.table_levels, stopped.levels, stopped.stopped_at) == (3, 1, rank_index("J"))


def test_r_level_must_defenders_who_cleared_j_pass_it() -> None:
    # Defenders on J with A+2: they stay on J unless they won a hand dealt at J before.
    fresh = level_result(ANHUI, 100, "8", "J")
    cleared = level_result(ANHUI, 100, "8", "J", defender_team_cleared=["J"])
    assert (fresh.levels, fresh.defender_level_after) == (0, rank_index("J"))
    assert (cleared.levels, cleared.defender_level_after) == (2, rank_index("K"))
    # A cleared rank does not lift the next one: A still stops a rise from J.
    far = level_result(ANHUI, 150, "8", "J", defender_team_cleared=["J"])
    assert (far.table_levels, far.defender_level_after, far.stopped_at) == (
        7,
        rank_index("A"),
        rank_index("A"),
    )


def test_r_level_must_defenders_who_cleared_a_win_the_match() -> None:
    result = level_result(ANHUI, 100, "8", "A", defender_team_cleared=["A"])
    assert result.match_winner == "defenders"


@pytest.mark.parametrize(
    ("points", "won_or_kept"),
    [(40, True), (75, True), (80, False), (120, False)],
)
def test_r_level_must_a_rank_is_cleared_by_a_hand_won_there(points: int, won_or_kept: bool) -> None:
    result = level_result(ANHUI, points, "J", "5")
    assert clears_must_play(ANHUI, "J", result) is won_or_kept
    assert clears_must_play(ANHUI, "T", level_result(ANHUI, points, "T", "5")) is False
    dealt = dataclasses.replace(
        ANHUI, level=dataclasses.replace(ANHUI.level, must_play_cleared=MustPlayCleared.DEAL)
    )
    assert clears_must_play(dealt, "J", result) is True
