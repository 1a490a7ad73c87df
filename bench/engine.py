"""Engine benchmark: follow-legality decisions and whole tricks per second, on one core.

Every case is fresh: a random deal, a random trump context, a random realistic lead
(single, pair, tractor or throw) from the leader's hand and a follow that is legal
(the engine's own answer), a random pick from the follower's led-suit cards (often
a shape fault) or a random pick from the whole hand (often a revoke). Cases are built
in batches outside the timed loop; each batch is timed cold, once, in CPU seconds.

    python bench/engine.py --seconds 5 --seed 1
    valgrind --tool=callgrind python bench/engine.py --fixed 1500 --seed 1   # instructions
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from build_info import describe_build  # bench/, beside this script

from chaodipi.engine.cards import Hand, full_deck
from chaodipi.engine.follow import check_follow, clear_caches, legal_follow
from chaodipi.engine.lead import check_lead, check_throw, lead_units
from chaodipi.engine.order import TrumpContext, trump_context
from chaodipi.engine.presets import CHANGSHU, CLASSIC
from chaodipi.engine.ruleset import Ruleset
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import Unit, chains_from

BATCH = 4000


@dataclass(frozen=True, slots=True)
class Case:
    """One lead and the three follows to it, with everything the checks need."""

    ctx: TrumpContext
    leader: int
    hands: tuple[Hand, ...]
    lead: list[int]
    units: tuple[Unit, ...]  # what the followers answer (the forced unit after a failed throw)
    follows: tuple[tuple[int, ...], ...]


def _random_lead(rng: random.Random, ctx: TrumpContext, hand: list[int]) -> list[int]:
    by_suit: dict[int, list[int]] = {}
    for k in hand:
        by_suit.setdefault(ctx.suit[k], []).append(k)
    cards = by_suit[rng.choice(sorted(by_suit))]
    counts = Counter(cards)
    sets = [k for k, c in counts.items() if c >= 2]
    roll = rng.random()
    if roll < 0.40 or len(cards) < 2:
        return [rng.choice(cards)]
    if roll < 0.65 and sets:
        kind = rng.choice(sets)
        return [kind] * rng.randint(2, counts[kind])
    tractors = [t for k in sets for t in chains_from(ctx, counts, k, 2)]
    if roll < 0.80 and tractors:
        return rng.choice(tractors).cards()
    return rng.sample(cards, min(len(cards), rng.randint(2, 6)))


def _random_follow(
    rng: random.Random, ctx: TrumpContext, units: Sequence[Unit], hand: list[int], held: Hand
) -> tuple[int, ...]:
    size = sum(u.size for u in units)
    roll = rng.random()
    if roll < 1 / 3:
        return legal_follow(ctx, units, held)
    led = ctx.suit[units[0].top]
    if roll < 2 / 3:
        in_suit = [k for k in hand if ctx.suit[k] == led]
        if len(in_suit) >= size:
            return tuple(rng.sample(in_suit, size))
    return tuple(rng.sample(hand, size))


def make_cases(rng: random.Random, ruleset: Ruleset, count: int) -> list[Case]:
    """``count`` fresh random cases for ``ruleset``."""
    cases: list[Case] = []
    deck = full_deck(ruleset.decks)
    size = ruleset.hand_size
    while len(cases) < count:
        rng.shuffle(deck)
        hands = [sorted(deck[i * size : (i + 1) * size]) for i in range(4)]
        held = tuple(Hand(h) for h in hands)
        ctx = trump_context(ruleset, rng.randrange(13), rng.choice((0, 1, 2, 3, None)))
        leader = rng.randrange(4)
        lead = _random_lead(rng, ctx, hands[leader])
        verdict = check_throw(ctx, ruleset.throw, leader, lead, held)
        units = (verdict.forced,) if verdict.forced is not None else verdict.units
        follows = tuple(
            _random_follow(rng, ctx, units, hands[(leader + i) % 4], held[(leader + i) % 4])
            for i in (1, 2, 3)
        )
        cases.append(Case(ctx, leader, held, lead, units, follows))
    # Building the legal follows evaluated these hands: forget them so the timing is cold.
    clear_caches()
    return cases


def follow_decisions(cases: Sequence[Case]) -> int:
    """Check every follow of every case; the number of decisions made."""
    for case in cases:
        ctx, units, hands, leader = case.ctx, case.units, case.hands, case.leader
        for i, play in enumerate(case.follows, 1):
            check_follow(ctx, units, hands[(leader + i) % 4], play)
    return 3 * len(cases)


def whole_tricks(ruleset: Ruleset) -> Callable[[Sequence[Case]], int]:
    """Lead check, throw check, three follow checks and the winner, per case."""

    def run(cases: Sequence[Case]) -> int:
        for case in cases:
            ctx, hands, leader = case.ctx, case.hands, case.leader
            check_lead(ctx, case.lead)
            verdict = check_throw(ctx, ruleset.throw, leader, case.lead, hands)
            units = (verdict.forced,) if verdict.forced is not None else lead_units(ctx, case.lead)
            for i, play in enumerate(case.follows, 1):
                check_follow(ctx, units, hands[(leader + i) % 4], play)
            trick_winner(ctx, units, case.follows)
        return len(cases)

    return run


def measure(
    rng: random.Random, ruleset: Ruleset, work: Callable[[Sequence[Case]], int], seconds: float
) -> float:
    """Operations per CPU second over fresh batches until ``seconds`` of timed work."""
    done, spent = 0, 0.0
    while spent < seconds:
        cases = make_cases(rng, ruleset, BATCH)
        gc.collect()  # collect the building's garbage outside the timed loop
        # CPU time of this process: the figure is per core, whatever else the machine runs.
        start = time.process_time()
        done += work(cases)
        spent += time.process_time() - start
    return done / spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per figure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="profile the follow checks")
    parser.add_argument(
        "--fixed",
        type=int,
        metavar="N",
        help="run N cases per ruleset once, untimed: a fixed workload for callgrind",
    )
    args = parser.parse_args()
    print(describe_build())
    rng = random.Random(args.seed)
    if args.fixed:
        for ruleset in (CLASSIC, CHANGSHU):
            cases = make_cases(random.Random(args.seed), ruleset, args.fixed)
            follow_decisions(cases)
            whole_tricks(ruleset)(cases)
        return
    if args.profile:
        cases = make_cases(rng, CHANGSHU, BATCH) + make_cases(rng, CLASSIC, BATCH)
        profiler = cProfile.Profile()
        profiler.runcall(follow_decisions, cases)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    print(f"Python {sys.version.split()[0]}, seed {args.seed}, {args.seconds:g} s per figure")
    for ruleset in (CLASSIC, CHANGSHU):
        rate = measure(rng, ruleset, follow_decisions, args.seconds)
        print(f"{ruleset.id:9} follow decisions/s: {rate:10,.0f}")
    for ruleset in (CLASSIC, CHANGSHU):
        rate = measure(rng, ruleset, whole_tricks(ruleset), args.seconds)
        print(f"{ruleset.id:9} whole tricks/s:      {rate:10,.0f}")


if __name__ == "__main__":
    main()
