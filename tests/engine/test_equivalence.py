"""The engine's polynomial algorithms give the answers of the exhaustive ones they replaced.

The old functions live here only, as an oracle: they enumerate every cutting or split of
a play, so they are fed small plays of cards that can exist (at most ``decks`` copies of a
card), drawn from a narrow band of one effective suit where sets and tractors are common,
under every preset's order rule (R-UNIT, R-UNIT-SPLIT, R-THROW, R-WIN, R-FOLLOW-SHAPE).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.engine.cards import Hand, is_joker
from chaodipi.engine.follow import (
    _chains,
    _Format,
    _format,
    _in_led_shape,
    _score,
    _sets,
    _SuitTable,
    _tables,
    check_follow,
)
from chaodipi.engine.lead import check_lead, lead_units
from chaodipi.engine.order import TRUMP, TrumpContext, trump_context
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.ruleset import Ruleset, ThrowCompare
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import Unit, canonical_split, units_containing_lowest

Shape = tuple[int, int]
Key = tuple[int, ...]

# --- The exhaustive trick winner (engine/trick.py before the dynamic programme) ---


def _shape_order(shape: Shape) -> tuple[int, int, int]:
    width, length = shape
    return (-width * length, -width, -length)


def _key(ctx: TrumpContext, order: Sequence[Shape], units: Sequence[Unit]) -> Key:
    key: list[int] = []
    for shape in order:
        key += sorted((ctx.strength[u.top] for u in units if u.shape == shape), reverse=True)
    return tuple(key)


def _cuttings(
    ctx: TrumpContext, counts: Counter[int], need: Counter[Shape], throw: bool
) -> Iterator[list[Unit]]:
    present = [k for k, c in counts.items() if c]
    if not present:
        yield []
        return
    low = min(present, key=lambda k: (ctx.step[k], k))
    for (width, length), wanted in need.items():
        if not wanted or counts[low] < width:
            continue
        for kinds in _runs(ctx, counts, low, width, length, throw):
            for k in kinds:
                counts[k] -= width
            need[(width, length)] -= 1
            for rest in _cuttings(ctx, counts, need, throw):
                yield [Unit(width, kinds), *rest]
            need[(width, length)] += 1
            for k in kinds:
                counts[k] += width


def _runs(
    ctx: TrumpContext, counts: Counter[int], start: int, width: int, length: int, throw: bool
) -> Iterator[tuple[int, ...]]:
    # A throw's answers link no jokers under ``joker_tractor_alone``.
    alone = throw and ctx.joker_tractor_alone
    stack: list[tuple[int, ...]] = [(start,)]
    while stack:
        run = stack.pop()
        if len(run) == length:
            yield run
            continue
        for nxt in ctx.link_up[run[-1]]:
            if alone and (is_joker(run[-1]) or is_joker(nxt)):
                continue
            if counts[nxt] >= width:
                stack.append((*run, nxt))


def _play_key(
    ctx: TrumpContext,
    led: int,
    shapes: Counter[Shape],
    order: Sequence[Shape],
    play: Sequence[int],
    throw: bool,
) -> Key | None:
    suit = ctx.suit[play[0]] if play else -1
    if suit not in (led, TRUMP) or any(ctx.suit[k] != suit for k in play):
        return None
    best: Key | None = None
    for units in _cuttings(ctx, Counter(play), Counter(shapes), throw):
        key = _key(ctx, order, units)
        if best is None or key > best:
            best = key
    return best


def old_trick_winner(
    ctx: TrumpContext, lead: Sequence[Unit], follows: Sequence[Sequence[int]]
) -> int:
    led = ctx.suit[lead[0].top]
    if len(lead) > 1 and ctx.throw_compare is ThrowCompare.HIGHEST_CARD:
        shapes_list = sorted(u.shape for u in lead)
        winner, top = 0, max(ctx.strength[u.top] for u in lead)
        for i, play in enumerate(follows, 1):
            suit = ctx.suit[play[0]] if play else -1
            if suit not in (led, TRUMP) or any(ctx.suit[k] != suit for k in play):
                continue
            if sorted(u.shape for u in old_canonical_split(ctx, play)) != shapes_list:
                continue
            high = max(ctx.strength[k] for k in play)
            if high > top:
                winner, top = i, high
        return winner
    shapes = Counter(u.shape for u in lead)
    order = sorted(shapes, key=_shape_order)
    kept = 1 if ctx.throw_compare is ThrowCompare.LARGEST_UNIT_TOP else len(lead)
    winner, best = 0, _key(ctx, order, lead)[:kept]
    for i, play in enumerate(follows, 1):
        key = _play_key(ctx, led, shapes, order, play, len(lead) > 1)
        if key is not None and key[:kept] > best:
            winner, best = i, key[:kept]
    return winner


# --- The exhaustive canonical split (engine/units.py before the dynamic programme) ---


def _split_key(units: Sequence[Unit]) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    sizes = tuple(sorted(-u.size for u in units))
    lengths = tuple(sorted(-u.length for u in units))
    return (len(units), sizes, lengths)


def old_canonical_split(ctx: TrumpContext, kinds: Sequence[int]) -> list[Unit]:
    ordered = tuple(sorted(kinds, key=lambda k: (ctx.step[k], k)))
    if ordered and ordered[0] == ordered[-1]:
        return [Unit(len(ordered), (ordered[0],))]
    width = max(Counter(ordered).values(), default=0)
    return list(_old_canonical(ctx, ordered, max(width, 1)))


@lru_cache(maxsize=4096)
def _old_canonical(ctx: TrumpContext, ordered: tuple[int, ...], max_width: int) -> tuple[Unit, ...]:
    if not ordered:
        return ()
    counts = Counter(ordered)
    best: tuple[Unit, ...] = ()
    best_key: tuple[int, tuple[int, ...], tuple[int, ...]] | None = None
    for unit in units_containing_lowest(ctx, counts, ordered[0], max_width):
        rest = counts.copy()
        for k in unit.kinds:
            rest[k] -= unit.width
        remaining = tuple(k for k in dict.fromkeys(ordered) for _ in range(rest[k]))
        units = (unit, *_old_canonical(ctx, remaining, max_width))
        key = _split_key(units)
        if best_key is None or key < best_key:
            best, best_key = units, key
    return tuple(sorted(best, key=lambda u: (-u.size, -u.length, -ctx.strength[u.top])))


# --- The follow shape score over every selection of disjoint chains (the picks walked before) ---

Selection = tuple[tuple[int, ...], ...]  # the ranks in ``_chains``'s order taken on each level


def _owed(fmt: _Format, taken: Sequence[int]) -> tuple[int, int] | None:
    """Triples and pairs owed after ``taken`` tractors on each level; None past a demand."""
    demand = list(fmt.lead_tractors)
    triples, pairs = fmt.triples, fmt.pairs
    for level, got in enumerate(taken):
        missing = demand[level] - got
        if missing < 0:
            return None
        if fmt.shorter[level] >= 0:
            demand[fmt.shorter[level]] += missing
        if fmt.shapes[level][0] == 3:
            triples += missing * fmt.sets_left[level]
        else:
            pairs += missing * fmt.sets_left[level]
    return triples, pairs


def _selections(
    chains: list[list[tuple[int, ...]]], level: int, used: frozenset[int]
) -> Iterator[Selection]:
    """Every choice of disjoint chains, any number on each level."""
    if level == len(chains):
        yield ()
        return
    for size in range(len(chains[level]) + 1):
        for ranks in combinations(range(len(chains[level])), size):
            slots = [s for r in ranks for s in chains[level][r]]
            if len(set(slots)) == len(slots) and used.isdisjoint(slots):
                for rest in _selections(chains, level + 1, used | set(slots)):
                    yield (ranks, *rest)


def exhaustive_score(
    table: _SuitTable, counts: Sequence[int], fmt: _Format
) -> tuple[tuple[int, ...], list[tuple[int, tuple[int, ...]]]]:
    """The best score of every selection, the lowest chains of each level among equals."""
    chains = [_chains(table, list(counts), width, length) for width, length in fmt.shapes]
    best: tuple[tuple[int, ...], Selection, list[int]] | None = None
    for picked in _selections(chains, 0, frozenset()):
        owed = _owed(fmt, [len(ranks) for ranks in picked])
        if owed is None:
            continue  # a tractor past its level's demand answers nothing
        left = list(counts)
        for (width, _), found, ranks in zip(fmt.shapes, chains, picked, strict=True):
            for r in ranks:
                for s in found[r]:
                    left[s] -= width
        triples, pairs = owed
        t = min(triples, left.count(3))
        p = min(pairs + triples - t, sum(c >= 2 for c in left) - t)
        score = (*(len(ranks) for ranks in picked), t, p)
        if best is None or score > best[0] or (score == best[0] and picked < best[1]):
            best = (score, picked, left)
    assert best is not None
    score, picked, left = best
    pieces = [
        (width, found[r])
        for (width, _), found, ranks in zip(fmt.shapes, chains, picked, strict=True)
        for r in ranks
    ]
    triples_pairs = _owed(fmt, [len(ranks) for ranks in picked])
    assert triples_pairs is not None
    return score, pieces + _sets(table, left, *triples_pairs, True)[1]


# --- Generated plays ---

RULESETS = sorted(PRESETS.values(), key=lambda r: r.id)
# The trick comparisons the old code had: godot's first-card rule for dumps came after it
# (tests/engine/test_throw.py holds its cases).
OLD_COMPARE_RULESETS = [r for r in RULESETS if r.order.throw_compare is not ThrowCompare.ANY_THROW]


def _context(rng: random.Random, ruleset: Ruleset) -> TrumpContext:
    return trump_context(ruleset, rng.randrange(13), rng.choice([0, 1, 2, 3, None]))


def _suited_context(rng: random.Random, ruleset: Ruleset) -> tuple[TrumpContext, int]:
    """A random trump context and one of its effective suits of two steps or more."""
    ctx = _context(rng, ruleset)
    return ctx, rng.choice([s for s in range(5) if len(ctx.steps[s]) >= 2])


def _band(rng: random.Random, ctx: TrumpContext, suit: int, width: int) -> list[int]:
    """The kinds of ``width`` neighbouring steps of ``suit`` (the top of trumps often)."""
    steps = ctx.steps[suit]
    low = rng.randrange(max(len(steps) - width, 0) + 1)
    if suit == TRUMP and rng.random() < 0.5:
        low = max(len(steps) - width, 0)
    return [k for step in steps[low : low + width] for k in step]


def _draw(rng: random.Random, kinds: Sequence[int], decks: int, size: int) -> list[int]:
    """``size`` cards from ``kinds``, at most ``decks`` copies each, copies made likely."""
    pool = [k for k in kinds for _ in range(decks)]
    if size >= len(pool):
        return pool
    picked: list[int] = []
    counts: Counter[int] = Counter()
    while len(picked) < size:
        k = rng.choice(kinds)
        take = min(rng.randint(1, decks), decks - counts[k], size - len(picked))
        counts[k] += take
        picked += [k] * take
    return picked


def _trick(rng: random.Random, ruleset: Ruleset) -> tuple[TrumpContext, list[int], list[list[int]]]:
    ctx, suit = _suited_context(rng, ruleset)
    lead = _draw(rng, _band(rng, ctx, suit, rng.randint(2, 7)), ruleset.decks, rng.randint(2, 10))
    follows = []
    for _ in range(3):
        roll = rng.random()
        if roll < 0.45:
            kinds = _band(rng, ctx, suit, rng.randint(2, 7))
        elif roll < 0.9:
            kinds = _band(rng, ctx, TRUMP, rng.randint(2, 7))
        else:
            kinds = [k for s in range(5) for step in ctx.steps[s][:2] for k in step]
        play = _draw(rng, kinds, ruleset.decks, len(lead))
        if len(play) == len(lead):  # a narrow band may hold fewer cards
            follows.append(play)
    return ctx, lead, follows


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(OLD_COMPARE_RULESETS))
def test_r_win_winner_is_the_exhaustive_ones(seed: int, ruleset: Ruleset) -> None:
    rng = random.Random(seed)
    ctx, lead, follows = _trick(rng, ruleset)
    assert check_lead(ctx, lead) is None
    units = lead_units(ctx, lead)
    assert trick_winner(ctx, units, follows) == old_trick_winner(ctx, units, follows)
    # A follow's own cards as the lead (a tractor or throw of another shape).
    for play in follows:
        if len(play) == len(lead) and check_lead(ctx, play) is None:
            other = lead_units(ctx, play)
            assert trick_winner(ctx, other, [lead, *follows]) == old_trick_winner(
                ctx, other, [lead, *follows]
            )


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(RULESETS))
def test_r_unit_split_is_the_exhaustive_one(seed: int, ruleset: Ruleset) -> None:
    rng = random.Random(seed)
    ctx, suit = _suited_context(rng, ruleset)
    lead = _draw(rng, _band(rng, ctx, suit, rng.randint(2, 9)), ruleset.decks, rng.randint(1, 18))
    assert canonical_split(ctx, lead) == old_canonical_split(ctx, lead)


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(RULESETS))
def test_r_follow_shape_score_is_the_exhaustive_one(seed: int, ruleset: Ruleset) -> None:
    rng = random.Random(seed)
    ctx, suit = _suited_context(rng, ruleset)
    # A lead of many sets and tractors, a hand dense in the same band, so chains cross.
    lead = _draw(rng, _band(rng, ctx, suit, rng.randint(2, 8)), ruleset.decks, rng.randint(4, 16))
    if check_lead(ctx, lead) is not None:
        return
    units = lead_units(ctx, lead)
    if ctx.suit[units[0].top] != suit:
        return
    fmt = _format(
        units,
        ctx.follow_shorter_tractors,
        ctx.throw_tractor_duty,
        ctx.tractor_duty,
        ctx.throw_shape_needs_tractor,
    )
    table = _tables(ctx).suits[suit]
    cards = _draw(rng, _band(rng, ctx, suit, rng.randint(3, 9)), ruleset.decks, rng.randint(4, 22))
    hand = Counter(cards)
    counts = [hand[k] for k in table.kinds]
    best = _score(table, counts, fmt, True)
    assert best == exhaustive_score(table, counts, fmt)
    assert _score(table, counts, fmt, False)[0] == best[0]
    # Plays from the hand: the verdict is FOLLOW_SHAPE exactly when the oracle scores it lower.
    size = sum(u.size for u in units)
    if len(cards) <= size:
        return
    for _ in range(4):
        play = rng.sample(cards, size)
        got = Counter(play)
        verdict = check_follow(ctx, units, Hand(cards), play)
        lower = exhaustive_score(table, [got[k] for k in table.kinds], fmt)[0] < best[0]
        # The lead's own shape in its suit is legal with ``same_shape_follow_free`` (LJ LJ BJ BJ
        # to a trump tractor, which the follow tables' links score as two pairs).
        if ctx.same_shape_follow_free and _in_led_shape(ctx, units, play):
            lower = False
        assert (verdict is not None and verdict.code == "FOLLOW_SHAPE") == lower


def test_r_follow_shape_one_chain_crosses_a_step_boundary() -> None:
    # The bound of follow._score: a kind links to nothing or to the whole next step of its
    # suit, and two linked steps never both hold more than one kind.
    for ruleset in RULESETS:
        for level in range(13):
            for trump in (0, 1, 2, 3, None):
                ctx = trump_context(ruleset, level, trump)
                for steps in ctx.steps:
                    for i, step in enumerate(steps):
                        upper = steps[i + 1] if i + 1 < len(steps) else ()
                        links = {ctx.link_up[k] for k in step}
                        assert links <= {(), upper}
                        if links != {()}:
                            assert min(len(step), len(upper)) == 1
