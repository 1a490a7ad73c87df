"""Following a lead: suit and shape duty (R-FOLLOW, R-FOLLOW-SUIT, R-FOLLOW-SHAPE, R-FOLLOW-CS).

Shape duty is decided by comparison (docs/rules.md): a play's *shape score* in the
led suit is a tuple walked from the lead's full shape down to single cards —
how many of the lead's tractors are answered by tractors of the same width and
length (larger tractors first; with ``follow_shorter_tractors`` an unanswered
tractor then asks for one a pair shorter; without ``throw_tractor_duty`` a thrown
tractor asks only for its pairs, without ``tractor_duty`` every tractor does),
then triples (三条), then pairs (two cards of a triple count as a pair); single
cards need no count. Suit duty is checked first (a revoke); then a play is
illegal iff its score is below the best score any selection of as many led-suit
cards from the same hand reaches.

>>> from chaodipi.engine.presets import CLASSIC
>>> from chaodipi.engine.order import trump_context
>>> from chaodipi.engine.cards import Hand, parse_card, parse_cards, HEARTS
>>> from chaodipi.engine.units import Unit, one_unit_of_shape
>>> ctx = trump_context(CLASSIC, 4, HEARTS)
>>> pair = (Unit(2, (parse_card("CK"),)),)
>>> verdict = check_follow(ctx, pair, Hand("CQ CQ C7 S3"), parse_cards("CQ C7"))
>>> verdict.reason, str(verdict.alternative)
('held ♣Q ♣Q but played ♣Q ♣7 to a led pair', 'CQ CQ')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from chaodipi.engine.cards import (
    KINDS,
    POINTS,
    SUIT_SYMBOLS,
    Cards,
    Counts,
    Hand,
    label_cards,
)
from chaodipi.engine.lead import describe_lead, suit_label
from chaodipi.engine.order import TRUMP, TrumpContext
from chaodipi.engine.units import Unit, one_unit_of_shape
from chaodipi.engine.verdict import Verdict

__all__ = ["check_follow", "clear_caches", "follows_in_kind", "legal_follow"]

Score = tuple[int, ...]
Piece = tuple[int, tuple[int, ...]]
"""A unit in slot space: (width, slots low to high)."""
_State = tuple[tuple[int, ...], tuple[int, ...], int]
"""A state of ``_score``: the slots open chains need, tractors on each level, free slots of 3."""


@dataclass(frozen=True, slots=True, eq=False)
class _SuitTable:
    """One effective suit laid out as *slots* (its kinds, low to high) for small-int work."""

    suit: int
    kinds: tuple[int, ...]
    up: tuple[tuple[int, ...], ...]  # slots whose sets extend a tractor from this slot
    cheap: tuple[int, ...]  # slots cheapest first: no points, then low
    take: Callable[[Sequence[int]], tuple[int, ...]]  # a count vector's counts of the slots


@dataclass(frozen=True, slots=True, eq=False)
class _Tables:
    suits: tuple[_SuitTable, ...]
    slot: tuple[int, ...]  # kind -> its slot in its effective suit
    discard: tuple[int, ...]  # kinds to give when void: side before trump, no points, low


@dataclass(frozen=True, slots=True, eq=False)
class _Format:
    """The shape demands of a lead, made once per lead shape (``_FORMATS``): hashed by identity."""

    shapes: tuple[tuple[int, int], ...]  # tractor levels (width, length), larger first
    lead_tractors: tuple[int, ...]  # the lead's own tractors on each level
    shorter: tuple[int, ...]  # level an unanswered tractor falls to (-1: to sets)
    sets_left: tuple[int, ...]  # sets of its width an unanswered tractor leaves
    triples: int
    pairs: int
    most_owed: tuple[int, int]  # triples and pairs owed when no tractor is answered: the most
    answers: dict[tuple[int, ...], tuple[int, int] | None] = field(
        default_factory=dict, repr=False
    )  # ``owed``'s answers, by tractors answered on each level

    def owed(self, answered: tuple[int, ...]) -> tuple[int, int] | None:
        """Triples and pairs still owed when ``answered[l]`` tractors answer level l.

        None when a level is answered by more tractors than it is owed: the demand of a level
        is the lead's own tractors there and the unanswered ones falling to it. O(L) for L
        levels, then cached.
        """
        try:
            return self.answers[answered]
        except KeyError:
            pass
        demand = list(self.lead_tractors)
        triples, pairs = self.triples, self.pairs
        owed: tuple[int, int] | None = None
        for level, got in enumerate(answered):
            missing = demand[level] - got
            if missing < 0:
                break
            if missing:
                fall = self.shorter[level]
                if fall >= 0:
                    demand[fall] += missing
                if self.shapes[level][0] == 3:
                    triples += missing * self.sets_left[level]
                else:
                    pairs += missing * self.sets_left[level]
        else:
            owed = (triples, pairs)
        if len(self.answers) < _CACHE_LIMIT:
            self.answers[answered] = owed
        return owed


_TABLES: dict[TrumpContext, _Tables] = {}
_FORMATS: dict[tuple[tuple[tuple[int, int], ...], bool], _Format] = {}
_BEST: dict[tuple[_SuitTable, _Format, tuple[int, ...]], tuple[Score, list[Piece]]] = {}
_CACHE_LIMIT = 1 << 16


def clear_caches() -> None:
    """Forget cached hand evaluations (for cold timings); per-context tables stay."""
    _BEST.clear()


def _tables(ctx: TrumpContext) -> _Tables:
    tables = _TABLES.get(ctx)
    if tables is None:
        if len(_TABLES) > 1024:
            _TABLES.clear()
        tables = _TABLES[ctx] = _build_tables(ctx)
    return tables


def _build_tables(ctx: TrumpContext) -> _Tables:
    suits = []
    slot_of = [0] * KINDS
    for s, steps in enumerate(ctx.steps):
        kinds = tuple(k for step in steps for k in step)
        slot = {k: i for i, k in enumerate(kinds)}
        for k, i in slot.items():
            slot_of[k] = i
        # A follow's links (with ``joker_tractor_alone`` a hand's jokers owe no tractor).
        up = tuple(tuple(slot[n] for n in ctx.follow_link_up[k]) for k in kinds)
        cheap = tuple(sorted(range(len(kinds)), key=lambda i: (POINTS[kinds[i]] > 0, i)))
        suits.append(_SuitTable(s, kinds, up, cheap, _getter(kinds)))
    discard = tuple(
        sorted(range(KINDS), key=lambda k: (ctx.is_trump[k], POINTS[k] > 0, ctx.strength[k]))
    )
    return _Tables(tuple(suits), tuple(slot_of), discard)


def _getter(kinds: tuple[int, ...]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    # itemgetter is the fast path but returns a bare value for one kind; the trump suit's
    # own printed suit is empty and a led suit always has two kinds or more.
    if len(kinds) >= 2:
        return itemgetter(*kinds)
    return lambda counts: tuple(counts[k] for k in kinds)


def _format(
    units: Sequence[Unit],
    shorter_tractors: bool,
    throw_tractors: bool,
    tractors: bool = True,
    throw_needs_tractor: bool = False,
) -> _Format:
    shapes: tuple[tuple[int, int], ...]
    if throw_needs_tractor and len(units) > 1 and all(len(u.kinds) == 1 for u in units):
        shapes = ()  # a throw of pairs and singles owes its suit alone
    elif not tractors or (len(units) > 1 and not throw_tractors):
        # No tractor duty (at all, or inside a throw): each tractor is owed as its sets.
        shapes = tuple(sorted((u.width, 1) for u in units for _ in u.kinds))
    elif len(units) == 1:
        shapes = (units[0].shape,)
    else:
        shapes = tuple(sorted(u.shape for u in units))
    key = (shapes, shorter_tractors)
    fmt = _FORMATS.get(key)
    if fmt is None:
        fmt = _FORMATS[key] = _build_format(shapes, shorter_tractors)
    return fmt


def _build_format(shapes: tuple[tuple[int, int], ...], shorter_tractors: bool) -> _Format:
    led = Counter(shapes)
    levels = {(w, n) for w, n in led if n >= 2}
    if shorter_tractors:
        levels |= {(w, m) for w, n in list(levels) for m in range(2, n)}
    # Larger tractors first; a shorter level always sorts after the level falling to it.
    order = sorted(levels, key=lambda s: (-s[0] * s[1], -s[0], -s[1]))
    index = {shape: i for i, shape in enumerate(order)}
    falls = [index[(w, n - 1)] if shorter_tractors and n > 2 else -1 for w, n in order]
    # Answering a tractor only lowers what is owed, and a tractor left unanswered owes in the
    # end as many sets as it has pairs or triples (falling a pair shorter leaves one set).
    most_triples = sum(count * n for (w, n), count in led.items() if w == 3)
    most_pairs = sum(count * n for (w, n), count in led.items() if w == 2)
    return _Format(
        shapes=tuple(order),
        lead_tractors=tuple(led[s] for s in order),
        shorter=tuple(falls),
        sets_left=tuple(1 if f >= 0 else n for (_, n), f in zip(order, falls, strict=True)),
        triples=led[(3, 1)],
        pairs=led[(2, 1)],
        most_owed=(most_triples, most_pairs),
    )


def _chains(table: _SuitTable, counts: list[int], width: int, length: int) -> list[tuple[int, ...]]:
    """Tractors of exactly ``width`` × ``length`` in slot counts, lowest first.

    Bound: the linked runs up from each of the m slots, at most m·b each: O(m²·b).
    """
    found: list[tuple[int, ...]] = []
    up = table.up
    for start, have in enumerate(counts):
        if have < width:
            continue
        stack: list[tuple[int, ...]] = [(start,)]
        while stack:
            chain = stack.pop()
            for nxt in up[chain[-1]]:
                if counts[nxt] >= width:
                    longer = (*chain, nxt)
                    if len(longer) == length:
                        found.append(longer)
                    else:
                        stack.append(longer)
    return found


def _sets(
    table: _SuitTable, counts: list[int], triples: int, pairs: int, want: bool
) -> tuple[Score, list[Piece]]:
    """Triples then pairs answered from what the tractors left (closed form, O(m log m))."""
    if not triples and not pairs:
        return (0, 0), []
    # Counts are at most 3 (three decks): count the sets with C-speed list methods.
    three = counts.count(3)
    two = len(counts) - counts.count(0) - counts.count(1)
    t = min(triples, three)
    p = min(pairs + triples - t, two - t)
    if not want:
        return (t, p), []
    # The cheapest sets: triples first, then pairs from the slots not used as triples.
    tri_slots = [i for i in table.cheap if counts[i] >= 3][:t] if t else []
    pieces: list[Piece] = [(3, (i,)) for i in tri_slots]
    if p:
        pair_slots = [i for i in table.cheap if counts[i] >= 2 and i not in tri_slots]
        pieces += [(2, (i,)) for i in pair_slots[:p]]
    return (t, p), pieces


def _score(
    table: _SuitTable, counts: list[int], fmt: _Format, want: bool
) -> tuple[Score, list[Piece]]:
    """The shape score of ``counts`` and, if ``want``, the units reaching it.

    Tractors are chosen by dynamic programming over the slots, then the sets in closed form.
    Every slot a tractor or set crosses holds at most 3 cards, so it serves one unit of width
    2 or more: a choice of tractors is a choice of disjoint chains (``_chains``), and the slots
    it leaves with 2 or more cards are all but those its chains cross. The slots the chains
    cross are walked low to high; a state is (the slots the open chains still need, the
    tractors answered on each level, the free slots of 3 cards, capped at the most triples the
    lead can owe), and each slot is left free, taken by the open chain that needs it, or
    starts one chain of a level still short of its demand (``_Format.owed``). The final states
    are scored with the fallback demands and the sets formula of ``_sets``.

    Among the choices reaching the best score the one kept answers each level with its
    lowest chains (``_chains``'s order), the levels in the order of the score: the choice the
    walk through every pick gave before, which names the evidence and the legal alternative.
    Two partial choices meeting in one state keep the lower, since every chain still to come
    starts higher.

    Bound: O(m²·b) a level for the chains, then O(m·S·L·b·ℓ) for m slots, L tractor levels,
    tractors of at most ℓ pairs or triples, at most L·b chains starting at a slot and
    S = R·V·(t + 1) states: R ≤ (1 + C)² sets of needed slots for C ≤ L·m·b chains (a link
    runs from one step to the whole next step and only the other-level step has more than one
    kind, so one chain at most crosses a step boundary and two are open inside that step);
    V ≤ ∏(d + 1) answered vectors for d the most tractors a level can owe; t the most triples
    owed. A lead of n cards owes Σd ≤ n/4 tractors and t ≤ n/3 triples, so S is polynomial in
    n of degree L + 1, and for the leads a hand can hold V is small: at most 16 with two decks
    (26 cards, L ≤ 3), 37 with ``follow_shorter_tractors``, whose levels share one demand, and
    54 with three decks (40 cards, L ≤ 5; 184 for a house ruleset adding the shorter tractors).
    """
    shapes = fmt.shapes
    if not shapes:
        return _sets(table, counts, fmt.triples, fmt.pairs, want)
    chains = [_chains(table, counts, width, length) for width, length in shapes]
    if not any(chains):
        # No tractor of the lead's shapes is held (the common case): all fall to their sets.
        tail, pieces = _sets(table, counts, *fmt.most_owed, want)
        return (0,) * len(shapes) + tail, pieces
    tractors = [
        (width, chain) for (width, _), found in zip(shapes, chains, strict=True) for chain in found
    ]
    answered = tuple(map(len, chains))
    crossed = {s for _, chain in tractors for s in chain}
    if len(crossed) == sum(len(chain) for _, chain in tractors) and fmt.owed(answered) is not None:
        # No two chains cross and no level holds more than it is owed: all are answered.
        return _scored(table, counts, fmt, answered, tractors, want)
    starts: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
    for level, found in enumerate(chains):
        for rank, chain in enumerate(found):
            starts.setdefault(chain[0], []).append((level, rank, chain[1:]))
    triples_cap = fmt.most_owed[0]
    owed = fmt.owed
    nothing: tuple[tuple[int, ...], ...] = ((),) * len(shapes)
    # A slot no chain crosses stays free whatever is chosen: its triple is counted up front.
    outside = sum(1 for x, have in enumerate(counts) if have == 3 and x not in crossed)
    start = ((), (0,) * len(shapes), min(outside, triples_cap))
    states: dict[_State, tuple[tuple[int, ...], ...]] = {start: nothing}
    for x in sorted(crossed):
        third = counts[x] == 3
        options = starts.get(x, ())
        reached: dict[_State, tuple[tuple[int, ...], ...]] = {}
        for (needed, got, three), ranks in states.items():
            if needed and needed[0] == x:
                _keep(reached, (needed[1:], got, three), ranks, want)
                continue
            _keep(reached, (needed, got, min(three + third, triples_cap)), ranks, want)
            for level, rank, rest in options:
                if needed and any(s in needed for s in rest):
                    continue
                more = (*got[:level], got[level] + 1, *got[level + 1 :])
                if owed(more) is None:
                    continue  # beyond the level's demand: never better than leaving it
                longer = ranks
                if want:
                    longer = (*ranks[:level], (*ranks[level], rank), *ranks[level + 1 :])
                state = (tuple(sorted(needed + rest)) if needed else rest, more, three)
                _keep(reached, state, longer, want)
        states = reached
    # The free slots of 2 or more cards: those of the suit less those the chains cross.
    two = len(counts) - counts.count(0) - counts.count(1)
    lengths = [length for _, length in shapes]
    best: Score = ()
    best_ranks = nothing
    for (needed, got, three), ranks in states.items():
        if needed:
            continue  # a chain left open: not a choice of tractors
        owed_sets = owed(got)
        assert owed_sets is not None  # only answers within the demands are kept
        triples, pairs = owed_sets
        t = min(triples, three)
        free = two - sum(n * length for n, length in zip(got, lengths, strict=True))
        score = (*got, t, min(pairs + triples, free) - t)
        if score > best or (want and score == best and ranks < best_ranks):
            best, best_ranks = score, ranks
    if not want:
        return best, []
    tractors = [
        (width, found[rank])
        for (width, _), found, picked in zip(shapes, chains, best_ranks, strict=True)
        for rank in picked
    ]
    return _scored(table, counts, fmt, best[: len(shapes)], tractors, want)


def _keep(
    reached: dict[_State, tuple[tuple[int, ...], ...]],
    state: _State,
    ranks: tuple[tuple[int, ...], ...],
    want: bool,
) -> None:
    """Reach ``state`` by the chains ``ranks``; with ``want``, unless lower ones reached it."""
    if not want or state not in reached or ranks < reached[state]:
        reached[state] = ranks


def _scored(
    table: _SuitTable,
    counts: list[int],
    fmt: _Format,
    answered: tuple[int, ...],
    tractors: list[Piece],
    want: bool,
) -> tuple[Score, list[Piece]]:
    """The score and units of answering the levels by these tractors, ``answered`` a level."""
    left = list(counts)
    for width, chain in tractors:
        for s in chain:
            left[s] -= width
    owed = fmt.owed(answered)
    assert owed is not None  # the callers answer within the demands
    tail, sets = _sets(table, left, *owed, want)
    return answered + tail, tractors + sets if want else []


def _best(table: _SuitTable, counts: tuple[int, ...], fmt: _Format) -> tuple[Score, list[Piece]]:
    """The hand's best score and the units reaching it, cached by the led-suit holding."""
    key = (table, fmt, counts)
    found = _BEST.get(key)
    if found is None:
        if len(_BEST) > _CACHE_LIMIT:
            _BEST.clear()
        found = _BEST[key] = _score(table, list(counts), fmt, True)
    return found


@dataclass(frozen=True, slots=True, eq=False)
class _Lead:
    """What following one lead needs, computed once per (context, lead units)."""

    suit: int
    size: int
    tables: _Tables
    table: _SuitTable
    fmt: _Format
    demands: bool  # any tractor, triple or pair to answer
    name: str  # the lead's format in words

    def __init__(
        self,
        suit: int,
        size: int,
        tables: _Tables,
        table: _SuitTable,
        fmt: _Format,
        demands: bool,
        name: str,
    ) -> None:
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "tables", tables)
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "fmt", fmt)
        object.__setattr__(self, "demands", demands)
        object.__setattr__(self, "name", name)


_LEADS: dict[tuple[TrumpContext, tuple[Unit, ...]], _Lead] = {}
# The lead last looked up, by identity: a trick's three follows answer the same units, and
# hashing units (Python-level __hash__ and __eq__) costs more than the check of a pair.
# One tuple, replaced whole, so a reader never sees a mixed entry.
_recent: tuple[TrumpContext | None, Sequence[Unit] | None, _Lead | None] = (None, None, None)


def _lead(ctx: TrumpContext, lead_units: Sequence[Unit]) -> _Lead:
    global _recent
    recent = _recent
    if recent[1] is lead_units and recent[0] is ctx and recent[2] is not None:
        return recent[2]
    key = (ctx, tuple(lead_units))
    lead = _LEADS.get(key)
    if lead is None:
        if len(_LEADS) > _CACHE_LIMIT:
            _LEADS.clear()
        tables = _tables(ctx)
        s = ctx.suit[lead_units[0].kinds[0]]
        fmt = _format(
            lead_units,
            ctx.follow_shorter_tractors,
            ctx.throw_tractor_duty,
            ctx.tractor_duty,
            ctx.throw_shape_needs_tractor,
        )
        lead = _LEADS[key] = _Lead(
            suit=s,
            size=sum(u.size for u in lead_units),
            tables=tables,
            table=tables.suits[s],
            fmt=fmt,
            demands=bool(fmt.shapes or fmt.triples or fmt.pairs),
            name=describe_lead(lead_units),
        )
    if type(lead_units) is tuple:  # immutable: safe to recognise by identity
        _recent = (ctx, lead_units, lead)
    return lead


def check_follow(
    ctx: TrumpContext, lead_units: Sequence[Unit], hand: Hand, play: Sequence[int]
) -> Verdict | None:
    """Why ``play`` may not follow the lead from ``hand`` (R-FOLLOW), or None when legal.

    ``lead_units`` are the lead's units (after a failed throw, the forced unit alone);
    ``hand`` is the follower's hand before playing; ``play`` is assumed to be drawn from
    it. The verdict carries a legal play from the same hand as evidence. Bound: O(n) for
    the suit duty, then the shape scores (``_score``) of the hand (cached) and the play.
    """
    lead = _lead(ctx, lead_units)
    size = lead.size
    held_counts = hand.counts
    if len(play) != size:
        return Verdict(
            "WRONG_CARD_COUNT",
            f"played {len(play)} cards to a led {lead.name} of {size}",
            Cards(_legal(ctx, lead, held_counts)),
        )
    s = lead.suit
    suit = ctx.suit
    followed = 0
    for k in play:
        if suit[k] == s:
            followed += 1
    if followed == size and not lead.demands:
        return None  # all of the led suit, and the lead asks for the suit only
    table = lead.table
    counts = table.take(held_counts)
    held = sum(counts)
    if followed < held and followed < size:
        if (
            ctx.same_shape_follow_free
            and _in_led_shape(ctx, lead_units, play)
            and not _holds_led_shape(table, counts, lead_units[0])
        ):
            return None
        return _revoke(ctx, lead, held_counts, play, held, followed)
    if held <= size or not lead.demands:
        return None  # all the suit was played, or the lead asks for the suit only
    if ctx.same_shape_follow_free and _in_led_shape(ctx, lead_units, play):
        return None  # the lead's own shape in its suit (LJ LJ BJ BJ to a trump tractor too)
    # A pair led, the common case, is decided without scoring.
    if size == 2 and (play[0] == play[1] or max(counts) < 2):
        return None
    fmt = lead.fmt
    best, pieces = _best(table, counts, fmt)
    got, _ = _score(table, _slot_counts(lead, play, suit), fmt, False)
    if got >= best:
        return None
    level = next(i for i, (b, g) in enumerate(zip(best, got, strict=True)) if g < b)
    # The evidence: the hand's units on the first level of the walk the play fell short on.
    if level < len(fmt.shapes):
        width, length = fmt.shapes[level]
    else:
        width, length = (3 if level == len(fmt.shapes) else 2), 1
    kinds = table.kinds
    shown = ", ".join(
        label_cards([kinds[i] for i in slots for _ in range(w)])
        for w, slots in pieces
        if w == width and len(slots) == length
    )
    return Verdict(
        "FOLLOW_SHAPE",
        f"held {shown} but played {label_cards(play)} to a led {lead.name}",
        Cards(_complete(table, counts, pieces, size)),
    )


def _in_led_shape(ctx: TrumpContext, lead_units: Sequence[Unit], play: Sequence[int]) -> bool:
    """Whether ``play`` is one unit of a led pair's or tractor's shape, of any one suit, as the
    ruleset links its cards (``same_shape_follow_free``). O(n log n)."""
    if len(lead_units) != 1 or lead_units[0].width < 2:
        return False
    unit = lead_units[0]
    return one_unit_of_shape(ctx, play, unit.width, len(unit.kinds)) is not None


def _holds_led_shape(table: _SuitTable, counts: tuple[int, ...], unit: Unit) -> bool:
    """Whether the led-suit ``counts`` hold a unit of ``unit``'s shape (the follow tables'
    links: a hand's jokers no tractor under ``joker_tractor_alone``). O(m²·b)."""
    if len(unit.kinds) == 1:
        return max(counts) >= unit.width
    return bool(_chains(table, list(counts), unit.width, len(unit.kinds)))


def follows_in_kind(
    ctx: TrumpContext, width: int, led: int, counts: Counts, play: list[int]
) -> bool:
    """Whether ``play`` (``width`` cards the hand holds) plainly follows a lead of ``width``
    copies of one card of effective suit ``led`` (R-FOLLOW): as many copies of one card of
    the suit; any cards from a hand void in the suit; or, to a pair, two cards of the suit
    from a hand holding no two of one card in it (R-FOLLOW-SHAPE). These are most follows,
    answered without ``check_follow``'s scoring; False says only: ask ``check_follow``.
    ``counts`` is the hand before the play (``Hand.counts``). Bound: one pass over the suit's
    kinds.
    """
    # Lists, not Sequences (the auditor's cards and ``Hand.counts``): compiled, read natively.
    suit = ctx.suit
    first = play[0]
    if suit[first] == led:
        if play.count(first) == width:
            return True
        if width != 2 or suit[play[1]] != led:
            return False
        least = 2  # two cards of the suit: from a hand holding no two of one card in it
    else:
        least = 1  # any cards: from a hand void in the suit
    # A loop stopping at the first card held: compiled, a native one, several times cheaper
    # than summing ``take``'s tuple; in pure Python about as cheap, and all() over a
    # generator twice as dear.
    for k in ctx.kinds[led]:  # the suit's kinds, read from the context: no table looked up
        if counts[k] >= least:
            break
    else:
        return True
    return False


def _slot_counts(lead: _Lead, play: Sequence[int], suit: Sequence[int]) -> list[int]:
    counts = [0] * len(lead.table.kinds)
    slot = lead.tables.slot
    s = lead.suit
    for k in play:
        if suit[k] == s:
            counts[slot[k]] += 1
    return counts


def _count_label(n: int, s: int) -> str:
    if s == TRUMP:
        return f"{n} trump" if n == 1 else f"{n} trumps"
    return f"{n} {SUIT_SYMBOLS[s]}"


def _revoke(
    ctx: TrumpContext,
    lead: _Lead,
    hand: Sequence[int],
    play: Sequence[int],
    held: int,
    followed: int,
) -> Verdict:
    s = lead.suit
    others: dict[int, int] = {}
    suit = ctx.suit
    for k in play:
        if suit[k] != s:
            others[suit[k]] = others.get(suit[k], 0) + 1
    spent = " and ".join([_count_label(n, o) for o, n in sorted(others.items())])
    message = (
        f"held {_count_label(held, s)} but played {_count_label(followed, s)} and {spent} "
        f"to a led {lead.name} of {suit_label(s)}"
    )
    return Verdict("FOLLOW_REVOKE", message, Cards(_legal(ctx, lead, hand)))


def legal_follow(ctx: TrumpContext, lead_units: Sequence[Unit], hand: Hand) -> tuple[int, ...]:
    """One legal play from ``hand`` to the lead: the required units, then the cheapest cards.

    Cheapest means: in the led suit, no point cards while others remain, then low;
    when discarding, side suits before trumps, no points, then low.
    """
    return _legal(ctx, _lead(ctx, lead_units), hand.counts)


def _legal(ctx: TrumpContext, lead: _Lead, hand: Sequence[int]) -> tuple[int, ...]:
    """One legal play from the count vector ``hand``."""
    table, size, s = lead.table, lead.size, lead.suit
    held = table.take(hand)
    if sum(held) <= size:
        chosen = [k for k, c in zip(table.kinds, held, strict=True) for _ in range(c)]
        suit = ctx.suit
        for k in lead.tables.discard:
            if len(chosen) == size:
                break
            if hand[k] and suit[k] != s:
                chosen += [k] * min(size - len(chosen), hand[k])
        return tuple(chosen)
    # Without tractor, triple or pair demands any cards of the suit do: skip the search.
    pieces = _best(table, held, lead.fmt)[1] if lead.demands else []
    return _complete(table, held, pieces, size)


def _complete(
    table: _SuitTable, held: tuple[int, ...], pieces: list[Piece], size: int
) -> tuple[int, ...]:
    """The units of the best answer, then the cheapest other cards of the led suit."""
    kinds = table.kinds
    chosen: list[int] = []
    counts = list(held)
    for width, slots in pieces:
        for i in slots:
            chosen += [kinds[i]] * width
            counts[i] -= width
    for i in table.cheap:
        if len(chosen) == size:
            break
        if counts[i]:
            chosen += [kinds[i]] * min(size - len(chosen), counts[i])
    return tuple(chosen)
