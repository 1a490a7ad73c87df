"""Trump context: effective suit, order and tractor links of every card (R-ORDER, R-UNIT).

A ``TrumpContext`` is built once per (order rule, level, trump suit) and is a set
of tables indexed by card kind, so the hot paths of the engine do no branching
on rules. Cards of one effective suit are laid on *steps* from low to high;
cards on one step are equal (the level cards of the other suits are).

>>> from chaodipi.engine.presets import CLASSIC
>>> from chaodipi.engine.cards import parse_card, HEARTS
>>> ctx = trump_context(CLASSIC, level=rank_index("6"), trump=HEARTS)
>>> ctx.is_trump[parse_card("S6")], ctx.beats(parse_card("H6"), parse_card("S6"))
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from chaodipi.engine.cards import (
    BIG_JOKER,
    KINDS,
    LITTLE_JOKER,
    RANK_LETTERS,
    SUIT_LETTERS,
    is_joker,
    kind_of,
    rank_index,
)
from chaodipi.engine.ruleset import OrderRule, Ruleset, ThrowCompare

TRUMP: Final = 4
"""Effective suit of every trump (主). Final: compiled, its uses read the constant, not the module's
dict."""

SUIT_NAMES = ("spades", "hearts", "clubs", "diamonds", "trumps")

__all__ = ["SUIT_NAMES", "TRUMP", "TrumpContext", "rank_index", "trump_context"]


@dataclass(frozen=True, slots=True, eq=False)
class TrumpContext:
    """Order tables for one hand: ``level`` is a rank index, ``trump`` a suit or None (无主).

    ``suit[k]`` is the effective suit (0–3, or ``TRUMP``); ``step[k]`` the place of
    ``k`` within it (higher is stronger); ``strength[k]`` a number comparable across
    the whole deck (every trump above every side card); ``steps[s]`` the kinds on
    each step of effective suit ``s``, low to high, and ``kinds[s]`` those kinds in that
    order, in one tuple; ``kinds_down[s]`` them from the highest step down, each step's kinds
    in its order (where a search for a seat's highest card starts); ``link_up[k]`` the kinds
    on the next step whose pairs extend a tractor from a pair of ``k``, and
    ``follow_link_up[k]`` those that do inside a throw and in a follow (its duty, a throw's
    answers): the same but for the jokers' under ``joker_tractor_alone``.
    ``decks`` is how many copies of each card exist: a play holding more is impossible and is
    rejected before any search (R-LEAD, R-WIN).
    ``follow_shorter_tractors``, ``throw_tractor_duty``, ``tractor_duty``,
    ``same_shape_follow_free`` and ``throw_shape_needs_tractor`` carry the order rule's follow
    duty (R-FOLLOW, R-FOLLOW-SHAPE), ``throw_compare`` its trick comparison (R-WIN), and
    ``joker_tractor_alone`` whether the jokers link only in a play of their own (R-UNIT).
    """

    level: int
    trump: int | None
    suit: tuple[int, ...]
    step: tuple[int, ...]
    strength: tuple[int, ...]
    steps: tuple[tuple[tuple[int, ...], ...], ...]
    kinds: tuple[tuple[int, ...], ...]
    kinds_down: tuple[tuple[int, ...], ...]
    link_up: tuple[tuple[int, ...], ...]
    follow_link_up: tuple[tuple[int, ...], ...]
    is_trump: tuple[bool, ...]
    decks: int = 2
    follow_shorter_tractors: bool = False
    throw_tractor_duty: bool = True
    tractor_duty: bool = True
    throw_compare: ThrowCompare = ThrowCompare.LARGEST_UNIT
    same_shape_follow_free: bool = False
    throw_shape_needs_tractor: bool = False
    joker_tractor_alone: bool = False

    def beats(self, challenger: int, holder: int) -> bool:
        """Does one card strictly beat another already played, as a single?"""
        s = self.suit[challenger]
        if s != self.suit[holder]:
            return s == TRUMP
        return self.step[challenger] > self.step[holder]

    def in_step_order(self, kinds: Iterable[int]) -> list[int]:
        """``kinds`` low to high within their suit, equal steps in kind order.

        Sorted by kind, then (stably) by step: both keys read in C, not a key function a card.
        """
        return sorted(sorted(kinds), key=self.step.__getitem__)

    def describe(self) -> str:
        """``level 6, trump ♥`` style summary."""
        trump = "no-trump" if self.trump is None else SUIT_LETTERS[self.trump]
        return f"level {RANK_LETTERS[self.level]}, trump {trump}"


def _tier_members(tier: str, level: int, trump: int | None) -> list[int]:
    """Kinds a trump place can hold, before higher places take theirs."""
    if tier == "BJ":
        return [BIG_JOKER]
    if tier == "LJ":
        return [LITTLE_JOKER]
    if tier == "trump-level":
        return [] if trump is None else [kind_of(trump, level)]
    if tier == "other-level":
        return [kind_of(s, level) for s in range(4) if s != trump]
    if tier == "trump-suit":
        return [] if trump is None else [kind_of(trump, r) for r in range(13)]
    prefix, _, arg = tier.partition(":")
    if prefix == "card":
        return [kind_of(SUIT_LETTERS.index(arg[0]), RANK_LETTERS.index(arg[1]))]
    if prefix == "trump-suit-rank":
        return [] if trump is None else [kind_of(trump, RANK_LETTERS.index(arg))]
    raise ValueError(f"unknown trump place {tier!r}")


def _build(order: OrderRule, level: int, trump: int | None, decks: int) -> TrumpContext:
    # Trump places from high to low, each once (a ruleset built in code is not validated: a
    # place named twice would put its cards on two steps); a card takes the highest place it
    # qualifies for.
    tiers = tuple(dict.fromkeys(order.trump_tiers))
    placed: dict[int, str] = {}
    for tier in tiers:
        for k in _tier_members(tier, level, trump):
            placed.setdefault(k, tier)
    # Steps of the trump suit, low to high, each tagged with its place.
    trump_steps: list[tuple[tuple[int, ...], str]] = []
    for tier in reversed(tiers):
        members = [k for k in _tier_members(tier, level, trump) if placed.get(k) == tier]
        if not members:
            continue
        if tier == "trump-suit":
            trump_steps.extend(((k,), tier) for k in sorted(members))
        else:
            trump_steps.append((tuple(sorted(members)), tier))
    links = set(order.tractor_links)
    suit = [0] * KINDS
    step = [0] * KINDS
    link_up: list[tuple[int, ...]] = [()] * KINDS
    all_steps: list[tuple[tuple[int, ...], ...]] = []
    for s in range(4):
        ranks = [kind_of(s, r) for r in range(13) if kind_of(s, r) not in placed]
        all_steps.append(tuple((k,) for k in ranks))
        for i, k in enumerate(ranks):
            suit[k], step[k] = s, i
            if i + 1 < len(ranks):
                link_up[k] = (ranks[i + 1],)
    all_steps.append(tuple(kinds for kinds, _ in trump_steps))
    for i, (kinds, tier) in enumerate(trump_steps):
        upper = trump_steps[i + 1] if i + 1 < len(trump_steps) else None
        same_sequence = upper is not None and tier == upper[1] == "trump-suit"
        linked = upper is not None and (same_sequence or (upper[1], tier) in links)
        for k in kinds:
            suit[k], step[k] = TRUMP, i
            link_up[k] = upper[0] if linked and upper is not None else ()
    strength = tuple(step[k] + (100 if suit[k] == TRUMP else 0) for k in range(KINDS))
    # Under joker_tractor_alone the jokers link in a play of their own only (its units are
    # cut apart inside a throw: lead.lead_units).
    alone = order.joker_tractor_alone
    follow_link_up = [
        tuple(n for n in up if not (alone and (is_joker(k) or is_joker(n))))
        for k, up in enumerate(link_up)
    ]
    return TrumpContext(
        level=level,
        trump=trump,
        suit=tuple(suit),
        step=tuple(step),
        strength=strength,
        steps=tuple(all_steps),
        kinds=tuple(tuple(k for step in steps for k in step) for steps in all_steps),
        kinds_down=tuple(tuple(k for step in steps[::-1] for k in step) for steps in all_steps),
        link_up=tuple(link_up),
        follow_link_up=tuple(follow_link_up),
        is_trump=tuple(s == TRUMP for s in suit),
        decks=decks,
        follow_shorter_tractors=order.follow_shorter_tractors,
        throw_tractor_duty=order.throw_tractor_duty,
        tractor_duty=order.tractor_duty,
        throw_compare=order.throw_compare,
        same_shape_follow_free=order.same_shape_follow_free,
        throw_shape_needs_tractor=order.throw_shape_needs_tractor,
        joker_tractor_alone=order.joker_tractor_alone,
    )


@lru_cache(maxsize=512)
def _cached(order: OrderRule, level: int, trump: int | None, decks: int) -> TrumpContext:
    return _build(order, level, trump, decks)


def trump_context(ruleset: Ruleset, level: int, trump: int | None) -> TrumpContext:
    """The (cached) order tables for a ruleset, a level rank index and a trump suit or None."""
    if not 0 <= level < 13:
        raise ValueError(f"bad level rank index {level}: expected 0-12")
    if trump is not None and not 0 <= trump < 4:
        raise ValueError(f"bad trump suit {trump}: expected 0-3 or None for no-trump")
    return _cached(ruleset.order, level, trump, ruleset.decks)
