"""Following: suit duty and shape duty (R-FOLLOW-SUIT, R-FOLLOW-SHAPE, R-FOLLOW-CS)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.engine.cards import CLUBS, HEARTS, Cards, Hand, full_deck, parse_cards, rank_index
from chaodipi.engine.follow import check_follow, follows_in_kind, legal_follow
from chaodipi.engine.lead import lead_units
from chaodipi.engine.order import TrumpContext, trump_context
from chaodipi.engine.presets import ANHUI, CHANGSHU, CLASSIC, SHUANGSHENG
from chaodipi.engine.ruleset import Ruleset
from chaodipi.engine.units import Unit, units_containing_lowest
from chaodipi.engine.verdict import Verdict

LEVEL2 = rank_index("2")
CTX = trump_context(CLASSIC, LEVEL2, CLUBS)
CS = trump_context(CHANGSHU, rank_index("6"), CLUBS)


def follow(ctx: TrumpContext, lead: str, hand: str, play: str) -> Verdict | None:
    units = lead_units(ctx, parse_cards(lead))
    return check_follow(ctx, units, Hand(hand), parse_cards(play))


def legal(ctx: TrumpContext, lead: str, hand: str, play: str) -> bool:
    return follow(ctx, lead, hand, play) is None


def test_r_follow_suit_revoke_message() -> None:
    problem = follow(CTX, "HK HK", "H3 H5 H9 S4 S7", "H3 S4")
    assert problem is not None and problem.code == "FOLLOW_REVOKE"
    assert problem.reason == "held 3 ♥ but played 1 ♥ and 1 ♠ to a led pair of ♥"
    assert follow(CTX, "HK HK", "H3 H5 H9 S4 S7", " ".join(["H3", "H5"])) is None
    assert problem.alternative == tuple(parse_cards("H3 H9"))


def test_r_follow_suit_trumps_led() -> None:
    problem = follow(CTX, "C9", "C3 BJ H2 SA", "SA")
    assert problem is not None and problem.code == "FOLLOW_REVOKE"
    assert problem.reason == "held 3 trumps but played 0 trumps and 1 ♠ to a led single of trumps"


def test_r_follow_suit_short_plays_all_then_anything() -> None:
    assert legal(CTX, "HK HK", "H3 S4 S7 C9", "H3 C9")
    assert legal(CTX, "HK HK", "H3 S4 S7 C9", "S4 H3")
    problem = follow(CTX, "HK HK", "H3 S4 S7 C9", "S4 S7")
    assert problem is not None and problem.code == "FOLLOW_REVOKE"
    assert problem.alternative == tuple(parse_cards("H3 S4"))


def test_r_follow_suit_void_plays_anything() -> None:
    assert legal(CTX, "HK HK HQ HQ", "S3 S4 C9 C9 BJ", "C9 C9 S3 BJ")


def test_r_follow_wrong_card_count() -> None:
    problem = follow(CTX, "HK HK", "H3 H5 H9", "H3")
    assert problem is not None and problem.code == "WRONG_CARD_COUNT"


def test_r_follow_shape_pair_example() -> None:
    problem = follow(CTX, "SK SK", "SQ SQ S7 H4", "SQ S7")
    assert problem is not None and problem.code == "FOLLOW_SHAPE"
    problem = follow(CTX, "DK DK", "DQ DQ D7 H4", "DQ D7")
    assert problem is not None
    assert follow(trump_context(CLASSIC, LEVEL2, HEARTS), "CK CK", "CQ CQ C7", "CQ C7") == (
        Verdict("FOLLOW_SHAPE", "held ♣Q ♣Q but played ♣Q ♣7 to a led pair", Cards("CQ CQ"))
    )
    assert legal(CTX, "SK SK", "SQ SQ S7 H4", "SQ SQ")
    assert legal(CTX, "SK SK", "SQ S8 S7 H4", "S8 S7")


def test_r_follow_shape_tractor_then_pairs_then_singles() -> None:
    lead = "S9 S9 S10 S10"
    hand = "S3 S3 S4 S4 S7 S7 SA"
    assert legal(CTX, lead, hand, "S3 S3 S4 S4")
    problem = follow(CTX, lead, hand, "S3 S3 S7 S7")
    assert problem is not None and problem.code == "FOLLOW_SHAPE"
    assert problem.reason == ("held ♠3 ♠3 ♠4 ♠4 but played ♠3 ♠3 ♠7 ♠7 to a led tractor of 2 pairs")
    # No tractor: two pairs; one pair: the pair and singles.
    assert legal(CTX, lead, "S3 S3 S7 S7 SA SK", "S3 S3 S7 S7")
    problem = follow(CTX, lead, "S3 S3 S7 S7 SA SK", "S3 S3 SA SK")
    assert problem is not None and problem.reason.startswith("held ♠3 ♠3, ♠7 ♠7 but played")
    assert legal(CTX, lead, "S3 S3 S7 SA SK", "S3 S3 S7 SA")
    assert not legal(CTX, lead, "S3 S3 S7 SA SK", "S3 S7 SA SK")


def test_r_follow_shape_throw_its_tractors_then_its_pairs() -> None:
    lead = "HA HK HK"  # a pair and a single
    assert legal(CTX, lead, "H3 H3 H7 H9", "H3 H3 H9")
    assert not legal(CTX, lead, "H3 H3 H7 H9", "H3 H7 H9")
    lead = "HA HA HK HK H9"  # a tractor and a single
    assert not legal(CTX, lead, "H3 H3 H4 H4 H7 H7 H8", "H3 H3 H7 H7 H8")
    assert legal(CTX, lead, "H3 H3 H4 H4 H7 H7 H8", "H3 H3 H4 H4 H7")


def test_r_follow_shape_by_comparison_across_the_trump_top() -> None:
    # Trumps led as a tractor: ♣A ♣A ♠2 ♠2 is a tractor (trump A — other-level pair).
    lead = "C9 C9 C10 C10"
    hand = "CA CA S2 S2 C3 C3 H5"
    assert legal(CTX, lead, hand, "CA CA S2 S2")
    assert not legal(CTX, lead, hand, "CA CA C3 C3")
    # Two other-level pairs are no tractor: any two pairs do.
    assert legal(CTX, lead, "S2 S2 H2 H2 C3 C3 C5", "C3 C3 H2 H2")


def test_r_follow_shape_shorter_tractors_is_a_ruleset_parameter() -> None:
    lead = "S8 S8 S9 S9 S10 S10"
    hand = "S3 S3 S4 S4 SJ SJ SQ"
    assert legal(CTX, lead, hand, "S3 S3 SJ SJ S4 S4")  # three pairs, tractor or not
    order = dataclasses.replace(CLASSIC.order, follow_shorter_tractors=True)
    variant = dataclasses.replace(CLASSIC, id="shorter", order=order)
    ctx = trump_context(variant, LEVEL2, CLUBS)
    assert ctx.follow_shorter_tractors
    assert legal(ctx, lead, hand, "S3 S3 S4 S4 SJ SJ")
    hand = "S3 S3 S5 S5 SJ SJ SQ SQ"
    assert not legal(ctx, lead, hand, "S3 S3 S5 S5 SJ SJ")
    assert legal(ctx, lead, hand, "S3 S3 SJ SJ SQ SQ")


def test_r_follow_cs_tractor_before_pairs() -> None:
    # 別人打拖拉機必須先跟拖拉機再考慮對子.
    lead = "S9 S9 S10 S10"
    assert not legal(CS, lead, "S3 S3 S4 S4 S8 S8", "S3 S3 S8 S8")
    assert legal(CS, lead, "S3 S3 S4 S4 S8 S8", "S3 S3 S4 S4")


def test_r_follow_cs_triple_led() -> None:
    lead = "S9 S9 S9"
    assert legal(CS, lead, "S3 S3 S3 S4 S4 S7", "S3 S3 S3")
    assert not legal(CS, lead, "S3 S3 S3 S4 S4 S7", "S4 S4 S7")
    # No triple: a pair and a single.
    assert legal(CS, lead, "S3 S3 S4 S7", "S3 S3 S4")
    assert not legal(CS, lead, "S3 S3 S4 S7", "S3 S4 S7")


def test_r_follow_cs_pair_inside_a_triple_counts_as_a_pair() -> None:
    problem = follow(CS, "S9 S9", "S3 S3 S3 S7", "S3 S7")
    assert problem is not None and problem.code == "FOLLOW_SHAPE"
    assert problem.reason == "held ♠3 ♠3 but played ♠3 ♠7 to a led pair"
    assert legal(CS, "S9 S9", "S3 S3 S3 S7", "S3 S3")


def test_r_follow_cs_tractor_of_triples() -> None:
    lead = "S9 S9 S9 S10 S10 S10"
    # A tractor of triples held must be played.
    hand = "S3 S3 S3 S4 S4 S4 S7 S7"
    assert legal(CS, lead, hand, "S3 S3 S3 S4 S4 S4")
    assert not legal(CS, lead, hand, "S3 S3 S3 S4 S7 S7")
    # Else its triples, then pairs.
    hand = "S3 S3 S3 S7 S7 S8 S8 SK"
    assert legal(CS, lead, hand, "S3 S3 S3 S7 S7 S8")
    assert not legal(CS, lead, hand, "S3 S3 S7 S7 S8 S8")


def test_r_follow_shape_evidence_is_the_lowest_tractors_among_equal_answers() -> None:
    # ♠3–♠6 as triples answer the triple tractor and then the pair tractor two ways, equal in
    # score: the evidence and the legal play take the lowest tractor of each level in turn.
    ctx = trump_context(CHANGSHU, rank_index("7"), HEARTS)
    lead = "S5 S5 S5 S6 S6 S6 S9 S10 S10 SJ SJ"
    hand = "S3 S3 S3 S4 S4 S4 S5 S5 S5 S6 S6 S6 S8 S8"
    assert legal(ctx, lead, hand, "S5 S5 S5 S6 S6 S6 S3 S3 S4 S4 S8")
    problem = follow(ctx, lead, hand, "S3 S4 S5 S6 S8 S8 S3 S4 S5 S6 S3")
    assert problem is not None and problem.code == "FOLLOW_SHAPE"
    assert problem.reason.startswith("held ♠3 ♠3 ♠3 ♠4 ♠4 ♠4 but played")
    assert problem.alternative == tuple(parse_cards("S3 S3 S3 S4 S4 S4 S5 S5 S6 S6 S6"))
    problem = follow(ctx, lead, hand, "S3 S3 S3 S4 S4 S4 S5 S6 S8 S8 S5")
    assert problem is not None and problem.reason.startswith("held ♠5 ♠5 ♠6 ♠6 but played")


RULESETS = [CLASSIC, SHUANGSHENG, ANHUI, CHANGSHU]


def _deal(rng: random.Random, ruleset: Ruleset) -> list[list[int]]:
    deck = full_deck(ruleset.decks)
    rng.shuffle(deck)
    size = ruleset.hand_size
    return [sorted(deck[i * size : (i + 1) * size]) for i in range(4)]


def _lead(rng: random.Random, ctx: TrumpContext, hand: list[int]) -> list[int]:
    by_suit: dict[int, list[int]] = {}
    for k in hand:
        by_suit.setdefault(ctx.suit[k], []).append(k)
    cards = by_suit[rng.choice(sorted(by_suit))]
    units = [u for u in lead_units(ctx, cards) if u.width >= 2]
    if units and rng.random() < 0.6:
        return rng.choice(units).cards()
    return rng.sample(cards, rng.randint(1, min(len(cards), 8)))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(RULESETS), shorter=st.booleans())
def test_r_follow_shape_a_legal_follow_always_exists(
    seed: int, ruleset: Ruleset, shorter: bool
) -> None:
    rng = random.Random(seed)
    order = dataclasses.replace(ruleset.order, follow_shorter_tractors=shorter)
    ctx = trump_context(
        dataclasses.replace(ruleset, order=order), rng.randrange(13), rng.choice([0, 1, 2, 3, None])
    )
    table = _deal(rng, ruleset)
    leader = rng.randrange(4)
    units = lead_units(ctx, _lead(rng, ctx, table[leader]))
    size = sum(u.size for u in units)
    for seat in range(4):
        if seat == leader:
            continue
        hand = Hand(table[seat])
        play = legal_follow(ctx, units, hand)
        assert len(play) == size
        assert all(play.count(k) <= hand.count(k) for k in play)
        assert check_follow(ctx, units, hand, play) is None
        assert check_follow(ctx, units, hand, play[::-1]) is None
        # Any play: never raises, and a problem's alternative is legal.
        other = rng.sample(table[seat], size)
        problem = check_follow(ctx, units, hand, other)
        if problem is not None:
            assert problem.code in ("FOLLOW_REVOKE", "FOLLOW_SHAPE")
            assert check_follow(ctx, units, hand, problem.alternative) is None


def _cuttings(ctx: TrumpContext, cards: tuple[int, ...], width: int) -> list[list[Unit]]:
    """Every way to cut ``cards`` into units (brute force)."""
    if not cards:
        return [[]]
    counts = Counter(cards)
    low = min(cards, key=lambda k: (ctx.step[k], k))
    found = []
    for unit in units_containing_lowest(ctx, counts, low, width):
        rest = Counter(counts)
        rest.subtract(Counter(unit.cards()))
        remaining = tuple(sorted(rest.elements()))
        found += [[unit, *more] for more in _cuttings(ctx, remaining, width)]
    return found


def _brute_score(
    ctx: TrumpContext, lead: list[tuple[int, int]], cards: tuple[int, ...], width: int
) -> tuple[int, ...]:
    """The shape score of RULES.md §5 by brute force over every cutting of ``cards``."""
    levels = sorted({s for s in lead if s[1] >= 2}, key=lambda s: (-s[0] * s[1], -s[0], -s[1]))
    if ctx.follow_shorter_tractors:
        levels = sorted(
            {(w, m) for w, n in levels for m in range(2, n + 1)},
            key=lambda s: (-s[0] * s[1], -s[0], -s[1]),
        )
    best: tuple[int, ...] = ()
    for cutting in _cuttings(ctx, cards, width):
        have = Counter(u.shape for u in cutting)
        demand = Counter(s for s in lead if s[1] >= 2)
        sets = Counter({3: lead.count((3, 1)), 2: lead.count((2, 1))})
        score: list[int] = []
        for w, n in levels:
            matched = min(demand[(w, n)], have[(w, n)])
            missing = demand[(w, n)] - matched
            score.append(matched)
            if ctx.follow_shorter_tractors and n > 2:
                demand[(w, n - 1)] += missing
                sets[w] += missing
            else:
                sets[w] += missing * n
        triples = min(sets[3], have[(3, 1)])
        pairs = min(sets[2] + sets[3] - triples, have[(2, 1)])
        best = max(best, (*score, triples, pairs))
    return best


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    ruleset=st.sampled_from([CLASSIC, CHANGSHU]),
    shorter=st.booleans(),
)
def test_r_follow_shape_agrees_with_brute_force(seed: int, ruleset: Ruleset, shorter: bool) -> None:
    rng = random.Random(seed)
    order = dataclasses.replace(ruleset.order, follow_shorter_tractors=shorter)
    ctx = trump_context(
        dataclasses.replace(ruleset, order=order), rng.randrange(13), rng.choice([0, 1, 2, 3, None])
    )
    suit = rng.choice([s for s in range(5) if len(ctx.steps[s]) >= 8])
    # A narrow band of the suit so that sets and tractors are common.
    low = rng.randrange(len(ctx.steps[suit]) - 7)
    band = [step[0] for step in ctx.steps[suit][low : low + 8]]
    pool = band * ruleset.decks
    if rng.random() < 0.6:
        # Mostly tractors (and tractors with an extra card) led: the hard cases.
        start, width = rng.randrange(3), rng.randint(2, ruleset.decks)
        length = rng.randint(2, 3 if width == 2 else 2)
        lead_cards = [k for k in band[start : start + length] for _ in range(width)]
        lead_cards += rng.sample([k for k in band if k not in lead_cards], rng.randint(0, 1))
    else:
        lead_cards = rng.sample(pool, rng.randint(2, 6))
    for k in lead_cards:
        pool.remove(k)
    rng.shuffle(pool)
    hand_cards = pool[: rng.randint(len(lead_cards) + 1, max(len(lead_cards) + 1, 10))]
    units = lead_units(ctx, lead_cards)
    size = len(lead_cards)
    shapes = [u.shape for u in units]
    held = Hand(hand_cards)
    plays = {tuple(sorted(c)) for c in combinations(hand_cards, size)}
    scores = {p: _brute_score(ctx, shapes, p, ruleset.decks) for p in plays}
    top = max(scores.values())
    for play, score in scores.items():
        assert (check_follow(ctx, units, held, play) is None) == (score == top), (
            [u.label() for u in units],
            play,
            score,
            top,
        )


@pytest.mark.parametrize("ctx", [CTX, CS], ids=["classic", "changshu"])
def test_r_follow_plain_follows_are_legal_and_include_pairs_from_a_hand_without_one(
    ctx: TrumpContext,
) -> None:
    # follows_in_kind answers most follows without check_follow: it may say False of a legal
    # play, never True of an illegal one; and it does take two cards of the suit to a pair from
    # a hand holding no two of one card there (R-FOLLOW-SHAPE).
    rng = random.Random(11)
    deck = full_deck(ctx.decks)
    plain = 0
    for _ in range(200):
        hand = Hand(rng.sample(deck, 25))
        held = sorted(set(hand))
        for width in (1, 2, 3):
            led_kind = rng.choice(deck)
            unit = Unit(width, (led_kind,))
            led = ctx.suit[led_kind]
            for cards in combinations(list(hand), width):
                play = list(cards)  # as the auditor holds a play: compiled, a list is required
                if hand.missing(play) or len(held) < width:
                    continue
                if follows_in_kind(ctx, width, led, hand.counts, play):
                    plain += 1
                    assert check_follow(ctx, [unit], hand, play) is None, (play, led_kind)
    assert plain
    no_pair = Hand(parse_cards("SA SK S7 H3"))
    spades = ctx.suit[parse_cards("S9")[0]]
    assert follows_in_kind(ctx, 2, spades, no_pair.counts, parse_cards("SK S7"))
    assert not follows_in_kind(
        ctx, 2, spades, Hand(parse_cards("SA SA S7")).counts, parse_cards("SA S7")
    )
