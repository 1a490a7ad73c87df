"""Leading and throwing (甩牌): lead format, unit split and the throw check.

A lead is all of one effective suit (R-LEAD). Its cards are cut into units
canonically, or as the leader declared (R-UNIT-SPLIT). A lead of two or more
units is a throw; it stands only if no other seat holds, in that suit, a unit of
the same shape that beats one of its units (R-THROW-CHECK). A failed throw
forces one unit (R-THROW-FORCE) and may cost points (R-THROW-PENALTY).

>>> from chaodipi.engine.presets import CLASSIC
>>> from chaodipi.engine.order import trump_context
>>> from chaodipi.engine.cards import parse_cards, HEARTS
>>> ctx = trump_context(CLASSIC, 4, HEARTS)
>>> check_lead(ctx, parse_cards("C5 HA")).code
'LEAD_MIXED_SUITS'
>>> Lead(lead_units(ctx, parse_cards("C7 C7 C8 C8 CA")))
Lead(throw of a tractor of 2 pairs and a single: C7 C7 C8 C8 CA)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from chaodipi.engine.cards import KINDS, SUIT_SYMBOLS, Cards, Hand, is_joker, label_cards
from chaodipi.engine.order import TRUMP, TrumpContext
from chaodipi.engine.ruleset import ForcedTie, ForcedUnit, PenaltyBasis, ThrowRule
from chaodipi.engine.units import Unit, canonical_split, chains_from, impossible_play, set_unit
from chaodipi.engine.verdict import Verdict

__all__ = [
    "LEADS_OF_ONE_KIND",
    "Beat",
    "Lead",
    "ThrowVerdict",
    "check_lead",
    "check_throw",
    "describe_lead",
    "highest_over",
    "lead_of_one_kind",
    "lead_units",
    "suit_label",
    "unit_order_key",
]

# The throw rule's choices as module constants, read without the enum type's attribute hook (see
# ``engine.bidding``).
_SMALLEST: Final = ForcedUnit.SMALLEST
_LOWEST_TOP: Final = ForcedUnit.LOWEST_TOP
_LOWEST_CARD: Final = ForcedUnit.LOWEST_CARD
_ATTEMPT_ORDER: Final = ForcedTie.ATTEMPT_ORDER
_PENALTY_BY_ATTEMPT: Final = PenaltyBasis.ATTEMPT
_PENALTY_BY_FORCED_UNIT: Final = PenaltyBasis.FORCED_UNIT


@dataclass(frozen=True, slots=True)
class Lead:
    """A lead as the other seats answer it: its units, largest first (R-UNIT-SPLIT).

    One unit is a plain lead; two or more are a throw (甩牌, R-THROW). After a failed
    throw the lead that counts is the forced unit alone (``ThrowVerdict.lead``).
    """

    units: tuple[Unit, ...]

    def __init__(self, units: tuple[Unit, ...]) -> None:
        object.__setattr__(self, "units", units)

    @property
    def cards(self) -> Cards:
        """The lead's cards, unit by unit."""
        return Cards([k for unit in self.units for k in unit.cards()])

    @property
    def is_throw(self) -> bool:
        return len(self.units) > 1

    def describe(self) -> str:
        """The lead's format in words: ``pair``, ``throw of 2 pairs`` (see ``describe_lead``)."""
        return describe_lead(self.units)

    def __str__(self) -> str:
        return str(self.cards)

    def __repr__(self) -> str:
        return f"Lead({self.describe()}: {self.cards})"


@dataclass(frozen=True, slots=True)
class Beat:
    """Evidence that a thrown ``unit`` fails: ``seat`` holds ``by``, which beats it."""

    unit: Unit
    seat: int
    by: Unit

    def __init__(self, unit: Unit, seat: int, by: Unit) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "by", by)


@dataclass(frozen=True, slots=True)
class ThrowVerdict:
    """Outcome of the throw check of one lead (R-THROW-CHECK, R-THROW-FORCE, R-THROW-PENALTY).

    ``beats`` holds, for every beaten unit, every seat that beats it with the highest such
    unit it holds, as ``(unit, seat, by)``; ``beaten`` makes them ``Beat``s when asked (most
    failed throws are enforced as due and never show their evidence). ``forced`` is what the
    leader must play when the throw fails (a unit of the throw, or one card of one:
    ``ThrowRule.forced_unit``); ``penalty`` the points due (0 when it stands); ``reason`` says
    it in a referee's words.
    ``tied`` holds every unit the forced-unit rule cannot tell apart from ``forced`` (the
    same shape, cards of equal order; ``forced`` first, the rest in card-kind order) and
    ``forced_options`` those a table may force (R-THROW-FORCE-TIE): all of ``tied``, or
    the one ``ThrowRule.forced_tie`` names. ``accepts_forced`` says whether a forced play
    is one of them.
    """

    units: tuple[Unit, ...]
    is_throw: bool
    stands: bool
    beats: tuple[tuple[Unit, int, Unit], ...]
    forced: Unit | None
    penalty: int
    leader: int
    cards: tuple[int, ...]
    stake_charge: str
    suit: int  # the lead's effective suit, for the message
    tied: tuple[Unit, ...]
    forced_options: tuple[Unit, ...]

    def __init__(
        self,
        units: tuple[Unit, ...],
        is_throw: bool,
        stands: bool,
        beats: tuple[tuple[Unit, int, Unit], ...],
        forced: Unit | None,
        penalty: int,
        leader: int,
        cards: tuple[int, ...],
        stake_charge: str = "",
        suit: int = TRUMP,
        tied: tuple[Unit, ...] = (),
        forced_options: tuple[Unit, ...] = (),
    ) -> None:
        object.__setattr__(self, "units", units)
        object.__setattr__(self, "is_throw", is_throw)
        object.__setattr__(self, "stands", stands)
        object.__setattr__(self, "beats", beats)
        object.__setattr__(self, "forced", forced)
        object.__setattr__(self, "penalty", penalty)
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "stake_charge", stake_charge)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "tied", tied)
        object.__setattr__(self, "forced_options", forced_options)

    @property
    def beaten(self) -> tuple[Beat, ...]:
        """Every ``Beat`` found, unit by unit of the throw and seat by seat after the leader."""
        return tuple([Beat(unit, seat, by) for unit, seat, by in self.beats])

    @property
    def rule(self) -> str:
        """The ruling that decides: R-THROW-CHECK, or R-THROW-FORCE for a failed throw."""
        return "R-THROW-CHECK" if self.stands else "R-THROW-FORCE"

    def accepts_forced(self, cards: Sequence[int]) -> bool:
        """Whether ``cards``, put down after this failed throw, are a unit it may force."""
        # A list's ``in``: cheaper than any() over a generator (the options are one or few).
        return sorted(cards) in [sorted(unit.cards()) for unit in self.forced_options]

    @property
    def lead(self) -> Lead:
        """What the followers answer: the lead when it stands, else the forced unit alone."""
        forced = self.forced
        if forced is not None and not self.stands:
            if len(forced.kinds) == 1:
                return lead_of_one_kind(forced.kinds[0], forced.width)  # made once, not anew
            return Lead((forced,))
        return Lead(self.units)

    @property
    def reason(self) -> str:
        """The verdict in a referee's words (built on demand: most leads never need it)."""
        shown = label_cards(self.cards)
        if not self.is_throw:
            return f"{shown} led by seat {self.leader} is one unit, not a throw"
        if self.stands:
            where = suit_label(self.suit)
            return (
                f"{shown} thrown by seat {self.leader} stands: no other seat holds a higher "
                f"unit of the same shape in {where}"
            )
        assert self.forced is not None
        evidence = ", ".join(
            f"seat {seat} holds {by.label()} over {unit.label()}" for unit, seat, by in self.beats
        )
        forced = self.forced.label()
        others = [unit.label() for unit in self.forced_options[1:]]
        if others:
            forced += f" (or {' or '.join(others)}, tied with it)"
        text = f"{shown} thrown by seat {self.leader} fails: {evidence}; forced {forced}"
        if self.penalty:
            text += f"; penalty {self.penalty} points"
        if self.stake_charge:
            text += f"; {self.stake_charge} the table stake (底金) is charged"
        return text


def suit_label(suit: int) -> str:
    """``♣`` for a side suit, ``trumps`` for the trump suit (主)."""
    return "trumps" if suit == TRUMP else SUIT_SYMBOLS[suit]


def unit_order_key(ctx: TrumpContext, unit: Unit) -> tuple[int, int, int, int]:
    """Sort key putting larger units first, then wider, then longer, then higher tops."""
    width, kinds = unit.width, unit.kinds  # fields, not properties: interpreted, calls
    return (-width * len(kinds), -width, -len(kinds), -ctx.strength[kinds[-1]])


def _unit_of(ctx: TrumpContext, part: Sequence[int]) -> Unit | str:
    """The unit formed by ``part``, or why it is none."""
    if not part:
        return "an empty unit"
    counts = Counter(part)
    widths = set(counts.values())
    if len(widths) != 1:
        return f"{label_cards(part)} is not a unit: its cards are not all in equal sets"
    width = widths.pop()
    kinds = ctx.in_step_order(counts)
    if len(kinds) == 1:
        return set_unit(width, kinds[0])
    if width == 1:
        return f"{label_cards(part)} is not a unit: different cards make no pair"
    for low, high in pairwise(kinds):
        if ctx.suit[low] != ctx.suit[high] or high not in ctx.link_up[low]:
            sets = f"{label_cards([low] * width)} and {label_cards([high] * width)}"
            return f"{label_cards(part)} is not a unit: {sets} are not adjacent"
    return Unit(width, tuple(kinds))


def _suit_groups(ctx: TrumpContext, cards: Sequence[int]) -> dict[int, list[int]]:
    groups: dict[int, list[int]] = {}
    for k in cards:
        groups.setdefault(ctx.suit[k], []).append(k)
    return groups


def check_lead(
    ctx: TrumpContext,
    cards: Sequence[int],
    declared_split: Sequence[Sequence[int]] | None = None,
) -> Verdict | None:
    """Why a lead is illegal (R-HELD, R-LEAD, R-UNIT-SPLIT), or None when it is a legal lead.

    More copies of a card than the decks have (``CARDS_IMPOSSIBLE``) are refused first.

    A declared split must partition the cards into units of this context and, since
    it only settles ties (the ``changshu`` AAAKK case), use as few units as the
    canonical split.
    """
    if not cards:
        return Verdict("LEAD_EMPTY", "a lead needs at least one card")
    extra = impossible_play(ctx, cards)
    if extra is not None:
        # Checked first: no split or throw search runs on cards that cannot exist.
        n = cards.count(extra)
        return Verdict(
            "CARDS_IMPOSSIBLE",
            f"{label_cards([extra] * n)} cannot be led: {ctx.decks} decks hold "
            f"{ctx.decks} of each card",
        )
    groups = _suit_groups(ctx, cards)
    if len(groups) > 1:
        parts = ", ".join(f"{suit_label(s)} ({label_cards(ks)})" for s, ks in groups.items())
        return Verdict("LEAD_MIXED_SUITS", f"a lead must be of one suit but mixes {parts}")
    if declared_split is None:
        return None
    units: list[Unit] = []
    for part in declared_split:
        unit = _unit_of(ctx, part)
        if isinstance(unit, str):
            return Verdict("SPLIT_INVALID", f"declared split: {unit}")
        units.append(unit)
    split_cards = [k for part in declared_split for k in part]
    if Counter(split_cards) != Counter(cards):
        return Verdict(
            "SPLIT_INVALID",
            f"declared split {label_cards(split_cards)} is not the lead {label_cards(cards)}",
        )
    canonical = canonical_split(ctx, cards)
    if len(units) > len(canonical):
        best = ", ".join(u.label() for u in canonical)
        return Verdict(
            "SPLIT_INVALID",
            f"declared split has {len(units)} units where {len(canonical)} suffice ({best})",
        )
    return None


def lead_units(
    ctx: TrumpContext,
    cards: Sequence[int],
    declared_split: Sequence[Sequence[int]] | None = None,
) -> tuple[Unit, ...]:
    """The lead's units, largest first: the declared split when valid, else the canonical one."""
    units: list[Unit] = []
    if declared_split is not None and check_lead(ctx, cards, declared_split) is None:
        for part in declared_split:
            unit = _unit_of(ctx, part)
            if isinstance(unit, Unit):
                units.append(unit)
    else:
        units = canonical_split(ctx, cards)
        if units and units[0].width == 1:
            # Singles only (the canonical split puts a larger unit first), already highest
            # first, as the sort below would leave them: most throws.
            return tuple(units)
    if len(units) > 1 and ctx.joker_tractor_alone:
        units = [piece for unit in units for piece in _joker_links_cut(unit)]
    return tuple(sorted(units, key=lambda u: unit_order_key(ctx, u)))


def _joker_links_cut(unit: Unit) -> list[Unit]:
    """A tractor cut at its joker links: each joker's set apart, the run below kept whole
    (LJ LJ BJ BJ is two pairs). The jokers top the order, so the run below is one chain."""
    if len(unit.kinds) == 1 or not any(is_joker(k) for k in unit.kinds):
        return [unit]
    run = [k for k in unit.kinds if not is_joker(k)]
    jokers = [set_unit(unit.width, k) for k in unit.kinds if is_joker(k)]
    if len(run) >= 2:
        return [Unit(unit.width, tuple(run)), *jokers]
    return [set_unit(unit.width, k) for k in run] + jokers


LEADS_OF_ONE_KIND: Final = tuple(
    tuple(Lead((set_unit(width, kind),)) for kind in range(KINDS)) for width in range(4)
)
"""``lead_of_one_kind``'s leads by width (1 to 3; 0 a placeholder) and kind. The auditor
takes a trick's common lead from here, where a call a trick would cost more: its width is at
most the decks (two or three), its kind one the reader read."""


def lead_of_one_kind(kind: int, width: int) -> Lead:
    """The lead of ``width`` copies of one card (a single, pair or triple): one unit, any table.

    The most common lead, made once per card and width when the module is.

    >>> from chaodipi.engine.cards import parse_card
    >>> lead_of_one_kind(parse_card("C9"), 2)
    Lead(pair: C9 C9)
    """
    if 0 < width < 4 and 0 <= kind < KINDS:
        return LEADS_OF_ONE_KIND[width][kind]
    return Lead((set_unit(width, kind),))


def describe_lead(units: Sequence[Unit]) -> str:
    """The lead's format in words: ``pair``, ``tractor of 2 pairs``, ``throw of 2 pairs``."""
    if len(units) == 1:
        return units[0].name()
    names = Counter(u.name() for u in units)
    parts = [f"a {name}" if n == 1 else f"{n} {_plural(name)}" for name, n in names.items()]
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"throw of {joined}"


def _plural(name: str) -> str:
    return name.replace("tractor", "tractors", 1) if name.startswith("tractor") else name + "s"


def highest_over(ctx: TrumpContext, counts: Sequence[int], unit: Unit) -> Unit | None:
    """The highest unit of ``unit``'s shape in ``counts`` that strictly beats it, if any.

    A set of ``width`` needs ``width`` copies or more (with three decks a triple holds a
    pair); a tractor needs the same width and length, and a longer one contains one.

    Bound: one scan of the suit's m kinds for a set; for a tractor, the linked runs up from
    each kind, at most m·b of them (b ≤ 4 kinds on a step, and one such step): O(m²·b).
    """
    # The unit's fields read once, not through its properties: interpreted, each a call.
    width, kinds = unit.width, unit.kinds
    top, length = kinds[-1], len(kinds)
    suit, floor = ctx.suit[top], ctx.step[top]
    if length == 1:
        k = _top_set(ctx, counts, suit, width)
        return set_unit(width, k) if k is not None and ctx.step[k] > floor else None
    suit_steps = ctx.steps[suit]
    best: Unit | None = None
    for step_kinds in suit_steps:
        for k in step_kinds:
            if counts[k] < width:
                continue
            for chain in chains_from(ctx, counts, k, width):
                if chain.length != length or ctx.step[chain.top] <= floor:
                    continue
                if best is None or ctx.step[chain.top] > ctx.step[best.top]:
                    best = chain
    return best


def _top_set(ctx: TrumpContext, counts: Sequence[int], suit: int, width: int) -> int | None:
    """The kind of the highest set of ``width`` that ``counts`` holds in ``suit`` (of a step's
    kinds, the first in its order), if any. Bound: one scan of the suit's m kinds."""
    for k in ctx.kinds_down[suit]:
        if counts[k] >= width:
            return k
    return None


def _highest_sets(
    ctx: TrumpContext, hands: Sequence[Hand], seats: Sequence[int], suit: int, width: int
) -> list[tuple[int, Unit, int]]:
    """For each of ``seats`` holding a set of ``width`` in ``suit``: the seat, its highest
    such set (``_top_set``) and that set's step. Bound: one scan of the suit's m kinds a seat.
    """
    held: list[tuple[int, Unit, int]] = []
    for seat in seats:
        k = _top_set(ctx, hands[seat].counts, suit, width)
        if k is not None:
            held.append((seat, set_unit(width, k), ctx.step[k]))
    return held


def _tied_lowest(units: Sequence[Unit], key: Callable[[Unit], tuple[int, ...]]) -> list[Unit]:
    """The units of ``units`` with the lowest ``key``, in card-kind order.

    Each unit keyed once (in C, by ``map``), the lowest found by ``min``; a lone unit (a failed
    throw with one beaten unit) is not keyed at all. Tied units have one width, so their kinds
    order them (units of several widths, tied by their tops alone, hold distinct kinds); a unit
    given twice is tied once.
    """
    if len(units) == 1:
        return [units[0]]
    keys = list(map(key, units))
    lowest = min(keys)
    tied = [unit for unit, value in zip(units, keys, strict=True) if value == lowest]
    if len(tied) > 1:
        tied = sorted(dict.fromkeys(tied), key=lambda u: u.kinds)
    return tied


def _forced_tie(
    ctx: TrumpContext, rule: ThrowRule, units: Sequence[Unit], beaten: Sequence[Unit]
) -> list[Unit]:
    """The units the forced-unit rule cannot tell apart: same shape, cards of equal order
    (``LOWEST_BEATEN_CARD``: tops of equal order, whatever the shapes).

    Bound: one pass and one sort of the u units, O(u log u).
    """
    strength = ctx.strength
    if rule.forced_unit is _SMALLEST:
        # 强制出最小牌: fewest cards, then the lowest top.
        # Fields, not the size and top properties: interpreted, each a call.
        return _tied_lowest(
            beaten, lambda u: (u.width * len(u.kinds), strength[u.kinds[-1]], u.width)
        )
    if rule.forced_unit is _LOWEST_CARD:
        # One card, the lowest of the whole throw (shengji-godot's _smallest_card): a unit's
        # lowest card is its first kind.
        lowest_cards = _tied_lowest(units, lambda u: (strength[u.kinds[0]],))
        return sorted({set_unit(1, unit.kinds[0]) for unit in lowest_cards}, key=lambda u: u.kinds)
    if rule.forced_unit is _LOWEST_TOP:
        # The whole throw, beaten or not; on equal tops the larger unit comes first, as the
        # 80-fen program lists tractors and pairs before singles.
        return _tied_lowest(
            units, lambda u: (strength[u.kinds[-1]], -u.width * len(u.kinds), -u.width)
        )
    # LOWEST_BEATEN_CARD: one card, the lowest of the beaten unit with the lowest top. Only
    # the top decides (checkThrow compares the units' last cards), so equal tops tie whatever
    # their shapes: a single ♠3 and a pair ♣3 ♣3 at no-trump.
    lowest = _tied_lowest(beaten, lambda u: (strength[u.kinds[-1]],))
    return sorted({set_unit(1, unit.kinds[0]) for unit in lowest}, key=lambda u: u.kinds)


def _first_in_attempt(tied: Sequence[Unit], cards: Sequence[int]) -> Unit:
    """The tied unit whose top card comes first in the attempt (the 80-fen program's pick)."""
    first: dict[int, int] = {}
    for i, k in enumerate(cards):
        first.setdefault(k, i)
    return min(tied, key=lambda unit: first.get(unit.top, len(cards)))


def check_throw(
    ctx: TrumpContext,
    rule: ThrowRule,
    leader: int,
    cards: Sequence[int],
    hands: Sequence[Hand],
    declared_split: Sequence[Sequence[int]] | None = None,
) -> ThrowVerdict:
    """Decide whether a lead stands as a throw (R-THROW-CHECK, R-THROW-FORCE, R-THROW-PENALTY).

    ``ctx`` orders the cards (the ruleset's order rule); ``rule`` is its throw rule.
    ``hands`` are the four seats' hands before the lead; only the three other seats are
    searched, partner included. Trumping in is not considered. Call ``check_lead``
    first: the cards must be one effective suit, of cards that can exist.

    Bound: the split (``canonical_split``), then for each of the three seats one scan of the
    suit's m kinds for each width of set thrown, and one ``highest_over`` for each of the u
    units that is a tractor: O(u·m²·b), then the ties.
    """
    units = lead_units(ctx, cards, declared_split)
    shown = tuple(cards)
    if len(units) < 2:
        return ThrowVerdict(
            units,
            False,
            True,
            (),
            None,
            0,
            leader,
            shown,
            suit=ctx.suit[units[0].kinds[-1]] if units else TRUMP,
        )
    beats: list[tuple[Unit, int, Unit]] = []
    beaten_units: list[Unit] = []  # a unit beaten by several seats counts once
    seats = ((leader + 1) % 4, (leader + 2) % 4, (leader + 3) % 4)
    suit = ctx.suit[units[0].kinds[-1]]
    step = ctx.step
    # A seat's highest set of a width beats every thrown set of that width on a lower step:
    # found once a seat and width, not once a unit (a throw of singles, the common throw,
    # asks each seat for its highest card of the suit once).
    highest_sets: dict[int, list[tuple[int, Unit, int]]] = {}
    for unit in units:
        found = len(beats)
        width, kinds = unit.width, unit.kinds
        if len(kinds) == 1 or rule.tractors_as_pairs:
            # A tractor checked as its pairs falls to a set above its lowest pair.
            held = highest_sets.get(width)
            if held is None:
                held = highest_sets[width] = _highest_sets(ctx, hands, seats, suit, width)
            floor = step[kinds[0]]
            for seat, highest, at in held:
                if at > floor:
                    beats.append((unit, seat, highest))
        else:
            for seat in seats:
                by = highest_over(ctx, hands[seat].counts, unit)
                if by is not None:
                    beats.append((unit, seat, by))
        if len(beats) > found:
            beaten_units.append(unit)
    if not beats:
        return ThrowVerdict(units, True, True, (), None, 0, leader, shown, suit=suit)
    tied = _forced_tie(ctx, rule, units, beaten_units)
    options: tuple[Unit, ...]
    if rule.forced_tie is _ATTEMPT_ORDER:
        picked = _first_in_attempt(tied, cards)
        tied = [picked, *(unit for unit in tied if unit != picked)]
        options = (picked,)
    else:
        options = tuple(tied)
    forced = tied[0]
    if rule.penalty_basis is _PENALTY_BY_ATTEMPT:
        counted = len(cards)
    elif rule.penalty_basis is _PENALTY_BY_FORCED_UNIT:
        counted = forced.size
    else:
        counted = sum(u.size for u in beaten_units)
    penalty = rule.penalty_per_card * counted
    return ThrowVerdict(
        units,
        True,
        False,
        tuple(beats),
        forced,
        penalty,
        leader,
        shown,
        rule.stake_charge,
        suit,
        tuple(tied),
        options,
    )
