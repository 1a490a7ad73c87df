"""Who wins a trick (R-WIN, R-ORDER-TIE).

A play can win only with the lead's exact shape (it can be cut into the same
units) and all in the led suit or all trump: two trump singles do not beat a pair
(若是两张主牌单张是无法杀掉对子的). Plays are compared largest unit first (a
tractor by its top), the first difference decides, and a later play must be
strictly higher: among equal cards the first played wins. Under
``ThrowCompare.LARGEST_UNIT_TOP`` (the Botzone judger) only the largest unit's top is
compared. Under ``ThrowCompare.HIGHEST_CARD`` (the 80-fen program) a play answering a throw must
split canonically into the throw's units, and its single highest card decides; under
``ANY_THROW`` (shengji-godot) a play's suit is its first card's, and any play the program
reads as a dump answers a dump. A play of
another size than the lead, or holding more copies of a card than the decks have, cannot win.

>>> from chaodipi.engine.presets import CLASSIC
>>> from chaodipi.engine.order import trump_context
>>> from chaodipi.engine.cards import parse_cards, HEARTS
>>> from chaodipi.engine.units import Unit
>>> ctx = trump_context(CLASSIC, 4, HEARTS)
>>> pair = (Unit(2, tuple(parse_cards("C9"))),)
>>> trick_winner(ctx, pair, [parse_cards("H2 H3"), parse_cards("H2 H2"), parse_cards("CA CK")])
2
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Final

from chaodipi.engine.cards import LITTLE_JOKER
from chaodipi.engine.order import TRUMP, TrumpContext
from chaodipi.engine.ruleset import ThrowCompare
from chaodipi.engine.units import Unit, canonical_split, impossible_play, one_unit_of_shape

__all__ = ["trick_winner"]

Shape = tuple[int, int]
Key = tuple[int, ...]


def _shape_order(shape: Shape) -> tuple[int, int, int]:
    width, length = shape
    return (-width * length, -width, -length)


def _key(ctx: TrumpContext, order: Sequence[Shape], units: Sequence[Unit]) -> Key:
    """Tops of the units, largest shape first and higher first within a shape."""
    key: list[int] = []
    for shape in order:
        key += sorted((ctx.strength[u.top] for u in units if u.shape == shape), reverse=True)
    return tuple(key)


Tops = tuple[tuple[int, ...], ...]
"""Per shape of the lead (in comparison order), the tops of the units cut, higher first."""

_SETS = ((3, 1), (2, 1), (1, 1))


def _insert(tops: tuple[int, ...], top: int) -> tuple[int, ...]:
    i = 0
    while i < len(tops) and tops[i] >= top:
        i += 1
    return (*tops[:i], top, *tops[i:])


class _Cutter:
    """The best tops of a play cut into the lead's units (R-WIN), by dynamic programming.

    The play's kinds are laid out as slots, low to high. A state is the cards left and the
    units still owed; its value the best ``Tops`` of the units cut from it, or None when
    they cannot be cut. The lowest card left is the lowest step of whichever unit holds it,
    so a state tries each owed shape on it: a set there, or each linked run up from it.
    Adding one unit's top to a state's best value keeps it best (inserting one number into
    two sorted lists keeps their order), so the best of a state is the best of its
    choices and each state is solved once.

    Once no tractor is owed, triples, pairs and singles have a closed form (``_sets``).

    Bound: with at most 3 copies of a card (``impossible_play`` turns away the rest), at most
    one tractor (width 2 or more) crosses a kind, so the cards left are the play above the
    lowest slot less at most one crossing tractor per step: O(m²·b) of them for m slots and
    b ≤ 4 kinds on one step. The owed units are a sub-multiset of the lead's: O(n²·T)
    before the tractors are all cut (n cards; T, the sub-multisets of the lead's
    tractors, is at most 24 as their lengths sum to 18 steps or fewer). Each state tries
    O(S·b) runs of S ≤ n shapes and builds O(n) values: O(m²·b²·n⁴·T) in all, in practice
    a few hundred states.
    """

    def __init__(self, ctx: TrumpContext, order: Sequence[Shape], kinds: Sequence[int]) -> None:
        index = {k: i for i, k in enumerate(kinds)}
        # A throw's answers are cut as the throw is (``follow_link_up``: no joker links under
        # ``joker_tractor_alone``).
        self.up = [tuple(index[n] for n in ctx.follow_link_up[k] if n in index) for k in kinds]
        self.strength = [ctx.strength[k] for k in kinds]
        self.order = order
        # Tractors sort before every set (_shape_order): the first ``tractors`` shapes.
        self.tractors = sum(1 for _, length in order if length >= 2)
        self.memo: dict[tuple[tuple[int, ...], tuple[int, ...]], Tops | None] = {}

    def best(self, counts: tuple[int, ...], need: tuple[int, ...]) -> Tops | None:
        key = (counts, need)
        memo = self.memo
        if key in memo:
            return memo[key]
        found = self._solve(counts, need)
        memo[key] = found
        return found

    def _solve(self, counts: tuple[int, ...], need: tuple[int, ...]) -> Tops | None:
        order = self.order
        low = next((i for i, c in enumerate(counts) if c), -1)
        if low < 0:
            return tuple(() for _ in order)
        if not any(need[: self.tractors]):
            closed = self._sets(counts, need)
            if closed is not None:
                return closed[0]
        best: Tops | None = None
        for j, (width, length) in enumerate(order):
            if not need[j] or counts[low] < width:
                continue
            for run in self._runs(counts, low, width, length):
                left = list(counts)
                for i in run:
                    left[i] -= width
                owed = list(need)
                owed[j] -= 1
                rest = self.best(tuple(left), tuple(owed))
                if rest is None:
                    continue
                found = (*rest[:j], _insert(rest[j], self.strength[run[-1]]), *rest[j + 1 :])
                if best is None or found > best:
                    best = found
        return best

    def _runs(
        self, counts: tuple[int, ...], start: int, width: int, length: int
    ) -> list[tuple[int, ...]]:
        """Linked runs of ``length`` slots from ``start`` holding ``width`` copies each."""
        found: list[tuple[int, ...]] = []
        stack: list[tuple[int, ...]] = [(start,)]
        up = self.up
        while stack:
            run = stack.pop()
            if len(run) == length:
                found.append(run)
                continue
            for nxt in up[run[-1]]:
                if counts[nxt] >= width:
                    stack.append((*run, nxt))
        return found

    def _sets(self, counts: tuple[int, ...], need: tuple[int, ...]) -> tuple[Tops | None] | None:
        """The owed sets' best tops in closed form: ``(value,)``, or None if it does not apply.

        With at most three copies of a card, a kind gives one triple, or one pair and
        singles, or singles. The highest triples come from the highest kinds of three
        copies; the highest pairs from the kinds of two or more they leave; the singles
        are all the rest. Each pick is the best for its shape and leaves the next shape
        as much as any other pick with the same tops would. O(m log m).
        """
        order = self.order
        owed = dict.fromkeys(_SETS, 0)
        for shape, n in zip(order, need, strict=True):
            if n:
                if shape not in owed:
                    return None
                owed[shape] = n
        triples, pairs, singles = owed[(3, 1)], owed[(2, 1)], owed[(1, 1)]
        if max(counts) > 3 or 3 * triples + 2 * pairs + singles != sum(counts):
            return None  # the general search keeps the unchecked cases exact
        strength = self.strength
        held = sorted(((strength[i], c) for i, c in enumerate(counts) if c), reverse=True)
        tri: list[int] = []
        pr: list[int] = []
        rest: list[int] = []
        for top, c in held:
            if c == 3 and len(tri) < triples:
                tri.append(top)
            elif c >= 2 and len(pr) < pairs:
                pr.append(top)
                rest += [top] * (c - 2)
            else:
                rest += [top] * c
        if len(tri) < triples or len(pr) < pairs:
            return (None,)
        tops = {(3, 1): tuple(tri), (2, 1): tuple(pr), (1, 1): tuple(rest)}
        return (tuple(tops.get(shape, ()) for shape in order),)


def _play_key(
    ctx: TrumpContext,
    led: int,
    shapes: Counter[Shape],
    order: Sequence[Shape],
    size: int,
    wide: tuple[int, int],
    play: Sequence[int],
) -> Key | None:
    """The play's best comparison key, or None when it cannot win (``_Cutter``'s bound).

    A play of another size than the lead's, or of cards that cannot exist, cannot win.
    """
    suit = ctx.suit[play[0]] if play else -1
    if suit not in (led, TRUMP) or any(ctx.suit[k] != suit for k in play):
        return None
    if len(play) != size:
        return None
    held = Counter(play)
    if max(held.values()) > ctx.decks:
        return None  # cards that cannot exist (``impossible_play``)
    if ctx.decks <= 3:
        # Most plays fall here: with at most 3 copies a kind holds one set or tractor step
        # of width 2 or more, so the play needs a kind of 2 (or 3) copies for each.
        for width, steps in zip((2, 3), wide, strict=True):
            if steps and sum(1 for c in held.values() if c >= width) < steps:
                return None
    kinds = ctx.in_step_order(held)
    cutter = _Cutter(ctx, order, kinds)
    tops = cutter.best(tuple(held[k] for k in kinds), tuple(shapes[s] for s in order))
    if tops is None:
        return None
    return tuple(top for shape_tops in tops for top in shape_tops)


def _tractor_winner(
    ctx: TrumpContext, led: int, lead: Unit, follows: Sequence[Sequence[int]]
) -> int:
    # One tractor led: only a tractor of its shape, all led suit or all trump, can win. O(n).
    width, length = lead.width, len(lead.kinds)  # fields, not properties: interpreted, calls
    size = width * length
    strength, suit = ctx.strength, ctx.suit
    winner, best = 0, strength[lead.kinds[-1]]
    for i, play in enumerate(follows):
        if len(play) != size or suit[play[0]] not in (led, TRUMP):
            continue
        kinds = one_unit_of_shape(ctx, play, width, length)
        if kinds is not None and strength[kinds[-1]] > best:
            # strictly higher: the earlier equal card wins
            winner, best = i + 1, strength[kinds[-1]]
    return winner


def _highest_card_winner(
    ctx: TrumpContext, led: int, lead_units: Sequence[Unit], follows: Sequence[Sequence[int]]
) -> int:
    shapes = sorted(u.shape for u in lead_units)
    strength = ctx.strength
    # A unit's top is its highest card: the lead's highest is the highest top.
    winner, best = 0, max(strength[u.top] for u in lead_units)
    for i, play in enumerate(follows):
        suit = ctx.suit[play[0]] if play else -1
        if suit not in (led, TRUMP) or any(ctx.suit[k] != suit for k in play):
            continue
        if impossible_play(ctx, play) is not None:
            continue
        if sorted(u.shape for u in canonical_split(ctx, play)) != shapes:
            continue
        top = max(strength[k] for k in play)
        if top > best:  # strictly higher: the earlier equal card wins
            winner, best = i + 1, top
    return winner


# shengji-godot's suit enum (♠ 0, ♥ 1, ♦ 2, ♣ 3) by our suit (S H C D): its sort value ranks a
# side card by that number, then by rank, so side cards of different suits compare.
_GODOT_SUIT_NUMBER: Final = (0, 1, 3, 2)


def _godot_value(ctx: TrumpContext, k: int) -> int:
    """shengji-godot's sort value of a card, up to order: trump above every side card."""
    suit = ctx.suit[k]
    return ctx.strength[k] if suit == TRUMP else _GODOT_SUIT_NUMBER[suit] * 15 + ctx.step[k]


def _answers_dump(ctx: TrumpContext, play: Sequence[int]) -> bool:
    """Whether shengji-godot reads ``play`` as a dump, the only play that answers a dump.

    Of one suit: two or more units. Of several (the program takes a play's suit from its first
    card), anything but a tractor by its rank-only reading: pairs of consecutive ranks.
    """
    suits = {ctx.suit[k] for k in play}
    if len(suits) == 1:
        return len(canonical_split(ctx, play)) >= 2
    counts = Counter(play)
    if any(k >= LITTLE_JOKER or n % 2 for k, n in counts.items()) or len(play) < 4:
        return True
    ranks = sorted({k % 13 for k in counts})
    skip = [r for r in range(13) if r != ctx.level]
    for low, high in pairwise(ranks):
        if high - low != 1 and not (
            low in skip and high in skip and skip.index(high) - skip.index(low) == 1
        ):
            return True
    return len(ranks) * 2 != len(play)


def _first_card_winner(
    ctx: TrumpContext, led: int, lead_units: Sequence[Unit], follows: Sequence[Sequence[int]]
) -> int:
    """shengji-godot's ``determine_winner`` for a dump: a follow's suit is its first card's.

    A follow read as a dump (``_answers_dump``) answers, however its cards split; its highest
    card decides (``_godot_value``, strictly higher). On a side-suit lead the first trump one
    takes the trick whatever its cards, a later one must be higher, and no play of the led suit
    comes back after it.
    """
    winner, best = 0, max(_godot_value(ctx, k) for u in lead_units for k in u.kinds)
    trumped = False
    for i, play in enumerate(follows):
        if not play or impossible_play(ctx, play) is not None:
            continue
        first = ctx.suit[play[0]]
        if (first == led and trumped) or first not in (led, TRUMP):
            continue
        if not _answers_dump(ctx, play):
            continue
        top = max(_godot_value(ctx, k) for k in play)
        if first != led and not trumped:
            winner, best, trumped = i + 1, top, True
        elif top > best:
            winner, best = i + 1, top
    return winner


def trick_winner(
    ctx: TrumpContext, lead_units: Sequence[Unit], follows: Sequence[Sequence[int]]
) -> int:
    """Who wins the trick (R-WIN): 0 for the lead, ``i`` for ``follows[i - 1]``.

    ``lead_units`` are the lead's units as played (after a failed throw, the forced
    unit); the follows come in play order. Bound: O(n log n) a play for a single, pair,
    triple or tractor led; for a throw the play's best cutting (``_Cutter``) or, under
    ``HIGHEST_CARD``, its canonical split (``canonical_split``): polynomial in the n cards.
    """
    first = lead_units[0]
    suit = ctx.suit
    led = suit[first.kinds[-1]]
    if len(lead_units) == 1:
        if len(first.kinds) > 1:
            return _tractor_winner(ctx, led, first, follows)
        # A single, pair or triple led (most tricks): only copies of one card can win. Here,
        # not in a function of its own: a call costs as much as the loop, once a trick.
        strength = ctx.strength
        winner, top = 0, strength[first.kinds[0]]
        # enumerate without a start: compiled, only that form is a native loop.
        for i, play in enumerate(follows):
            if not play:
                continue
            card = play[0]
            if (
                strength[card] > top
                and suit[card] in (led, TRUMP)
                and play.count(card) == len(play)
            ):
                winner, top = i + 1, strength[card]
        return winner
    if len(lead_units) > 1 and ctx.throw_compare is ThrowCompare.HIGHEST_CARD:
        return _highest_card_winner(ctx, led, lead_units, follows)
    if len(lead_units) > 1 and ctx.throw_compare is ThrowCompare.ANY_THROW:
        return _first_card_winner(ctx, led, lead_units, follows)
    shapes = Counter(u.shape for u in lead_units)
    order = sorted(shapes, key=_shape_order)
    # LARGEST_UNIT_TOP compares a key's first entry only: the best cut's is the highest top of
    # the largest shape any cut reaches, as the first entry leads a key's comparison.
    top_only = ctx.throw_compare is ThrowCompare.LARGEST_UNIT_TOP
    winner, best = 0, _key(ctx, order, lead_units)
    if top_only:
        best = best[:1]
    size = sum(u.size for u in lead_units)
    # Steps of the lead's units of width 2 or more, and of width 3.
    wide = (
        sum(u.length for u in lead_units if u.width >= 2),
        sum(u.length for u in lead_units if u.width >= 3),
    )
    for i, play in enumerate(follows):
        key = _play_key(ctx, led, shapes, order, size, wide, play)
        if key is None:
            continue
        if top_only:
            key = key[:1]
        if key > best:  # strictly higher: the earlier equal card wins
            winner, best = i + 1, key
    return winner
