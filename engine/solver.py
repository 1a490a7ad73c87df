"""A double-dummy endgame solver: the defenders' points under perfect play (R-WIN, R-KITTY).

With all four hands known, the end of a hand is a two-team game of perfect information: the
defenders (the seats not on the dealer's side) maximise the points they end with, the
dealer's side minimises them; the last trick adds the kitty bonus (抠底) with the
multiplier of its lead (R-KITTY) when a defender wins it. ``Solver.value`` searches it by
null-window alpha-beta probes (MTD(f)) over tables keyed by what remains (the four count
vectors, the seat to lead and the plays of the trick on the table), which keep the bounds
proved on each position's value and its best play found.

What is searched (docs/analysis.md says why):

- leads: every unit of the leader's hand (each single, pair, triple and tractor it can cut),
  and in each suit the throw that stands found by dropping beaten units (``standing_throw``);
  a failed throw is never searched: it puts down a unit the leader could lead on its own,
  and costs its side the penalty besides (R-THROW-FORCE, R-THROW-SIDE);
- follows: every legal follow, generated from the rules rather than filtered from every
  subset of the hand (``legal_follows``);
- plays a seat cannot tell apart are searched once (``equivalent_cards``).

A ``Solver`` counts the positions it visits; past its ``budget`` (or once its ``stopped``
says so) it raises ``BudgetExceeded`` and gives no value at all.

>>> from chaodipi.engine.presets import CLASSIC
>>> from chaodipi.engine.table import Table
>>> from chaodipi.engine.cards import parse_cards
>>> table = Table(CLASSIC, level="2", trump="H")
>>> game = Endgame(table, dealer=0, kitty=tuple(parse_cards("DK D5")))
>>> solver = Solver(game, budget=10_000)
>>> last = [parse_cards(h) for h in ("S3", "SA", "S4", "SK")]  # seat 1 defends
>>> solver.value(Position.start(last, leader=0))  # ♠K's 10, and the kitty's 15 × 2
40
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter, mul
from typing import Final

from chaodipi.engine.cards import KINDS, POINTS, Hand
from chaodipi.engine.follow import check_follow
from chaodipi.engine.lead import check_throw, lead_units
from chaodipi.engine.order import TRUMP, TrumpContext
from chaodipi.engine.scoring import kitty_bonus, kitty_multiplier, last_trick_bonus
from chaodipi.engine.table import Table
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import Unit, chains_from, set_unit, units_containing_lowest

__all__ = [
    "BudgetExceeded",
    "Endgame",
    "Play",
    "Position",
    "Solver",
    "equivalent_cards",
    "lead_options",
    "legal_follows",
    "loose_packed",
    "standing_throw",
    "sub_multisets",
]

Counts = bytes
"""One seat's hand as copies per kind: 54 bytes (an immutable count vector)."""


class BudgetExceeded(Exception):
    """The search visited more positions than its budget allows: no value is given."""


@dataclass(frozen=True, slots=True)
class Endgame:
    """What stays fixed while the end of a hand is searched: the table, the dealer, the kitty."""

    table: Table
    dealer: int
    kitty: tuple[int, ...]

    def defends(self, seat: int) -> bool:
        """Whether ``seat`` is a defender (not on the dealer's side)."""
        return seat % 2 != self.dealer % 2


@dataclass(frozen=True, slots=True)
class Play:
    """A seat's play: its cards and, for a lead, the units the others answer."""

    seat: int
    cards: tuple[int, ...]
    units: tuple[Unit, ...] = ()


@dataclass(frozen=True, slots=True)
class Position:
    """Four hands as count vectors, the seat that leads this trick, and its plays so far.

    ``lead`` holds the units the follows answer once the trick is led (after a failed throw
    the forced unit's).
    """

    hands: tuple[Counts, Counts, Counts, Counts]
    leader: int
    plays: tuple[tuple[int, ...], ...] = ()
    lead: tuple[Unit, ...] = ()

    @classmethod
    def start(cls, hands: Sequence[Sequence[int]], leader: int) -> Position:
        """A trick about to be led, from the four seats' cards (lists of kinds)."""
        vectors = []
        for cards in hands:
            counts = bytearray(KINDS)
            for k in cards:
                counts[k] += 1
            vectors.append(bytes(counts))
        return cls((vectors[0], vectors[1], vectors[2], vectors[3]), leader)

    @property
    def seat(self) -> int:
        """The seat to play."""
        return (self.leader + len(self.plays)) % 4

    @property
    def over(self) -> bool:
        """Whether every card has been played."""
        return not self.plays and not any(self.hands[self.leader])

    def play(self, play: Play) -> Position:
        """The position after ``play`` (by the seat to play); a fourth play ends the trick.

        Ending the trick leaves ``plays`` complete: ``Solver.after`` moves on to the next.
        """
        hands = list(self.hands)
        hands[play.seat] = _without(hands[play.seat], play.cards)
        lead = play.units if not self.plays else self.lead
        return Position(
            (hands[0], hands[1], hands[2], hands[3]), self.leader, (*self.plays, play.cards), lead
        )


_EMPTY: Final = bytes(KINDS)
"""A hand with no cards left."""


def _without(counts: Counts, cards: Sequence[int]) -> Counts:
    left = bytearray(counts)
    for k in cards:
        left[k] -= 1
    return bytes(left)


def _hand(counts: Counts) -> Hand:
    # Not through ``Hand()``: its checks of cards given would read none, the counts being a
    # count vector already.
    hand = Hand.__new__(Hand)
    hand.counts = list(counts)
    return hand


def sub_multisets(held: Sequence[tuple[int, int]], size: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``size`` cards from ``held`` (kind, copies), each once.

    Bound: at most C(d + size - 1, size) results for ``d`` distinct kinds.

    >>> list(sub_multisets([(3, 2), (7, 1)], 2))
    [(3, 3), (3, 7)]
    """
    if size == 0:
        yield ()
        return
    if not held:
        return
    (kind, copies), rest = held[0], held[1:]
    if sum(c for _, c in held) < size:
        return
    for take in range(min(copies, size), -1, -1):
        for tail in sub_multisets(rest, size - take):
            yield (kind,) * take + tail


def legal_follows(
    table: Table, counts: Counts, lead: Sequence[Unit], size: int
) -> list[tuple[int, ...]]:
    """Every legal follow to ``lead`` (``size`` cards) from the hand ``counts`` (R-FOLLOW).

    Generated by the follow rules: a hand holding ``size`` cards of the led suit or fewer
    plays them all and every multiset of the rest (R-FOLLOW-SUIT); a longer holding plays
    ``size`` cards of the suit only, a single any of its kinds, a larger lead the multisets
    of the suit's holding that meet the shape duty (R-FOLLOW-SHAPE, decided by the engine's
    ``check_follow``). With ``same_shape_follow_free`` a led pair or tractor is also answered
    by each unit of its shape of another suit that ``check_follow`` lets free. Bound:
    C(d + size - 1, size) candidates for ``d`` distinct kinds held (of the suit, or of the rest
    when the suit runs out), and O(m²·b) units of the lead's shape.
    """
    ctx = table.context
    suit = ctx.suit[lead[0].top]
    in_suit = [(k, counts[k]) for k in ctx.kinds[suit] if counts[k]]
    held = sum(c for _, c in in_suit)
    free = _same_shape_answers(ctx, counts, lead, suit) if held else []
    if held <= size:
        base = tuple(k for k, c in in_suit for _ in range(c))
        rest = [(k, c) for k, c in enumerate(counts) if c and ctx.suit[k] != suit]
        return [base + extra for extra in sub_multisets(rest, size - held)] + free
    if size == 1:
        return [(k,) for k, _ in in_suit]
    hand = _hand(counts)
    return [
        play for play in sub_multisets(in_suit, size) if check_follow(ctx, lead, hand, play) is None
    ] + free


def _same_shape_answers(
    ctx: TrumpContext, counts: Counts, lead: Sequence[Unit], suit: int
) -> list[tuple[int, ...]]:
    """The units of a led pair's or tractor's shape outside the led suit that follow it freely
    (``same_shape_follow_free``), from a hand holding cards of the led suit."""
    if not ctx.same_shape_follow_free or len(lead) != 1 or lead[0].width < 2:
        return []
    width, length = lead[0].width, len(lead[0].kinds)
    units = [
        unit
        for k, c in enumerate(counts)
        if c >= width and ctx.suit[k] != suit
        for unit in ((set_unit(width, k),) if length == 1 else chains_from(ctx, counts, k, width))
        if len(unit.kinds) == length
    ]
    hand = _hand(counts)
    plays = [tuple(unit.cards()) for unit in units]
    return [play for play in plays if check_follow(ctx, lead, hand, play) is None]


def standing_throw(
    table: Table, hands: Sequence[Counts], seat: int, suit: int
) -> tuple[tuple[int, ...], tuple[Unit, ...]] | None:
    """The throw ``seat`` leads in ``suit`` that stands, or None when none of two units does.

    All the seat's cards of the suit, less every unit another seat beats, again until the
    rest stands (R-THROW-CHECK): at most one throw check per card held.
    """
    ctx = table.context
    cards = [k for k in ctx.kinds[suit] for _ in range(hands[seat][k])]
    others: list[Hand] = []
    while len(cards) >= 2:
        others = others or [_hand(h) for h in hands]
        # The check splits the cards into units first, and tells one unit from a throw.
        verdict = check_throw(ctx, table.ruleset.throw, seat, cards, others)
        if not verdict.is_throw:
            return None
        if verdict.stands:
            return tuple(cards), verdict.units
        for unit in {beat.unit for beat in verdict.beaten}:
            for k in unit.cards():
                cards.remove(k)
    return None


SuitBytes = bytes | tuple[bytes, ...]
"""A count vector's bytes of one suit's kinds (``_suit_bytes``)."""

Throws = dict[tuple[int, int, SuitBytes, SuitBytes, SuitBytes, SuitBytes], Play | None]
"""Standing throws (``lead_options``) by the seat, the suit and the four hands' bytes of it."""


_SUIT_BYTES: dict[tuple[int, ...], Callable[[bytes], SuitBytes]] = {}


def _suit_bytes(kinds: tuple[int, ...]) -> Callable[[bytes], SuitBytes]:
    """A reader of a count vector's bytes of ``kinds`` (a suit's, one at least): its slices over
    the runs of consecutive kinds, in C (cheaper to make and to hash than a tuple of the
    kinds' copies). One per suit of each order met.

    >>> _suit_bytes((3, 4, 7))(bytes([0, 0, 0, 2, 1, 0, 0, 1]))
    (b'\\x02\\x01', b'\\x01')
    >>> _suit_bytes((3, 4))(bytes([0, 0, 0, 2, 1, 0, 0, 1]))
    b'\\x02\\x01'
    """
    read = _SUIT_BYTES.get(kinds)
    if read is None:
        runs: list[list[int]] = []
        for k in sorted(kinds):
            if runs and runs[-1][1] == k:
                runs[-1][1] = k + 1
            else:
                runs.append([k, k + 1])
        read = _SUIT_BYTES[kinds] = itemgetter(*[slice(start, end) for start, end in runs])
    return read


UnitLeads = dict[tuple[Counts, int], tuple[list[Play], list[int]]]
"""A seat's unit leads (``lead_options``) and the suits it holds two cards of at least, by its
hand and the seat."""


def lead_options(
    table: Table,
    hands: Sequence[Counts],
    seat: int,
    throws: Throws | None = None,
    units: UnitLeads | None = None,
) -> list[Play]:
    """The leads searched: every unit the seat can cut, then each suit's standing throw.

    ``units``, when given, keeps the units per the seat's hand (``_unit_leads``); ``throws``
    each suit's throw per the four hands' cards of it (``_suit_throws``).
    """
    cut, suits = _unit_leads(table, hands[seat], seat, units)
    return [*cut, *_suit_throws(table, hands, seat, suits, throws)]


def _unit_leads(
    table: Table, counts: Counts, seat: int, units: UnitLeads | None
) -> tuple[list[Play], list[int]]:
    """Every unit ``seat`` can cut from its hand ``counts``, and the suits it holds two cards of
    at least (where it may throw): kept in ``units`` when given."""
    kept = None if units is None else units.get((counts, seat))
    if kept is None:
        ctx = table.context
        cut: list[Play] = []
        held: dict[int, int] = {}
        for k in range(KINDS):
            if counts[k]:
                suit = ctx.suit[k]
                held[suit] = held.get(suit, 0) + counts[k]
                for unit in units_containing_lowest(ctx, counts, k, counts[k]):
                    cut.append(Play(seat, tuple(unit.cards()), (unit,)))
        kept = (cut, sorted(suit for suit, n in held.items() if n >= 2))
        if units is not None:
            units[(counts, seat)] = kept
    return kept


def _suit_throws(
    table: Table,
    hands: Sequence[Counts],
    seat: int,
    suits: list[int],
    throws: Throws | None,
    readers: dict[int, Callable[[bytes], SuitBytes]] | None = None,
) -> list[Play]:
    """The standing throw ``seat`` leads in each of ``suits`` (two cards of it held at least)
    that has one, where throws are allowed. A throw check reads the hands' cards of the thrown
    suit only (R-THROW-CHECK does not count trumping in): ``throws``, when given, keeps each
    suit's throw per those cards, read by ``readers`` per suit when given (``_suit_bytes``)."""
    found: list[Play] = []
    if not table.ruleset.throw.allowed:
        return found
    throws = {} if throws is None else throws
    h0, h1, h2, h3 = hands
    for suit in suits:
        read = _suit_bytes(table.context.kinds[suit]) if readers is None else readers[suit]
        key = (seat, suit, read(h0), read(h1), read(h2), read(h3))
        if key not in throws:
            throw = standing_throw(table, hands, seat, suit)
            throws[key] = None if throw is None else Play(seat, *throw)
        play = throws[key]
        if play is not None:
            found.append(play)
    return found


def equivalent_cards(
    table: Table, hands: Sequence[Counts], seat: int, trick: Sequence[Sequence[int]]
) -> dict[int, tuple[int, ...]]:
    """Classes of the seat's cards that no play can tell apart: kind -> its class, low first.

    A class is a run of kinds of one effective suit, each held once by ``seat`` and nowhere
    else in play (the other hands and ``trick``, the cards on the table), of equal points,
    with no other card in play ordered between them or level with one of them. Swapping
    two of them changes no comparison with a card in play, no unit (none is a pair), no
    throw check and no score: the plays differ only in names. One scan of the deck and of
    the suits the seat holds such cards in.
    """
    total, once = _in_play(hands, trick)
    own = hands[seat]
    return _classes(table, total, once, own, int.from_bytes(own, "big"), _suit_masks(table.context))


def _in_play(hands: Sequence[Counts], trick: Sequence[Sequence[int]]) -> tuple[Counts, int]:
    """The cards in play per kind (the hands and ``trick``, the cards on the table), as a count
    vector, and the kinds in play once, as a number holding 1 in their bytes (``_joint``'s
    order: the first kind highest)."""
    # The four vectors added as numbers, one byte a kind: no kind has copies enough to carry.
    whole = 0
    for hand in hands:
        whole += int.from_bytes(hand, "big")
    for cards in trick:
        for k in cards:
            whole += 1 << 8 * (KINDS - 1 - k)
    return _tally(whole)


def _tally(whole: int) -> tuple[Counts, int]:
    """``_in_play`` from the cards in play as one number, a byte per kind (the first kind
    highest)."""
    total = whole.to_bytes(KINDS, "big")
    return total, int.from_bytes(total.translate(_ONCE), "big")


_ONCE: Final = bytes(int(n == 1) for n in range(256))
"""A byte translation keeping 1 and making every other count 0 (``_in_play``)."""

SuitMasks = tuple[tuple[int, int, Callable[[bytes], SuitBytes]], ...]
"""Each suit with a kind, low first, a number holding 0xff in its kinds' bytes (``_joint``'s
order) and the reader of its bytes (``_suit_bytes``)."""


def _suit_masks(ctx: TrumpContext) -> SuitMasks:
    """Each suit of ``ctx`` with a kind, its ``_kinds_mask`` and its ``_suit_bytes`` (found once
    here, not by its kinds' hash per suit read: ``_classes``, ``_suit_throws``)."""
    return tuple(
        (suit, _kinds_mask(kinds), _suit_bytes(kinds))
        for suit, kinds in enumerate(ctx.kinds)
        if kinds
    )


def _kinds_mask(kinds: Sequence[int]) -> int:
    """A number holding 0xff in the bytes of ``kinds`` (``_joint``'s order): and-ed with a
    count vector read as a number, or a ``_joint`` number, it keeps those kinds' bytes.

    >>> hex(_kinds_mask([KINDS - 1, KINDS - 3]))
    '0xff00ff'
    """
    return sum(0xFF << 8 * (KINDS - 1 - k) for k in kinds)


_HELD: Final = re.compile(b"[^\\x00]")


def _cards_held(counts: Counts) -> tuple[int, ...]:
    """The cards of a count vector, low kinds first, copies repeated (the kinds held found by a
    scan in C: at a hand's end, a few of 54)."""
    cards: list[int] = []
    for found in _HELD.finditer(counts):
        k = found.start()
        cards.extend([k] * counts[k])
    return tuple(cards)


SuitClasses = dict[tuple[int, SuitBytes, SuitBytes, bool, bool], list[tuple[int, ...]]]
"""A seat's classes in one suit (``_suit_classes``) by the suit, the cards of it in play and the
seat's, and ``_classes``' ``sole`` and ``points``."""


def _classes(
    table: Table,
    total: Counts,
    once: int,
    own: Counts,
    number: int,
    masks: SuitMasks,
    sole: bool = False,
    points: bool = True,
    kept: SuitClasses | None = None,
) -> dict[int, tuple[int, ...]]:
    """``equivalent_cards`` from the cards in play per kind (``total``), the kinds in play
    once (``once``, as ``_in_play`` gives them), the seat's own cards (also as a ``number``,
    read as ``int.from_bytes`` reads it) and the deck's suits (``_suit_masks``).

    With ``sole``, a suit whose cards in play are all the seat's has a class per points of
    its cards held once, whatever lies between them: no other seat can play a card of that
    suit again, so its cards meet only cards of other suits (which rank them by suit alone)
    and the seat's own (never in one trick with another of the seat's plays). Without
    ``points``, classes are not split by points: their cards differ in points only
    (``Solver._shed``). A suit's classes depend on its cards in play and the seat's only:
    ``kept``, when given, keeps them per those.
    """
    ctx = table.context
    # The seat's kinds alone in play as a number: told apart per suit without a scan per kind.
    alone = number & once
    classes: dict[int, tuple[int, ...]] = {}
    if not alone & (alone - 1):  # one such kind at most
        return classes
    kept = {} if kept is None else kept
    # A class holds two of the seat's cards alone in play, of one suit.
    for suit, mask, read in masks:
        in_suit = alone & mask
        if not in_suit & (in_suit - 1):
            continue
        key = (suit, read(total), read(own), sole, points)
        runs = kept.get(key)
        if runs is None:
            runs = kept[key] = _suit_classes(
                ctx, suit, total, own, sole and key[1] == key[2], points
            )
        for members in runs:
            for k in members:
                classes[k] = members
    return classes


def _suit_classes(
    ctx: TrumpContext,
    suit: int,
    total: Sequence[int],
    own: Counts,
    sole: bool,
    points: bool,
) -> list[tuple[int, ...]]:
    """``_classes`` in one suit, each class a run of kinds, low first; ``sole``: the suit's
    cards in play are all the seat's."""
    runs: list[tuple[int, ...]] = []
    if sole:
        by_points: dict[int, list[int]] = {}
        for k in ctx.kinds[suit]:
            if own[k] == 1:
                by_points.setdefault(POINTS[k] if points else 0, []).append(k)
        for members in by_points.values():
            _close(members, runs)
        return runs
    run: list[int] = []
    for step in ctx.steps[suit]:
        if len(step) == 1:  # most steps: one kind, no list to build when out of play
            k = step[0]
            if not total[k]:
                continue
            whole = total[k] == 1 and own[k] == 1
            members = [k] if whole else []
        else:
            in_play = [k for k in step if total[k]]
            if not in_play:
                continue
            members = [k for k in in_play if own[k] == 1 and total[k] == 1]
            whole = len(members) == len(in_play) and (not points or _one_points(members))
        if whole and (not points or not run or POINTS[run[0]] == POINTS[members[0]]):
            run.extend(members)
            continue
        _close(run, runs)
        run = members if whole else []
    _close(run, runs)
    return runs


def _one_points(kinds: Sequence[int]) -> bool:
    return all(POINTS[k] == POINTS[kinds[0]] for k in kinds)


def _close(run: list[int], runs: list[tuple[int, ...]]) -> None:
    if len(run) >= 2:
        runs.append(tuple(run))


def _canonical(cards: tuple[int, ...], classes: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
    """The play with each class's cards replaced by as many of its lowest members."""
    used: dict[tuple[int, ...], int] = {}
    kept: list[int] = []
    for k in cards:
        members = classes.get(k)
        if members is None:
            kept.append(k)
        else:
            used[members] = used.get(members, 0) + 1
    for members, n in used.items():
        kept.extend(members[:n])
    return tuple(sorted(kept))


SuitSteps = tuple[tuple[int, int], ...]
"""A suit's steps, low to high: a step of one kind as (the kind, the kind when of no points else
-1), a step of several as (-2 - its place among those steps, its first kind of no points or
-1)."""

Layout = tuple[tuple[int, SuitSteps], ...]
"""Each suit of the deck with a kind: a number holding 0xff in its kinds' bytes (a mask of a
``_joint`` number) and its steps (``_alike``)."""

LooseShifts = tuple[dict[int, int], ...]
"""Per suit (as ``Layout``), what packing its loose cards adds to a ``_joint`` number, by the
suit's part of it."""


def _layout(table: Table) -> tuple[Layout, tuple[tuple[int, ...], ...]]:
    layout: list[tuple[int, SuitSteps]] = []
    shared: list[tuple[int, ...]] = []
    for kinds, steps in zip(table.context.kinds, table.context.steps, strict=True):
        if not kinds:
            continue
        suit: list[tuple[int, int]] = []
        for step in steps:
            free = next((k for k in step if not POINTS[k]), -1)
            if len(step) == 1:
                suit.append((step[0], free))
            else:
                suit.append((-2 - len(shared), free))
                shared.append(step)
        layout.append((_kinds_mask(kinds), tuple(suit)))
    return tuple(layout), tuple(shared)


def _joint(numbers: Sequence[int]) -> int:
    """The four hands as one number, from each read as a number (a byte per kind, the first
    kind highest): holding seat ``s``'s copies in bits ``2s`` and ``2s + 1`` (three decks at
    most: no carry)."""
    n0, n1, n2, n3 = numbers
    return n0 + (n1 << 2) + (n2 << 4) + (n3 << 6)


def _alike(
    layout: Layout,
    shared: tuple[tuple[int, ...], ...],
    shifts: LooseShifts,
    joint: int,
) -> int:
    """The hands with each loose card moved as low as it goes past no other card in play, as
    ``_joint`` gives them (``joint``, the hands so).

    A loose card is of a kind of no points that is the only one in play on its step and of
    which no seat holds two: it is in no pair or tractor, so only its suit, its points and
    its order against the cards in play count (its copies tie as before: they stay one kind).
    Moved to a lower step of its suit where no card is in play, to a kind of no points, past
    only loose cards (which keep their order), it gives the same game: the same units, follow
    duties, throw checks, trick winners and points (R-UNIT, R-FOLLOW, R-THROW-CHECK, R-WIN).
    Packing the loose cards between two other cards of a suit onto the lowest such steps
    above the lower one makes one of every hands that differ only in where those cards lie.
    The packing is made suit by suit from the suit's part of the joint hands alone: ``shifts``
    keeps each suit's (one pass over its steps) per that part, masked from the joint number
    (its bytes made only for a pass).
    """
    packed = joint
    vector = b""
    for (mask, steps), kept in zip(layout, shifts, strict=True):
        key = joint & mask
        shift = kept.get(key)
        if shift is None:
            vector = vector or joint.to_bytes(KINDS, "big")
            shift = kept[key] = _loose_shift(steps, shared, vector)
        packed += shift
    return packed


def _loose_shift(steps: SuitSteps, shared: tuple[tuple[int, ...], ...], vector: bytes) -> int:
    """What moving a suit's loose cards (``_alike``) adds to the joint hands, from their bytes
    ``vector`` and the suit's ``steps``."""
    shift = 0
    low: list[int] = []  # the kinds loose cards may take since the suit's last other card
    taken = 0
    for k, free in steps:
        if k < 0:
            in_play = [kind for kind in shared[-2 - k] if vector[kind]]
            if len(in_play) != 1:
                if not in_play and free >= 0:
                    low.append(free)
                elif in_play:
                    low.clear()
                    taken = 0
                continue
            k = in_play[0]
        elif not vector[k]:
            if free >= 0:
                low.append(free)
            continue
        seats = vector[k]
        # A seat's two bits hold 2 or 3 (a pair held) when the higher one is set.
        if POINTS[k] or seats & 0b10101010:
            low.clear()
            taken = 0
            continue
        low.append(free)
        to = low[taken]
        taken += 1
        # Each seat holding the card (one copy) holds it at ``to`` instead.
        shift += seats * ((1 << 8 * (KINDS - 1 - to)) - (1 << 8 * (KINDS - 1 - k)))
    return shift


def loose_packed(table: Table, hands: tuple[Counts, ...]) -> tuple[Counts, ...]:
    """The hands at a trick's start with their loose cards packed low (``_alike``): a game of
    the same value, and the same for every hands that differ only in where those cards lie.

    >>> from chaodipi.engine.presets import CLASSIC
    >>> from chaodipi.engine.cards import format_cards, parse_cards
    >>> table = Table(CLASSIC, level="2", trump="H")
    >>> hands = Position.start([parse_cards(h) for h in ("S7", "S9", "ST", "SQ")], 0).hands
    >>> [format_cards([k for k in range(KINDS) if hand[k]]) for hand in loose_packed(table, hands)]
    ['S3', 'S4', 'ST', 'SJ']
    """
    layout, steps = _layout(table)
    shifts: LooseShifts = tuple({} for _ in layout)
    joint = _joint([int.from_bytes(hand, "big") for hand in hands])
    vector = _alike(layout, steps, shifts, joint).to_bytes(KINDS, "big")
    seats = [bytes([n >> 2 * s & 3 for n in vector]) for s in range(4)]
    return (seats[0], seats[1], seats[2], seats[3])


Classes = tuple[dict[int, tuple[int, ...]], ...]
"""Each seat's classes of equivalent cards (``equivalent_cards``) for one trick, and fifth the
shed cards of the trick's last seat (``Solver._shed``)."""


def _trick_classes(
    table: Table,
    total: Counts,
    once: int,
    hands: Sequence[Counts],
    numbers: Sequence[int],
    leader: int,
    masks: SuitMasks,
    sole: bool,
    made: dict[int, tuple[int, ...]] | None = None,
    kept: SuitClasses | None = None,
) -> Classes:
    """A trick's ``Classes`` from the cards in play (``_in_play``), the hands (and each read as
    a number) and its leader; ``masks`` and ``sole`` (``_classes``) where the trick starts;
    ``made``, the leader's if already made; ``kept``, each suit's classes (``_classes``)."""
    last = (leader + 3) % 4
    return (
        *(
            made
            if s == leader and made is not None
            else _classes(table, total, once, hand, numbers[s], masks, sole, kept=kept)
            for s, hand in enumerate(hands)
        ),
        _classes(
            table,
            total,
            once,
            hands[last],
            numbers[last],
            masks,
            sole=True,
            points=False,
            kept=kept,
        ),
    )


def _reach(ctx: TrumpContext, lead: Sequence[Unit], cards: tuple[int, ...]) -> int:
    """How a follow to ``lead`` may take the trick (R-WIN): to a set led (single, pair,
    triple), copies of one card of the led suit or trump, by that card's strength; to a larger
    lead, cards all of the led suit or all trump, as 0 (``trick_winner`` decides); else -1.
    """
    first = ctx.suit[cards[0]]
    if first != ctx.suit[lead[0].top] and first != TRUMP:
        return -1
    if len(lead) > 1 or lead[0].length > 1:
        return 0 if all(ctx.suit[k] == first for k in cards) else -1
    return ctx.strength[cards[0]] if cards.count(cards[0]) == len(cards) else -1


LOW, HIGH = -(1 << 30), 1 << 30


class _Entry:
    """A position in a solver's tables: the bounds proved on its value (``low`` to ``high``),
    its options in the order tried, the points of each, the hand each leaves and the index of
    the best found, the trick's classes of equivalent cards (at a trick's start, made when a
    lead is first searched past it: about a third of the trick starts expanded never are, their
    leads ending the hand or cut off) and lead, and within a trick the seat each option leaves
    winning it."""

    __slots__ = (
        "alike",
        "best",
        "classes",
        "high",
        "lead",
        "lefts",
        "low",
        "most",
        "options",
        "pending",
        "points",
        "wins",
    )

    def __init__(
        self,
        options: list[Play],
        classes: Classes | None,
        lead: tuple[Unit, ...],
        wins: list[int],
        points: list[int],
        lefts: list[Counts],
    ) -> None:
        self.low, self.high, self.best = LOW, HIGH, 0
        self.options = options
        self.classes = classes
        self.lead = lead
        self.wins = wins
        self.points = points
        self.lefts = lefts
        self.alike: list[int] = []
        self.most = HIGH
        # At a trick's start, what its classes are made from when first needed: the cards in
        # play (``_in_play``), the hands read as numbers and the leader's classes.
        self.pending: tuple[Counts, int, list[int], dict[int, tuple[int, ...]]] | None = None

    def cut(self, alpha: int, beta: int) -> tuple[int | None, int, int]:
        """The value, when the bounds proved settle it for the window ``alpha``–``beta``
        (else None), and the window narrowed to those bounds."""
        low, high = self.low, self.high
        if low >= beta or low == high:
            return low, alpha, beta
        if high <= alpha:
            return high, alpha, beta
        return None, max(alpha, low), min(beta, high)


@dataclass(slots=True)
class Solver:
    """Null-window alpha-beta over one hand's end, with its tables and node count.

    ``value`` gives the points the defenders add from a position on (tricks, kitty bonus and the
    last trick's own bonus); ``nodes`` counts the positions expanded (their plays searched), all
    calls together, and past ``budget`` a call raises ``BudgetExceeded``, as it does once
    ``stopped`` (asked every 4,096 positions) says so. ``table`` keeps, per trick start (the
    four count vectors and the leader), and ``_inner``, per position within a trick (with the
    plays on the table), the bounds proved on its value, its plays and the best one found; both
    are shared by every call. Trick starts alike (``loose_packed``) share their bounds through
    ``_alike``, one entry per trick start expanded at most; ``_loose`` keeps how each suit's loose
    cards pack (per the suit's cards in the four hands), one entry per suit of a trick start
    expanded at most. Plays are tried best found first, in a position not searched before the
    play that last cut off a sibling (``_killers``), then likely-best first (big and high leads;
    a follow that wins the trick for its side, with points, before one that loses it, without).
    Worst case: the game tree, the product over plays of the options searched (see
    ``lead_options`` and ``legal_follows``), once per probe; the budget is the bound that holds.
    It bounds memory too: ``_answers`` (a seat's follows per its hand, the trick and its classes,
    ordered, with the seat each leaves winning),
    ``_follows`` (those follows, as plays with what orders them and how each may take the trick,
    per the seat, its hand, the lead and its classes only: one entry per ``_answers`` entry at
    most), ``_sheds`` (the last play's options left by ``_shed``, per all it reads) and
    ``_killers`` (the play that last cut off a position, per seat, its hand and the plays on the
    table) gain at most one entry per position expanded, as the tables do, ``_singles`` and
    ``_last_tricks`` (last tricks scored without a search) one per position counted,
    ``_hands_after`` (a hand less a play) one per option of an ``_answers`` or ``_lead_plays``
    entry at most, ``_numbers`` (a hand read as a number) four per trick start expanded at
    most, ``_throws`` one per suit of a trick start expanded, ``_lead_plays`` (a
    leader's leads per its hand, its classes and the standing throws) one per trick start
    expanded or listed (``plays``), and
    ``_classes_by_suit`` (a seat's classes in a suit per the suit's cards in play and the
    seat's) at most five per suit of a trick start expanded or searched from.
    """

    game: Endgame
    budget: int
    stopped: Callable[[], bool] | None = None
    nodes: int = 0
    table: dict[tuple[tuple[Counts, ...], int], _Entry] = field(default_factory=dict)
    _inner: dict[tuple[tuple[Counts, ...], int, tuple[tuple[int, ...], ...]], _Entry] = field(
        default_factory=dict
    )
    _follows: dict[
        tuple[Counts, int, tuple[Unit, ...], tuple[tuple[int, ...], ...]],
        list[tuple[Play, int, int, int]],
    ] = field(default_factory=dict)
    _answers: dict[
        tuple[Counts, int, tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]],
        tuple[tuple[Unit, ...], tuple[list[Play], list[int], list[int], list[Counts]]],
    ] = field(default_factory=dict)
    _throws: Throws = field(default_factory=dict)
    _sheds: dict[
        tuple[int, tuple[tuple[int, ...], ...], tuple[int, ...], tuple[tuple[int, ...], ...]],
        tuple[list[Play], list[int], list[int], list[int] | None],
    ] = field(default_factory=dict)
    _classes_by_suit: SuitClasses = field(default_factory=dict)
    _lead_plays: dict[
        tuple[Counts, int, tuple[tuple[int, ...], ...], tuple[Play, ...]],
        tuple[list[Play], list[int], list[Counts]],
    ] = field(default_factory=dict)
    _units: UnitLeads = field(default_factory=dict)
    _kitty: dict[tuple[Unit, ...], int] = field(default_factory=dict)
    _winners: dict[tuple[tuple[Unit, ...], tuple[tuple[int, ...], ...]], int] = field(
        default_factory=dict
    )
    _factor: int = 1
    _guess: int = 0
    _most: dict[Counts, int] = field(default_factory=dict)
    _bonus: dict[int, int] = field(default_factory=dict)
    _singles: dict[tuple[tuple[Counts, ...], int], int] = field(default_factory=dict)
    _last_tricks: dict[tuple[tuple[Counts, ...], int, tuple[int, ...], tuple[Unit, ...]], int] = (
        field(default_factory=dict)
    )
    _hands_after: dict[tuple[Counts, tuple[int, ...]], Counts] = field(default_factory=dict)
    _numbers: dict[Counts, int] = field(default_factory=dict)
    _alike: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    _layout: Layout = ()
    _loose: LooseShifts = ()
    _steps: tuple[tuple[int, ...], ...] = ()
    _masks: SuitMasks = ()
    _readers: dict[int, Callable[[bytes], SuitBytes]] = field(default_factory=dict)

    _defenders: tuple[bool, ...] = ()
    _killers: dict[tuple[int, Counts, tuple[tuple[int, ...], ...]], tuple[int, ...]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        self._factor = self.game.table.ruleset.kitty.last_trick_factor
        self._defenders = tuple(self.game.defends(seat) for seat in range(4))
        self._layout, self._steps = _layout(self.game.table)
        self._loose = tuple({} for _ in self._layout)
        self._masks = _suit_masks(self.game.table.context)
        self._readers = {suit: read for suit, _, read in self._masks}

    def _trick_classes(
        self,
        total: Counts,
        once: int,
        hands: Sequence[Counts],
        numbers: Sequence[int],
        leader: int,
        sole: bool,
        made: dict[int, tuple[int, ...]] | None = None,
    ) -> Classes:
        """``_trick_classes`` with the solver's table, suits and classes kept per suit."""
        table, masks, kept = self.game.table, self._masks, self._classes_by_suit
        return _trick_classes(table, total, once, hands, numbers, leader, masks, sole, made, kept)

    def _kitty_most(self, hands: Sequence[Counts]) -> int:
        """The largest kitty bonus the last lead can bring, from the hands at a trick's start.

        The last lead is cut from its leader's hand, a part of what that seat holds now: its
        multiplier is at most the largest of a unit the seat holds now or, where throws are
        allowed, of a throw of all its cards (a standing throw counts its largest unit's shape
        or a figure per throw or per card: R-KITTY). One pass over each hand not seen before.
        """
        most = 0
        for hand in hands:
            multiplier = self._most.get(hand)
            if multiplier is None:
                multiplier = self._most[hand] = self._lead_most(hand)
            most = max(most, multiplier)
        bonus = self._bonus.get(most)
        if bonus is None:
            bonus = self._bonus[most] = kitty_bonus(self.game.table.ruleset, self.game.kitty, most)
        return bonus

    def _lead_most(self, hand: Counts) -> int:
        """The largest kitty multiplier of a lead cut from ``hand`` (``_kitty_most``)."""
        table = self.game.table
        rules = table.ruleset
        leads: list[tuple[Unit, ...]] = [
            (unit,)
            for k in range(KINDS)
            if hand[k]
            for unit in units_containing_lowest(table.context, hand, k, hand[k])
        ]
        cards = [set_unit(1, k) for k in range(KINDS) for _ in range(hand[k])]
        if rules.throw.allowed and len(cards) >= 2:
            leads.append(tuple(cards))
        return max(kitty_multiplier(rules, lead) for lead in leads)

    def plays(self, position: Position) -> list[Play]:
        """The plays searched for the seat to play, one per class of equivalent plays: a list
        the solver keeps for the next position that asks (read it, never change it)."""
        classes = equivalent_cards(self.game.table, position.hands, position.seat, position.plays)
        return self._plays(position, classes)

    def _plays(self, position: Position, classes: dict[int, tuple[int, ...]]) -> list[Play]:
        seat = position.seat
        if not position.plays:
            return self._leads(position.hands, seat, classes)[0]
        return self._follow_plays(
            position.hands, position.leader, position.plays, position.lead, classes
        )[0]

    def _leads(
        self, hands: Sequence[Counts], seat: int, classes: dict[int, tuple[int, ...]]
    ) -> tuple[list[Play], list[int], list[Counts]]:
        """The leads searched (``lead_options``), one per class of equivalent plays, likely
        best first, the points of each and the hand each leaves. They depend on the leader's
        hand, its classes and the standing throws only, and the same meet again under other
        hands of the other seats: kept in ``_lead_plays``.
        """
        table = self.game.table
        cut, suits = _unit_leads(table, hands[seat], seat, self._units)
        throws = _suit_throws(table, hands, seat, suits, self._throws, self._readers)
        key = (hands[seat], seat, tuple(classes.values()), tuple(throws))
        leads = self._lead_plays.get(key)
        if leads is None:
            found: dict[tuple[int, ...], Play] = {}
            for lead in (*cut, *throws):
                cards = _canonical(lead.cards, classes) if classes else tuple(sorted(lead.cards))
                if cards not in found:
                    units = lead.units if cards == tuple(sorted(lead.cards)) else ()
                    found[cards] = Play(seat, cards, units or lead_units(table.context, cards))
            # Big leads first, then high ones: the likely winners.
            strength = table.context.strength
            ordered = sorted(
                found.values(), key=lambda p: (-len(p.cards), -strength[p.units[0].top])
            )
            points = [sum([POINTS[k] for k in lead.cards]) for lead in ordered]
            lefts = [self._left(hands[seat], lead.cards) for lead in ordered]
            leads = self._lead_plays[key] = ordered, points, lefts
        return leads

    def _follow_plays(
        self,
        hands: Sequence[Counts],
        leader: int,
        plays: tuple[tuple[int, ...], ...],
        lead: tuple[Unit, ...],
        classes: dict[int, tuple[int, ...]],
    ) -> tuple[list[Play], list[int], list[int], list[Counts]]:
        """The follows searched, likely best first, the seat each leaves winning the trick, the
        points of each and the hand each leaves.

        They depend on the seat's hand, the trick on the table and the seat's classes only, and
        the same meet again under other hands of the other seats: kept in ``_answers``.
        """
        seat = (leader + len(plays)) % 4
        # The classes' members in order, each once per member: they give back the classes. The
        # lead is kept with the follows and compared rather than hashed in the key (a unit
        # hashes in Python): the plays on the table all but always give it.
        answer_key = (hands[seat], leader, plays, tuple(classes.values()))
        kept = self._answers.get(answer_key)
        if kept is None or kept[0] != lead:
            kept = self._answers[answer_key] = (
                lead,
                self._new_follows(hands[seat], leader, plays, lead, classes),
            )
        return kept[1]

    def _new_follows(
        self,
        counts: Counts,
        leader: int,
        plays: tuple[tuple[int, ...], ...],
        lead: tuple[Unit, ...],
        classes: dict[int, tuple[int, ...]],
    ) -> tuple[list[Play], list[int], list[int], list[Counts]]:
        seat = (leader + len(plays)) % 4
        follows = self._class_follows(counts, seat, lead, len(plays[0]), classes)
        wins = self._winning(leader, plays, lead, [(p.cards, reach) for p, _, _, reach in follows])
        if len(follows) == 1:
            play, points, _, _ = follows[0]
            return [play], wins, [points], [self._left(counts, play.cards)]
        # Follows that take the trick for the seat's side first, with points; then the rest,
        # with the fewest points; lower cards first in either (no two have the same cards).
        keyed = []
        for (play, points, high, _), won in zip(follows, wins, strict=True):
            ours = won % 2 == seat % 2
            order = (0, -points, high) if ours else (1, points, high)
            keyed.append((order, play.cards, won, points, play))
        keyed.sort()
        return (
            [play for _, _, _, _, play in keyed],
            [won for _, _, won, _, _ in keyed],
            [points for _, _, _, points, _ in keyed],
            [self._left(counts, cards) for _, cards, _, _, _ in keyed],
        )

    def _class_follows(
        self,
        counts: Counts,
        seat: int,
        lead: tuple[Unit, ...],
        size: int,
        classes: dict[int, tuple[int, ...]],
    ) -> list[tuple[Play, int, int, int]]:
        """The legal follows of ``seat`` from ``counts`` to ``lead`` (``size`` cards), one per
        class of equivalent plays, each with its points and its cards' strengths summed (what
        orders them) and how it may take the trick (``_reach``): they depend on the hand, the
        lead and the seat's classes, not on the plays on the table, and are kept so in
        ``_follows``."""
        key = (counts, seat, lead, tuple(classes.values()))
        follows = self._follows.get(key)
        if follows is None:
            found = legal_follows(self.game.table, counts, lead, size)
            if classes:
                found = list(dict.fromkeys(_canonical(cards, classes) for cards in found))
            ctx = self.game.table.context
            follows = self._follows[key] = [
                (
                    Play(seat, cards),
                    sum([POINTS[k] for k in cards]),
                    sum([ctx.strength[k] for k in cards]),
                    _reach(ctx, lead, cards),
                )
                for cards in found
            ]
        return follows

    def _winning(
        self,
        leader: int,
        plays: tuple[tuple[int, ...], ...],
        lead: tuple[Unit, ...],
        follows: list[tuple[tuple[int, ...], int]],
    ) -> list[int]:
        """The seat that wins the trick (R-WIN) once each of ``follows`` (its cards and how it
        may take the trick: ``_reach``) is added to ``plays``."""
        ctx = self.game.table.context
        if len(lead) > 1 or lead[0].length > 1:
            # Only a follow all of the led suit or all trump can take the trick (R-WIN): any
            # other leaves it with the best before, found once. ``trick_winner`` keeps the
            # first play that beats every one before it, each compared with the best so far
            # alone: a follow takes the trick when it beats that play (the lead, or the follow
            # taking it), asked of those two only, which meet again far more often than the
            # whole trick does.
            offset = self._winner(lead, plays[1:])
            before, now = (leader + offset) % 4, (leader + len(plays)) % 4
            taking = plays[offset : offset + 1] if offset else ()
            return [
                now if reach >= 0 and self._winner(lead, (*taking, cards)) > len(taking) else before
                for cards, reach in follows
            ]
        # A set led (single, pair, triple): as ``trick_winner`` decides it, copies of one card,
        # of the led suit or trump and stronger than the best before, take the trick.
        offset, best = 0, ctx.strength[lead[0].top]
        for i, cards in enumerate(plays[1:], 1):
            reach = _reach(ctx, lead, cards)
            if reach > best:
                offset, best = i, reach
        now, before = (leader + len(plays)) % 4, (leader + offset) % 4
        return [now if reach > best else before for _, reach in follows]

    def _winner(self, lead: tuple[Unit, ...], follows: tuple[tuple[int, ...], ...]) -> int:
        """``trick_winner``, remembered: the same cards meet again in other positions."""
        if len(lead) == 1 and lead[0].size == 1:
            return trick_winner(self.game.table.context, lead, follows)
        key = (lead, follows)
        won = self._winners.get(key)
        if won is None:
            won = self._winners[key] = trick_winner(self.game.table.context, lead, follows)
        return won

    def trick_points(self, position: Position, won: int) -> int:
        """What the defenders take from a complete trick ``won`` by a seat: its points, and
        at the end of the hand the kitty.

        The last trick won by a defender adds the kitty's points times the multiplier of
        its lead (R-KITTY) and the ruleset's bonus on the trick's own points.
        """
        return self._taken(position.plays, position.lead, won, not any(position.hands[0]))

    def _taken(
        self, plays: Sequence[Sequence[int]], lead: tuple[Unit, ...], won: int, last: bool
    ) -> int:
        if not self.game.defends(won):
            return 0
        cards = [k for play in plays for k in play]
        points = sum(POINTS[k] for k in cards)
        if not last:
            return points
        rules = self.game.table.ruleset
        return points + self._kitty_bonus(lead) + last_trick_bonus(rules, cards)

    def after(self, position: Position, play: Play) -> tuple[Position, int]:
        """The position after ``play`` and the defenders' points it settles (a trick's end)."""
        child = position.play(play)
        if len(child.plays) < 4:
            return child, 0
        offset = trick_winner(self.game.table.context, child.lead, child.plays[1:])
        won = (child.leader + offset) % 4
        return Position(child.hands, won), self.trick_points(child, won)

    def _kitty_bonus(self, lead: tuple[Unit, ...]) -> int:
        bonus = self._kitty.get(lead)
        if bonus is None:
            rules = self.game.table.ruleset
            bonus = kitty_bonus(rules, self.game.kitty, kitty_multiplier(rules, lead))
            self._kitty[lead] = bonus
        return bonus

    def value(
        self, position: Position, guess: int | None = None, known: tuple[int, int] | None = None
    ) -> int:
        """The points the defenders add from ``position`` under perfect play by both sides.

        Found by null-window probes (MTD(f)): each asks whether the value reaches a target,
        and the bounds the probes prove stay in the tables for the next ones. The first
        target is ``guess`` or else the last value found (a play's value is most often its
        position's); after a probe that succeeds, the lower bound proved plus 5; after one
        that fails, the upper bound it proved (halving the interval or doubling the step
        searched about as many positions: docs/benchmarks.md). The guess changes how much is
        searched, never the value. At most one probe per multiple of 5 up to the value, and
        one per upper bound proved. ``known`` gives bounds the caller holds on the value
        (``bounds_after``), which no probe then proves again.
        """
        search = self._search(position)
        # The value is at least 0 (nothing is taken away from the defenders here) and, points
        # and kitty bonuses being multiples of 5, so are the targets.
        low, high = known or (0, HIGH)
        target = self._guess if guess is None else guess
        while low < high:
            beta = min(max(target, low + 1), high)
            found = search(beta - 1, beta)
            if found < beta:
                # The bound a failed probe returns is most often the value: asked next.
                high = target = found
            else:
                low = found
                target = low + 5
        self._guess = low
        return low

    def bounds_after(self, position: Position, play: Play, value: int) -> tuple[int, int] | None:
        """What ``value``, the defenders' points from ``position`` on after ``play`` (what
        the play settled included), proves of the position's value: at least as much for a
        defender's play, at most for a dealer-side one, since the position's value is the
        best of its searched plays'. None when the search does not compare the play: a throw
        other than its suit's standing one (lead_options).

        A failed throw puts down one unit and costs the thrower's side its penalty or
        nothing: never better for that side than leading the unit, so the bound holds for it.
        """
        seat = position.seat
        classes = equivalent_cards(self.game.table, position.hands, seat, position.plays)
        cards = _canonical(play.cards, classes) if classes else tuple(sorted(play.cards))
        for searched in self._plays(position, classes):
            # A throw's units decide the follows' duties: the same cards split otherwise are
            # another play. (A follow's cards come in the order they were found.)
            same = len(play.units) < 2 or searched.units == play.units
            if same and tuple(sorted(searched.cards)) == cards:
                return (value, HIGH) if self._defenders[seat] else (0, value)
        return None

    def _search(self, position: Position) -> Callable[[int, int], int]:
        """The fail-soft search of ``position`` within a window (alpha, beta)."""
        hands = position.hands
        leader = position.leader
        held = sum(sum(map(mul, hand, POINTS)) for hand in hands)
        if not position.plays:
            return lambda a, b: self._start(hands, leader, held, a, b)
        plays, lead = position.plays, position.lead
        total, once = _in_play(hands, plays)
        numbers = [int.from_bytes(hand, "big") for hand in hands]
        classes = self._trick_classes(total, once, hands, numbers, leader, False)
        on_table = sum(POINTS[k] for cards in plays for k in cards)
        held += on_table
        return lambda a, b: self._trick(hands, leader, plays, lead, classes, held, on_table, a, b)

    def best_play(self, position: Position, target: int) -> tuple[Play, Position, int]:
        """The first searched play keeping ``position``'s value ``target``: with the position
        after it and the points it settles.

        ``target`` is the best any play reaches, so one null-window probe per play tells a
        play that reaches it from one that does not: a defender's play reaches it when its
        value is at least ``target``, a dealer-side play when at most.
        """
        maximise = self._defenders[position.seat]
        for play in self.plays(position):
            child, gained = self.after(position, play)
            goal = target - gained
            if maximise and self._search(child)(goal - 1, goal) >= goal:
                return play, child, gained
            if not maximise and self._search(child)(goal, goal + 1) <= goal:
                return play, child, gained
        raise ValueError(f"no play from the position reaches {target}")

    def _start(
        self, hands: tuple[Counts, ...], leader: int, held: int, alpha: int, beta: int
    ) -> int:
        """The value of a trick about to be led (``held`` points in the hands), through
        ``table``."""
        hand = hands[leader]
        if hand == _EMPTY:
            return 0
        if hand.count(0) == KINDS - 1 and hand.count(1) == 1:  # one card each: all forced
            return self._last_single(hands, leader)
        if beta <= 0:  # the value is at least 0
            return 0
        # The hands themselves, not joined: each keeps its hash, and a play changes one.
        key = (hands, leader)
        entry = self.table.get(key)
        # Nothing to gain beyond the points still held, counted as the last trick may count
        # them, and the kitty at its largest multiplier: a bound that cuts without a search,
        # kept with the position once it is searched.
        most = held * self._factor + self._kitty_most(hands) if entry is None else entry.most
        if most <= alpha:
            return most
        if entry is None:
            # Each hand read as a number once (kept in ``_numbers``), for the cards in play,
            # the leader's classes and ``_alike``.
            numbers: list[int] = []
            for hand in hands:
                number = self._numbers.get(hand)
                if number is None:
                    number = self._numbers[hand] = int.from_bytes(hand, "big")
                numbers.append(number)
            total, once = _tally(sum(numbers))
            leads = _classes(
                self.game.table,
                total,
                once,
                hands[leader],
                numbers[leader],
                self._masks,
                True,
                kept=self._classes_by_suit,
            )
            options, points, lefts = self._leads(hands, leader, leads)
            entry = _Entry(options, None, (), [], points, lefts)
            entry.pending = (total, once, numbers, leads)
            entry.most = most
            self.table[key] = entry
            # Hands alike (``_alike``) have one value: the bounds proved on one hold for all.
            joint = _joint(numbers)
            alike = (_alike(self._layout, self._steps, self._loose, joint), leader)
            entry.alike = self._alike.get(alike) or self._alike.setdefault(alike, [LOW, HIGH])
        entry.low, entry.high = entry.alike
        known, alpha, beta = entry.cut(alpha, beta)
        if known is not None:
            return known
        found = self._expand(hands, leader, (), (), held, 0, alpha, beta, entry)
        entry.alike[0], entry.alike[1] = entry.low, entry.high
        return found

    def _trick(
        self,
        hands: tuple[Counts, ...],
        leader: int,
        plays: tuple[tuple[int, ...], ...],
        lead: tuple[Unit, ...],
        classes: Classes,
        held: int,
        on_table: int,
        alpha: int,
        beta: int,
    ) -> int:
        """The value of a trick under way (one play or more made, ``on_table`` points on the
        table), through ``_inner``."""
        key = (hands, leader, plays)
        entry = self._inner.get(key)
        if entry is None or entry.lead != lead:
            seat = (leader + len(plays)) % 4
            options, wins, points, lefts = self._follow_plays(
                hands, leader, plays, lead, classes[seat]
            )
            if len(plays) == 3 and len(options) > 1:
                # The options' hands left are not kept by ``_shed``: its key holds no hand.
                options, wins, points, kept = self._shed(seat, options, wins, points, classes[4])
                if kept is not None:
                    lefts = [lefts[i] for i in kept]
            fresh = _Entry(options, classes, lead, wins, points, lefts)
            if entry is None:
                # A position's lead is its first play's units, but for one given to ``value``
                # (a failed throw answered as its forced unit): that one is not kept.
                self._inner[key] = fresh
            entry = fresh
        else:
            known, alpha, beta = entry.cut(alpha, beta)
            if known is not None:
                return known
        return self._expand(hands, leader, plays, lead, held, on_table, alpha, beta, entry)

    def _shed(
        self,
        seat: int,
        options: list[Play],
        wins: list[int],
        points: list[int],
        groups: dict[int, tuple[int, ...]],
    ) -> tuple[list[Play], list[int], list[int], list[int] | None]:
        """The last play's ``options`` (each with the seat it leaves winning the trick and its
        points) less those another dominates by the points it sheds, and the indices of those
        kept (None when all are: a hand left per option is the caller's to choose so).

        ``groups`` holds the seat's shed cards, each kind to its group: the classes of
        ``_classes`` whatever their points, found at the trick's start (the cards in play and
        the seat's hand are the same at its last play). A shed card is told from the others of
        its group only by its points: each group is a run of kinds the seat holds once, held
        nowhere else in play, with no other card in play between them or level with one, or
        the seat's once-held cards of a suit no other hand holds. Two follows that differ
        only in which cards of each group they play leave the trick to the same seat, and the
        games after them differ only in where those points go. Moving ``d`` points from the
        hand to this trick adds ``d`` to the defenders when it is theirs, and takes from what
        follows between 0 and ``d`` (those points fall in one later trick), so the defenders
        end with at least as much, where the last trick counts its points once (``changshu``
        counts them twice: no such order there). When the dealer's side takes the trick,
        keeping the points in hand is at least as good for the defenders, whatever the last
        trick counts. So of follows alike but for their shed cards, the one that sheds the most
        points is the best for the defenders when they take the trick and the worst when they
        do not, and the one that sheds the fewest the reverse: the seat's side keeps that one
        alone (of two that shed as many, either: they are the same game).

        The options left depend on the seat, the options' cards, the seats they leave winning
        and the groups only, which meet again under other plays on the table: kept in
        ``_sheds`` per those.
        """
        if not groups:
            return options, wins, points, None
        key = (seat, tuple([play.cards for play in options]), tuple(wins), tuple(groups.values()))
        found = self._sheds.get(key)
        if found is not None:
            return found
        maximise = self._defenders[seat]
        kept: dict[tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...]], tuple[int, int]] = {}
        for i, (play, won) in enumerate(zip(options, wins, strict=True)):
            if self._factor > 1 and self._defenders[won]:
                # The points kept may fall in a last trick counted more than once: no order.
                kept[(-1 - i, (), ())] = (0, i)
                continue
            fixed: list[int] = []
            shed: list[tuple[int, ...]] = []
            shed_points = 0
            for k in play.cards:
                if k in groups:
                    shed.append(groups[k])
                    shed_points += POINTS[k]
                else:
                    fixed.append(k)
            # Most points shed first when that is the seat's side's best, else fewest.
            rank = -shed_points if self._defenders[won] == maximise else shed_points
            group = (won, tuple(fixed), tuple(sorted(shed)))
            if group not in kept or rank < kept[group][0]:
                kept[group] = (rank, i)
        if len(kept) == len(options):
            found = options, wins, points, None
        else:
            chosen = sorted(i for _, i in kept.values())
            found = (
                [options[i] for i in chosen],
                [wins[i] for i in chosen],
                [points[i] for i in chosen],
                chosen,
            )
        self._sheds[key] = found
        return found

    def _expand(
        self,
        hands: tuple[Counts, ...],
        leader: int,
        plays: tuple[tuple[int, ...], ...],
        lead: tuple[Unit, ...],
        held: int,
        on_table: int,
        alpha: int,
        beta: int,
        entry: _Entry,
    ) -> int:
        """Fail-soft alpha-beta over the options in ``entry`` (its best so far tried first),
        ``on_table`` points on the table; the bounds proved and the best option go back into
        ``entry``."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise BudgetExceeded(
                f"the search visited more than {self.budget:,} "
                f"position{'' if self.budget == 1 else 's'}"
            )
        if not self.nodes & 4095 and self.stopped is not None and self.stopped():
            raise BudgetExceeded("the search was stopped (its call was cancelled or timed out)")
        options, classes, first = entry.options, entry.classes, entry.best
        n = len(plays)
        seat = (leader + n) % 4
        maximise = self._defenders[seat]
        best = LOW if maximise else HIGH
        a, b = alpha, beta
        chosen = first
        order: Sequence[int] = range(len(options))
        # A position not searched before tries first the play that last cut off one with the
        # same seat to play, holding the same hand, and the same plays on the table (a killer
        # move): the other hands differ, and the refutation most often holds there too. A
        # forced play (a third of the positions) has no choice to keep.
        killer_key = (seat, hands[seat], plays) if len(options) > 1 else None
        if killer_key is not None and entry.low == LOW and entry.high == HIGH:
            killer = self._killers.get(killer_key)
            if killer is not None:
                for i, option in enumerate(options):
                    if option.cards == killer:
                        first = i
                        break
        if first:
            order = [first, *range(first), *range(first + 1, len(options))]
        # A defender's last play is not looked up so: where a probe fails, every one of them
        # is searched and none cuts, and the look-ups cost more than they saved.
        if n == 3 and len(options) > 1 and not maximise:
            order = self._cutting(hands, seat, on_table, alpha, entry, order)
        gains, lefts = entry.points, entry.lefts
        for i in order:
            play = options[i]
            cards = play.cards
            left = lefts[i]
            after = list(hands)
            after[seat] = left
            if n == 0 and left == _EMPTY:
                value = self._last_trick(hands, leader, play)
            elif n < 3:
                if classes is None:
                    assert entry.pending is not None
                    total, once, numbers, made = entry.pending
                    classes = entry.classes = self._trick_classes(
                        total, once, hands, numbers, leader, True, made
                    )
                    entry.pending = None
                answered = play.units if n == 0 else lead
                now = (*plays, cards)
                value = self._trick(
                    tuple(after), leader, now, answered, classes, held, on_table + gains[i], a, b
                )
            else:
                won = entry.wins[i]
                points = on_table + gains[i]
                if after[0] != _EMPTY:
                    value = points if self._defenders[won] else 0
                    value += self._start(tuple(after), won, held - points, a - value, b - value)
                else:
                    value = self._taken((*plays, cards), lead, won, True)
            if maximise:
                if value > best:
                    best, chosen = value, i
                    if value > a:
                        a = value
            elif value < best:
                best, chosen = value, i
                if value < b:
                    b = value
            if a >= b:
                if killer_key is not None:
                    self._killers[killer_key] = play.cards
                break
        entry.best = chosen
        if best <= alpha:
            entry.high = best
        elif best >= beta:
            entry.low = best
        else:
            entry.low = entry.high = best
        return best

    def _cutting(
        self,
        hands: tuple[Counts, ...],
        seat: int,
        on_table: int,
        alpha: int,
        entry: _Entry,
        order: Sequence[int],
    ) -> Sequence[int]:
        """``order`` with first the dealer's side's last play of the trick whose outcome
        already settles the window (an enhanced transposition cutoff): the next trick's start
        has bounds kept in ``table`` that hold the defenders to ``alpha`` or under. Such a play
        cuts off its position at once, where the play first in ``order`` may have needed a
        search. One table look-up per play.
        """
        wins, points, lefts = entry.wins, entry.points, entry.lefts
        for i in order:
            after = list(hands)
            after[seat] = lefts[i]
            if after[0] == _EMPTY:
                return order
            won = wins[i]
            taken = on_table + points[i] if self._defenders[won] else 0
            child = self.table.get((tuple(after), won))
            if child is not None and taken + child.high <= alpha:
                return (i, *[j for j in order if j != i])
        return order

    def _left(self, counts: Counts, cards: tuple[int, ...]) -> Counts:
        """The hand ``counts`` less ``cards``, kept in ``_hands_after``: the same hand makes
        the same play in many positions (the other hands differ). Found when the options are
        listed, and kept with them (``_Entry.lefts``) for each search of a play."""
        key = (counts, cards)
        left = self._hands_after.get(key)
        if left is None:
            left = self._hands_after[key] = _without(counts, cards)
        return left

    def _last_trick(self, hands: tuple[Counts, ...], leader: int, lead: Play) -> int:
        """The last trick once its lead takes the leader's last cards: every other seat holds
        as many and plays them all, so nothing is left to choose. Scored without a search (one
        position counted), kept per the hands before the lead, the leader and the lead in
        ``_last_tricks``."""
        key = (hands, leader, lead.cards, lead.units)
        value = self._last_tricks.get(key)
        if value is None:
            self.nodes += 1
            follows = tuple(_cards_held(hands[(leader + i) % 4]) for i in (1, 2, 3))
            won = (leader + trick_winner(self.game.table.context, lead.units, follows)) % 4
            value = self._taken((lead.cards, *follows), lead.units, won, True)
            self._last_tricks[key] = value
        return value

    def _last_single(self, hands: tuple[Counts, ...], leader: int) -> int:
        """The last trick when each seat holds one card: every play is forced. Kept per the
        hands and the leader in ``_singles``: the same last trick ends many lines (over nine
        tricks in ten reached are met before)."""
        key = (hands, leader)
        value = self._singles.get(key)
        if value is None:
            value = self._singles[key] = self._score_last_single(hands, leader)
        return value

    def _score_last_single(self, hands: tuple[Counts, ...], leader: int) -> int:
        self.nodes += 1
        plays = tuple((hands[(leader + i) % 4].index(1),) for i in range(4))
        lead = (set_unit(1, plays[0][0]),)
        # A single led: decided as a set led is, without ``trick_winner``.
        last = (plays[3], _reach(self.game.table.context, lead, plays[3]))
        won = self._winning(leader, plays[:3], lead, [last])[0]
        if not self._defenders[won]:
            return 0
        return self._taken(plays, lead, won, True)

    def line(self, position: Position, value: int | None = None) -> list[Play]:
        """A line of perfect play from ``position`` to the end of the hand (``value``, the
        position's, when the caller knows it)."""
        line: list[Play] = []
        target = self.value(position) if value is None else value
        while not position.over:
            play, position, gained = self.best_play(position, target)
            line.append(play)
            target -= gained
        return line
