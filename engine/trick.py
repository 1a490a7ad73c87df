"""Who wins a trick (R-WIN, R-ORDER-TIE).

A play can win only with the lead's exact shape (it can be cut into the same
units) and all in the led suit or all trump: two trump singles do not beat a pair
(若是两张主牌单张是无法杀掉对子的). Plays are compared largest unit first (a
tractor by its top), the first difference decides, and a later play must be
strictly higher: among equal cards the first played wins. Under
``ThrowCompare.HIGHEST_CARD`` (the 80-fen program) a play answering a throw must
split canonically into the throw's units, and its single highest card decides.

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
from collections.abc import Iterator, Sequence

from chaodipi.engine.order import TRUMP, TrumpContext
from chaodipi.engine.ruleset import ThrowCompare
from chaodipi.engine.units import Unit, canonical_split

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


def _cuttings(
    ctx: TrumpContext, counts: Counter[int], need: Counter[Shape]
) -> Iterator[list[Unit]]:
    """Every way to cut ``counts`` into exactly the units ``need`` asks for."""
    present = [k for k, c in counts.items() if c]
    if not present:
        yield []
        return
    # The lowest card is the lowest step of whichever unit holds it.
    low = min(present, key=lambda k: (ctx.step[k], k))
    for (width, length), wanted in need.items():
        if not wanted or counts[low] < width:
            continue
        for kinds in _runs(ctx, counts, low, width, length):
            for k in kinds:
                counts[k] -= width
            need[(width, length)] -= 1
            for rest in _cuttings(ctx, counts, need):
                yield [Unit(width, kinds), *rest]
            need[(width, length)] += 1
            for k in kinds:
                counts[k] += width


def _runs(
    ctx: TrumpContext, counts: Counter[int], start: int, width: int, length: int
) -> Iterator[tuple[int, ...]]:
    """Linked runs of ``length`` steps from ``start`` holding ``width`` copies each."""
    stack: list[tuple[int, ...]] = [(start,)]
    while stack:
        run = stack.pop()
        if len(run) == length:
            yield run
            continue
        for nxt in ctx.link_up[run[-1]]:
            if counts[nxt] >= width:
                stack.append((*run, nxt))


def _play_key(
    ctx: TrumpContext, led: int, shapes: Counter[Shape], order: Sequence[Shape], play: Sequence[int]
) -> Key | None:
    """The play's best comparison key, or None when it cannot win."""
    suit = ctx.suit[play[0]] if play else -1
    if suit not in (led, TRUMP) or any(ctx.suit[k] != suit for k in play):
        return None
    best: Key | None = None
    for units in _cuttings(ctx, Counter(play), Counter(shapes)):
        key = _key(ctx, order, units)
        if best is None or key > best:
            best = key
    return best


def _set_winner(ctx: TrumpContext, led: int, lead: Unit, follows: Sequence[Sequence[int]]) -> int:
    # A single, pair or triple led (the common case): only copies of one card can win.
    winner, best = 0, ctx.strength[lead.kinds[0]]
    for i, play in enumerate(follows, 1):
        if not play:
            continue
        first = play[0]
        same = ctx.suit[first] in (led, TRUMP) and play.count(first) == len(play)
        if same and ctx.strength[first] > best:
            winner, best = i, ctx.strength[first]
    return winner


def _highest_card_winner(
    ctx: TrumpContext, led: int, lead_units: Sequence[Unit], follows: Sequence[Sequence[int]]
) -> int:
    shapes = sorted(u.shape for u in lead_units)
    strength = ctx.strength
    # A unit's top is its highest card: the lead's highest is the highest top.
    winner, best = 0, max(strength[u.top] for u in lead_units)
    for i, play in enumerate(follows, 1):
        suit = ctx.suit[play[0]] if play else -1
        if suit not in (led, TRUMP) or any(ctx.suit[k] != suit for k in play):
            continue
        if sorted(u.shape for u in canonical_split(ctx, play)) != shapes:
            continue
        top = max(strength[k] for k in play)
        if top > best:  # strictly higher: the earlier equal card wins
            winner, best = i, top
    return winner


def trick_winner(
    ctx: TrumpContext, lead_units: Sequence[Unit], follows: Sequence[Sequence[int]]
) -> int:
    """Who wins the trick (R-WIN): 0 for the lead, ``i`` for ``follows[i - 1]``.

    ``lead_units`` are the lead's units as played (after a failed throw, the forced
    unit); the follows come in play order.
    """
    led = ctx.suit[lead_units[0].top]
    if len(lead_units) == 1 and lead_units[0].length == 1:
        return _set_winner(ctx, led, lead_units[0], follows)
    if len(lead_units) > 1 and ctx.throw_compare is ThrowCompare.HIGHEST_CARD:
        return _highest_card_winner(ctx, led, lead_units, follows)
    shapes = Counter(u.shape for u in lead_units)
    order = sorted(shapes, key=_shape_order)
    winner, best = 0, _key(ctx, order, lead_units)
    for i, play in enumerate(follows, 1):
        key = _play_key(ctx, led, shapes, order, play)
        if key is not None and key > best:  # strictly higher: the earlier equal card wins
            winner, best = i, key
    return winner
