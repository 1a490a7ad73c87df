"""Scoring: kitty multipliers (R-KITTY), the hand score (R-SCORE), penalty sides (R-THROW-SIDE)."""

from __future__ import annotations

import pytest

from chaodipi.engine.cards import parse_card, parse_cards
from chaodipi.engine.presets import ANHUI, CHANGSHU, CLASSIC, SHUANGSHENG
from chaodipi.engine.ruleset import Ruleset
from chaodipi.engine.scoring import (
    HandScore,
    kitty_bonus,
    kitty_multiplier,
    last_trick_bonus,
    penalty_effect,
    score_hand,
)
from chaodipi.engine.units import Unit


def unit(width: int, tokens: str) -> Unit:
    return Unit(width, tuple(parse_cards(tokens)))


SINGLE = unit(1, "SA")
PAIR = unit(2, "SK")
TRACTOR_2 = unit(2, "S9 ST")
TRACTOR_3 = unit(2, "S9 ST SJ")
TRIPLE = unit(3, "SK")


@pytest.mark.parametrize(
    ("ruleset", "units", "expected"),
    [
        (CLASSIC, [SINGLE], 2),
        (CLASSIC, [PAIR], 4),
        (CLASSIC, [TRACTOR_2], 8),
        (CLASSIC, [TRACTOR_3], 12),
        (SHUANGSHENG, [SINGLE], 2),
        (SHUANGSHENG, [PAIR], 4),
        (SHUANGSHENG, [TRACTOR_2], 8),
        (SHUANGSHENG, [TRACTOR_3], 12),
        (ANHUI, [SINGLE], 2),
        (ANHUI, [PAIR], 4),
        (ANHUI, [TRACTOR_2], 8),
        (ANHUI, [TRACTOR_3], 8),
        (CHANGSHU, [SINGLE], 2),
        (CHANGSHU, [PAIR], 2),
        (CHANGSHU, [TRIPLE], 2),
        (CHANGSHU, [TRACTOR_3], 2),
    ],
)
def test_r_kitty_multiplier_by_lead_format(
    ruleset: Ruleset, units: list[Unit], expected: int
) -> None:
    assert kitty_multiplier(ruleset, units) == expected


def test_r_kitty_classic_throw_counts_its_largest_unit_only() -> None:
    # 若甩牌时有两对或者两个连对时，仅按照一对或者连对数最多的连对计算，不进行累加。
    assert kitty_multiplier(CLASSIC, [PAIR, unit(2, "SQ")]) == 4
    assert kitty_multiplier(CLASSIC, [TRACTOR_3, TRACTOR_2, SINGLE]) == 12
    assert kitty_multiplier(CLASSIC, [PAIR, SINGLE]) == 4


def test_r_kitty_shuangsheng_any_throw_is_times_two() -> None:
    assert kitty_multiplier(SHUANGSHENG, [TRACTOR_3, SINGLE]) == 2


def test_r_kitty_anhui_throw_counts_its_largest_unit() -> None:
    assert kitty_multiplier(ANHUI, [TRACTOR_2, PAIR]) == 8


def test_r_kitty_changshu_throw_is_times_two() -> None:
    assert kitty_multiplier(CHANGSHU, [TRIPLE, PAIR]) == 2


def test_r_kitty_failed_throw_uses_the_forced_unit() -> None:
    # The caller passes the forced unit alone: a forced pair in shuangsheng is ×4, not ×2.
    assert kitty_multiplier(SHUANGSHENG, [PAIR]) == 4


def test_r_kitty_a_lead_without_units_is_refused() -> None:
    with pytest.raises(ValueError, match="no units"):
        kitty_multiplier(CLASSIC, [])


def test_r_kitty_bonus_multiplies_the_kitty_points() -> None:
    kitty = parse_cards("S5 HT DK C2 C3 C4 C6 C7")
    assert kitty_bonus(CLASSIC, kitty, 4) == 25 * 4


def test_r_kitty_changshu_last_trick_points_count_twice() -> None:
    last_trick = parse_cards("SK SK H5 D2")
    assert last_trick_bonus(CHANGSHU, last_trick) == 25
    assert last_trick_bonus(CLASSIC, last_trick) == 0


@pytest.mark.parametrize(
    ("dealer_side", "expected"), [(True, 30), (False, -30)], ids=["dealer", "defender"]
)
def test_r_throw_side_penalty_sign(dealer_side: bool, expected: int) -> None:
    assert penalty_effect(30, thrower_on_dealer_side=dealer_side) == expected


def test_r_throw_side_penalty_is_never_negative() -> None:
    with pytest.raises(ValueError):
        penalty_effect(-10, thrower_on_dealer_side=True)


def test_r_score_negative_total_reads_as_zero() -> None:
    score = HandScore(trick_points=10, penalties=-30)
    assert (score.total, score.level_points) == (-20, 0)


def test_r_score_defenders_win_last_trick() -> None:
    score = score_hand(
        CHANGSHU,
        trick_points=100,
        defenders_won_last_trick=True,
        kitty_cards=parse_cards("S5 SK D2 D3 D4 D6"),
        last_lead_units=[unit(2, "H9")],
        last_trick_cards=parse_cards("H9 H9 HK HK H5 H5 C2 C2"),
        penalty_effects=[penalty_effect(10, thrower_on_dealer_side=True)],
    )
    assert (score.kitty_bonus, score.last_trick_bonus, score.penalties) == (30, 30, 10)
    assert score.total == 170


def test_r_score_no_kitty_when_the_dealer_side_wins_last_trick() -> None:
    score = score_hand(
        CLASSIC,
        trick_points=55,
        defenders_won_last_trick=False,
        kitty_cards=[parse_card("SK")] * 8,
        last_lead_units=[PAIR],
        last_trick_cards=parse_cards("SK SK"),
    )
    assert score == HandScore(trick_points=55)
