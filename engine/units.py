"""Units of play: single, pair, triple (三条) and tractor (拖拉机/连对) (R-UNIT).

A ``Unit`` is ``width`` identical cards on each of ``length`` consecutive linked
steps of one effective suit. A lead is split into units canonically (fewest
units, largest first: R-UNIT-SPLIT) unless the record carries the leader's own split.

>>> from chaodipi.engine.presets import CLASSIC
>>> from chaodipi.engine.order import trump_context
>>> from chaodipi.engine.cards import parse_cards, CLUBS, rank_index
>>> ctx = trump_context(CLASSIC, rank_index("6"), CLUBS)
>>> [u.label() for u in canonical_split(ctx, parse_cards("D5 D5 D7 D7 DK"))]
['♦5 ♦5 ♦7 ♦7', '♦K']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Final

from chaodipi.engine.cards import KINDS, format_cards, label_cards
from chaodipi.engine.order import TrumpContext

HeldCounts = Sequence[int] | Mapping[int, int]
"""Copies held per kind: a 54-int count vector or a Counter."""


@dataclass(frozen=True, slots=True)
class Unit:
    """``width`` copies of each kind in ``kinds`` (one kind per step, low to high)."""

    width: int
    kinds: tuple[int, ...]

    # Written out (@dataclass keeps them) so that mypyc compiles them: units are dict keys of
    # the follow cache and compared ~120 times a hand. The same as the generated ones.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Unit):
            return NotImplemented
        return self.width == other.width and self.kinds == other.kinds

    def __hash__(self) -> int:
        return hash((self.width, self.kinds))

    @property
    def length(self) -> int:
        return len(self.kinds)

    @property
    def size(self) -> int:
        return self.width * len(self.kinds)

    @property
    def is_tractor(self) -> bool:
        return len(self.kinds) >= 2

    @property
    def top(self) -> int:
        return self.kinds[-1]

    @property
    def shape(self) -> tuple[int, int]:
        """``(width, length)``: (1, 1) single, (2, 1) pair, (2, 3) three-pair tractor."""
        return (self.width, len(self.kinds))

    def cards(self) -> list[int]:
        """The unit's cards, low to high: ``width`` copies of each kind.

        >>> from chaodipi.engine.cards import parse_cards
        >>> tractor = Unit(2, tuple(parse_cards("C6 C7")))
        >>> str(tractor), tractor.label(), tractor.name()
        ('C6 C6 C7 C7', '♣6 ♣6 ♣7 ♣7', 'tractor of 2 pairs')
        """
        return [k for k in self.kinds for _ in range(self.width)]

    def label(self) -> str:
        """The unit's cards with suit symbols: ``♣6 ♣6 ♣7 ♣7``."""
        return label_cards(self.cards())

    def __str__(self) -> str:
        return format_cards(self.cards())

    def name(self) -> str:
        """The unit's kind in words: ``single``, ``pair``, ``triple``, ``tractor of 3 pairs``."""
        base = _SET_NAMES.get(self.width, f"{self.width} of a kind")
        if len(self.kinds) < 2:
            return base
        plural = _SET_PLURALS.get(self.width, "sets")
        return f"tractor of {self.length} {plural}"


_SET_NAMES = {1: "single", 2: "pair", 3: "triple"}
_SET_PLURALS = {2: "pairs", 3: "triples"}


class SplitError(ValueError):
    """A declared split that does not fit the lead."""


def impossible_play(ctx: TrumpContext, play: Sequence[int]) -> int | None:
    """A card ``play`` holds more copies of than the decks have, or None.

    Such a play cannot exist: it is rejected before any search (R-LEAD, R-WIN). O(n·k) for
    k kinds in the play, counted in C (a play is short, most are one kind).
    """
    decks = ctx.decks
    if len(play) <= decks:
        return None
    for k in set(play):
        if play.count(k) > decks:
            return k
    return None


def one_unit_of_shape(
    ctx: TrumpContext, play: Sequence[int], width: int, length: int
) -> list[int] | None:
    """``play``'s kinds low to high when it is one unit of ``length`` steps of ``width`` copies
    (a pair, triple or tractor of that shape, of any one effective suit, linked as ``ctx``
    links them), else None. O(n log n).

    >>> from chaodipi.engine.presets import CLASSIC
    >>> from chaodipi.engine.order import trump_context
    >>> from chaodipi.engine.cards import parse_cards, HEARTS, rank_index
    >>> ctx = trump_context(CLASSIC, rank_index("2"), HEARTS)
    >>> one_unit_of_shape(ctx, parse_cards("S4 S3 S3 S4"), 2, 2) == parse_cards("S3 S4")
    True
    >>> one_unit_of_shape(ctx, parse_cards("S3 S3 S5 S5"), 2, 2) is None
    True
    """
    held = Counter(play)
    if len(held) != length or any(c != width for c in held.values()):
        return None
    kinds = ctx.in_step_order(held)
    for low, high in pairwise(kinds):
        if ctx.suit[high] != ctx.suit[low] or high not in ctx.link_up[low]:
            return None
    return kinds


def chains_from(ctx: TrumpContext, counts: HeldCounts, start: int, width: int) -> Iterator[Unit]:
    """Tractors of ``width`` whose lowest step holds ``start`` (every length ≥ 2).

    Bound: a tractor takes one kind a step, and only the level cards of the other suits
    share a step (b ≤ 4 kinds): at most m·b tractors for m kinds, each built in O(m).
    """
    stack: list[tuple[int, ...]] = [(start,)]
    while stack:
        chain = stack.pop()
        for nxt in ctx.link_up[chain[-1]]:
            if counts[nxt] >= width:
                longer = (*chain, nxt)
                yield Unit(width, longer)
                stack.append(longer)


def units_containing_lowest(
    ctx: TrumpContext, counts: HeldCounts, kind: int, max_width: int
) -> Iterator[Unit]:
    """Every unit that can be cut from ``counts`` with ``kind`` as its lowest step.

    Bound: for each width up to ``max_width``, ``chains_from`` and one set: O(w·m·b) units.
    """
    have = counts[kind]
    for width in range(min(have, max_width), 0, -1):
        if width >= 2:
            yield from chains_from(ctx, counts, kind, width)
        yield set_unit(width, kind)


_SETS: Final = tuple(tuple(Unit(width, (kind,)) for kind in range(KINDS)) for width in range(4))
"""Every set of one card by width (1 to 3: no ruleset deals more than three decks) and kind,
``set_unit``'s (width 0 is a placeholder, never given)."""


def set_unit(width: int, kind: int) -> Unit:
    """``width`` copies of card ``kind`` (a single, pair or triple): one ``Unit`` for each,
    made when the module is: the commonest units, looked up in a table rather than built (or
    looked up through ``functools.lru_cache``, a call several times as long as the table's).

    >>> set_unit(2, 12) is set_unit(2, 12), set_unit(2, 12) == Unit(2, (12,))
    (True, True)
    """
    if 0 < width < 4 and 0 <= kind < KINDS:
        return _SETS[width][kind]
    return Unit(width, (kind,))  # a width no ruleset's set has, or not a card


def _split_key(units: Sequence[Unit]) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    # Fewest units; then largest units first; then tractors before loose sets.
    # Fields, not the size and length properties: interpreted, each a call.
    sizes = tuple(sorted(-u.width * len(u.kinds) for u in units))
    lengths = tuple(sorted(-len(u.kinds) for u in units))
    return (len(units), sizes, lengths)


def canonical_split(ctx: TrumpContext, kinds: Iterable[int]) -> list[Unit]:
    """The canonical units of cards of one effective suit, largest first (R-UNIT-SPLIT).

    Cards that cannot exist (more copies of a card than ``ctx.decks``) raise ``SplitError``
    before any search. Bound: see ``_canonical``.
    """
    cards = sorted(kinds)
    if len(set(cards)) == len(cards):
        # No card twice (a single, or a throw of singles: the common throw): every card is a
        # unit, the highest first and equal ones in kind order, as the search would order
        # them. Stable when reversed: equal strengths keep kind order.
        return [set_unit(1, k) for k in sorted(cards, key=ctx.strength.__getitem__, reverse=True)]
    ordered = tuple(sorted(cards, key=ctx.step.__getitem__))  # ``ctx.in_step_order``
    if ordered[0] == ordered[-1]:
        # One kind only (a pair, a triple): no search needed.
        if len(ordered) > ctx.decks:
            raise _impossible(ctx, ordered, ordered[0])
        return [set_unit(len(ordered), ordered[0])]
    # Copies of each kind counted in C, without a Counter (whose ``__init__`` is interpreted
    # even compiled): O(n·d) for n cards of d kinds.
    width = max(map(ordered.count, set(ordered)))
    if width > ctx.decks:
        raise _impossible(ctx, ordered, next(k for k in ordered if ordered.count(k) == width))
    return list(_canonical(ctx, ordered, max(width, 1)))


def _impossible(ctx: TrumpContext, cards: Sequence[int], extra: int) -> SplitError:
    shown = label_cards([extra] * cards.count(extra))
    return SplitError(f"{shown} cannot exist: {ctx.decks} decks hold {ctx.decks} of each card")


@lru_cache(maxsize=65536)
def _canonical(ctx: TrumpContext, ordered: tuple[int, ...], max_width: int) -> tuple[Unit, ...]:
    """The first split, in the order its choices are tried, with the least ``_split_key``.

    Dynamic programming on the cards left (the cache is the table): the lowest card left is
    the lowest step of the unit that holds it, so a state tries each unit
    (``units_containing_lowest``) on it and takes its best rest from the table; one unit
    added to two rests keeps their order, so the best rest makes the best split.

    Bound: with at most 3 copies of a card (``canonical_split`` refuses more), a tractor
    (width 2 or more) crossing a kind leaves no room for another, so the cards left are
    the lead above its lowest card less at most one crossing tractor per step: O(m²·b)
    states for m kinds and b ≤ 4 kinds on one step. A state tries O(w·m·b) units and keys
    each split in O(n log n): O(m³·b²·w·n log n) for n cards, with m ≤ 22 and w ≤ 3.
    """
    if not ordered:
        return ()
    counts = [0] * KINDS  # a count vector: copied and looked up at C speed, unlike a Counter
    for k in ordered:
        counts[k] += 1
    strength = ctx.strength

    def order(unit: Unit) -> tuple[int, int, int]:
        kinds = unit.kinds
        return (-unit.width * len(kinds), -len(kinds), -strength[kinds[-1]])

    kinds = dict.fromkeys(ordered)  # each kind once, low to high
    link_up = ctx.link_up
    if all(counts[up] < 2 for k in kinds if counts[k] >= 2 for up in link_up[k]):
        # No tractor can be cut (no two linked kinds held twice): one set of each kind is the
        # only split with the fewest units, the one the search below would find.
        return tuple(sorted([set_unit(counts[k], k) for k in kinds], key=order))
    best: tuple[Unit, ...] = ()
    best_key: tuple[int, tuple[int, ...], tuple[int, ...]] | None = None
    for unit in units_containing_lowest(ctx, counts, ordered[0], max_width):
        rest = counts.copy()
        for k in unit.kinds:
            rest[k] -= unit.width
        remaining = tuple(k for k in kinds for _ in range(rest[k]))
        units = (unit, *_canonical(ctx, remaining, max_width))
        key = _split_key(units)
        if best_key is None or key < best_key:
            best, best_key = units, key
    return tuple(sorted(best, key=order))
