"""The defenders' score of one hand: trick points, kitty (抠底), throw penalties (R-SCORE).

The defenders (捡分方) score the point cards of the tricks they win, plus the kitty
bonus when one of them wins the last trick, plus or minus the penalties of failed
throws (R-THROW-SIDE). The level table reads a negative total as 0.

>>> from chaodipi.engine.presets import CLASSIC
>>> from chaodipi.engine.units import Unit
>>> from chaodipi.engine.cards import parse_cards
>>> m = kitty_multiplier(CLASSIC, [Unit(2, tuple(parse_cards("S5 S6")))])
>>> m, kitty_bonus(CLASSIC, parse_cards("S5 HK D2"), m)
(8, 120)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from chaodipi.engine.cards import points_of
from chaodipi.engine.ruleset import KittyRule, Ruleset
from chaodipi.engine.units import Unit


def _shape_multiplier(rule: KittyRule, unit: Unit) -> int:
    if unit.is_tractor:
        # 连对抠底: ×4×pairs (classic); a flat ×8 for any tractor (anhui).
        return rule.tractor * unit.length if rule.tractor_per_pair else rule.tractor
    if unit.width == 1:
        return rule.single
    if unit.width == 2:
        return rule.pair
    return rule.triple


def kitty_multiplier(ruleset: Ruleset, last_lead_units: Sequence[Unit]) -> int:
    """The kitty multiplier for the last trick's lead format (R-KITTY).

    ``last_lead_units`` are the units of the lead that counts (``Lead.units``): after
    a failed throw, the forced unit alone. A standing throw (several units) counts
    ``KittyRule.throw``, else ``throw_per_card`` times its cards, else its largest unit
    only (不进行累加). A one-unit lead counts ``per_card`` times its cards, else its shape.

    >>> from chaodipi.engine.presets import CLASSIC
    >>> pair, single = Unit(2, (12,)), Unit(1, (11,))
    >>> kitty_multiplier(CLASSIC, [pair]), kitty_multiplier(CLASSIC, [pair, single])
    (4, 4)
    """
    if not last_lead_units:
        raise ValueError("the last lead has no units")
    rule = ruleset.kitty
    if len(last_lead_units) > 1:
        if rule.throw:
            return rule.throw
        if rule.throw_per_card:
            return rule.throw_per_card * sum(u.size for u in last_lead_units)
        return max(_shape_multiplier(rule, unit) for unit in last_lead_units)
    if rule.per_card:
        return rule.per_card * last_lead_units[0].size
    return _shape_multiplier(rule, last_lead_units[0])


def kitty_bonus(ruleset: Ruleset, kitty_cards: Iterable[int], multiplier: int) -> int:
    """Points the kitty adds when a defender wins the last trick (抠底得分).

    The multiplier already carries every rules difference, so ``ruleset`` only keeps
    the scoring calls alike.

    >>> from chaodipi.engine.presets import CLASSIC
    >>> from chaodipi.engine.cards import parse_cards
    >>> kitty_bonus(CLASSIC, parse_cards("S5 SK D2"), 4)
    60
    """
    return points_of(kitty_cards) * multiplier


def last_trick_bonus(ruleset: Ruleset, last_trick_cards: Iterable[int]) -> int:
    """Extra points when the last trick's own points count more than once (R-KITTY).

    Call it only when a defender wins the last trick. ``changshu`` (最後一輪手上的分
    也要翻倍) counts those points twice: the bonus is the points beyond the ordinary
    count already in the trick points.

    >>> from chaodipi.engine.presets import CHANGSHU, CLASSIC
    >>> from chaodipi.engine.cards import parse_cards
    >>> last_trick_bonus(CHANGSHU, parse_cards("SK SK H5 D2")), last_trick_bonus(CLASSIC, [])
    (25, 0)
    """
    return points_of(last_trick_cards) * (ruleset.kitty.last_trick_factor - 1)


def penalty_effect(penalty: int, thrower_on_dealer_side: bool) -> int:
    """A failed throw's penalty as a change to the defenders' score (R-THROW-SIDE).

    Added when a dealer-side player's throw fails; taken away when a defender's does.

    >>> penalty_effect(30, thrower_on_dealer_side=True), penalty_effect(30, False)
    (30, -30)
    """
    if penalty < 0:
        raise ValueError(f"a penalty is never negative, got {penalty}")
    return penalty if thrower_on_dealer_side else -penalty


@dataclass(frozen=True, slots=True)
class HandScore:
    """The defenders' score of one hand, in parts a referee can check (R-SCORE).

    ``penalties`` is the net of every ``penalty_effect`` (negative when defenders'
    throws failed).
    """

    trick_points: int
    kitty_bonus: int = 0
    last_trick_bonus: int = 0
    penalties: int = 0

    @property
    def total(self) -> int:
        """Trick points + kitty bonus + last-trick bonus + penalties (总分)."""
        return self.trick_points + self.kitty_bonus + self.last_trick_bonus + self.penalties

    @property
    def level_points(self) -> int:
        """The total as the level table reads it: a negative total is 0."""
        return max(self.total, 0)


def score_hand(
    ruleset: Ruleset,
    *,
    trick_points: int,
    defenders_won_last_trick: bool,
    kitty_cards: Iterable[int],
    last_lead_units: Sequence[Unit],
    last_trick_cards: Iterable[int],
    penalty_effects: Iterable[int] = (),
) -> HandScore:
    """Put a hand's score together.

    ``trick_points`` are the points of every trick the defenders won, the last one
    included; ``last_lead_units`` the units of the last lead that counts (after a failed
    throw, the forced unit); ``penalty_effects`` come from ``penalty_effect``.

    >>> from chaodipi.engine.presets import CLASSIC
    >>> from chaodipi.engine.cards import parse_cards
    >>> score = score_hand(
    ...     CLASSIC,
    ...     trick_points=60,
    ...     defenders_won_last_trick=True,
    ...     kitty_cards=parse_cards("S5 SK D2"),
    ...     last_lead_units=[Unit(1, (0,))],
    ...     last_trick_cards=parse_cards("S2 S3 S4 S6"),
    ...     penalty_effects=[-10],
    ... )
    >>> score.kitty_bonus, score.total
    (30, 80)
    """
    kitty = extra = 0
    if defenders_won_last_trick:
        multiplier = kitty_multiplier(ruleset, last_lead_units)
        kitty = kitty_bonus(ruleset, kitty_cards, multiplier)
        extra = last_trick_bonus(ruleset, last_trick_cards)
    return HandScore(
        trick_points=trick_points,
        kitty_bonus=kitty,
        last_trick_bonus=extra,
        penalties=sum(penalty_effects),
    )
