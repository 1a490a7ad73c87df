"""Worst case: a hill climb for the slowest records within the limits, per ruleset.

A record is grown from a genome: a deal that hands each seat runs of neighbouring cards with
every copy (long tractors and many sets), a level and trump, and for every trick how the
leader leads (the whole of a long suit as a throw, its sets and tractors, one card, half a
suit) and how each seat follows (the engine's legal play, a random pick of the led suit, all
trumps). A failed throw led as it stands is answered as the whole throw, so the follow,
throw and winner checks all see the largest plays a hand allows. The climb mutates the
slowest genome found and keeps a child that audits slower; each figure is the least CPU
time (``time.process_time``) of three cold audits (the engine's caches emptied).

Issue 13's three hostile records are measured too: a one-trick ``classic`` hand of a
28-card throw answered by one card repeated, a ``changshu`` hand of 45 tricks each leading
45 cards of four kinds, and the override ``{"hand_size": 1, "kitty_size": 158}``.

    python bench/worst.py --seconds 60 --seed 1 [--save tests/fixtures/worst]

``--save`` writes the slowest record found (``worst.txt``) and the three hostile ones as
notation text. Figures taken on a loaded machine are noisy: compare on one machine.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from build_info import describe_build  # bench/, beside this script

from chaodipi.auditor import audit_game
from chaodipi.auditor.generate import fill_claims, generate_hand
from chaodipi.auditor.wire import PROTO_BID_KINDS, PROTO_SUITS, SUIT_TOKENS, tokens
from chaodipi.engine import TRUMP, Bid, Hand, Lead, Table, parse_cards
from chaodipi.engine.cards import RANK_LETTERS, SUIT_LETTERS, kind_of
from chaodipi.engine.follow import clear_caches
from chaodipi.engine.order import trump_context
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.ruleset import Ruleset
from chaodipi.engine.units import _canonical
from chaodipi.importers.notation import format_records
from chaodipi.v1 import records_pb2

LEADS = 4  # whole longest suit, its sets and tractors, one card, half the longest suit
FOLLOWS = 3  # legal, a random pick of the led suit, trumps


@dataclass(frozen=True, slots=True)
class Genome:
    """What a record is grown from (see the module docstring)."""

    seed: int
    block: int  # neighbouring kinds dealt to one seat together, every copy
    copies: int  # copies of each card dealt: the decks', or twice as many (DEAL_INVALID)
    gapped: bool  # the trumps dealt as ``_gapped`` says before the runs
    level: int
    trump: int
    leads: tuple[int, ...]
    follows: tuple[int, ...]


def _random_genome(rng: random.Random, rs: Ruleset) -> Genome:
    return Genome(
        seed=rng.randrange(1 << 30),
        block=rng.randint(1, 6),
        copies=rs.decks * rng.choice((1, 1, 1, 2)),
        gapped=rng.random() < 0.3,
        level=rng.randrange(13),
        trump=rng.randrange(4),
        leads=tuple(rng.randrange(LEADS) for _ in range(rs.hand_size)),
        follows=tuple(rng.randrange(FOLLOWS) for _ in range(3 * rs.hand_size)),
    )


def _mutate(rng: random.Random, genome: Genome) -> Genome:
    roll = rng.random()
    if roll < 0.1:
        return replace(genome, seed=rng.randrange(1 << 30))
    if roll < 0.2:
        return replace(genome, block=rng.randint(1, 6))
    if roll < 0.22:
        return replace(
            genome, copies=genome.copies * 2 if genome.copies <= 3 else genome.copies // 2
        )
    if roll < 0.24:
        return replace(genome, gapped=not genome.gapped)
    if roll < 0.27:
        return replace(genome, level=rng.randrange(13), trump=rng.randrange(4))
    leads, follows = list(genome.leads), list(genome.follows)
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.5:
            leads[rng.randrange(len(leads))] = rng.randrange(LEADS)
        else:
            follows[rng.randrange(len(follows))] = rng.randrange(FOLLOWS)
    return replace(genome, leads=tuple(leads), follows=tuple(follows))


def _deal(rs: Ruleset, genome: Genome) -> tuple[list[list[int]], list[int]]:
    """Four hands and the kitty: ``_gapped`` trumps first when asked, then runs of ``block``
    neighbouring kinds (every copy) in turn."""
    copies = genome.copies
    rng = random.Random(genome.seed)
    kinds = list(range(54))
    chunks = [kinds[i : i + genome.block] for i in range(0, 54, genome.block)]
    rng.shuffle(chunks)
    cards = [k for chunk in chunks for k in chunk for _ in range(copies)]
    hands: list[list[int]] = [[], [], [], []]
    if genome.gapped:
        for seat, chosen in enumerate(_gapped(rs, genome)):
            for k in chosen[: rs.hand_size]:
                if k in cards:
                    cards.remove(k)
                    hands[seat].append(k)
    seat = dealt = 0
    for k in cards:
        for _ in range(4):
            if len(hands[seat]) < rs.hand_size:
                break
            seat = (seat + 1) % 4
        else:
            break  # every hand full: the kitty comes next
        hands[seat].append(k)
        dealt += 1
        if len(hands[seat]) % (genome.block * copies) == 0:
            seat = (seat + 1) % 4
    return hands, cards[dealt : dealt + rs.kitty_size]


def _gapped(rs: Ruleset, genome: Genome) -> list[list[int]]:
    """Seat 0 pairs of two trump steps in three (short tractors, one step apart), the others
    pairs of every trump step: followers with many tractors to pick among (copies allowing)."""
    ctx = trump_context(rs, genome.level, genome.trump)
    steps = [step[0] for step in ctx.steps[TRUMP]]
    width = min(rs.decks, 2)
    leader = [k for i, k in enumerate(steps) if i % 3 != 2 for _ in range(width)]
    others = [k for k in steps for _ in range(width)]
    return [leader, others, others, others]


def _lead(table: Table, hand: Hand, mode: int) -> list[int]:
    ctx = table.context
    by_suit: dict[int, list[int]] = {}
    for k in hand:
        by_suit.setdefault(ctx.suit[k], []).append(k)
    longest = max(by_suit.values(), key=len)
    if mode == 0:
        return longest
    if mode == 1:
        sets = [k for k in longest if longest.count(k) >= 2]
        return sets or longest[:1]
    if mode == 2:
        return table.order(list(hand))[:1]
    return longest[: max(1, len(longest) // 2)]


def _follow(
    table: Table, rng: random.Random, hand: Hand, lead: list[int], answered: Lead | None, mode: int
) -> list[int]:
    ctx = table.context
    size = len(lead)
    if mode == 1 or answered is None:
        led = [k for k in hand if ctx.suit[k] == ctx.suit[lead[0]]]
        if len(led) >= size:
            return rng.sample(led, size)
    if mode == 2:
        trumps = [k for k in hand if ctx.is_trump[k]]
        if len(trumps) >= size:
            return sorted(trumps, key=lambda k: -trumps.count(k))[:size]
    if answered is None:  # cards no deck holds were led: any cards of the size
        return list(hand)[:size]
    return list(table.legal_follow(hand, answered))


def grow(rs: Ruleset, genome: Genome) -> records_pb2.GameRecord:
    """The record a genome makes: a later hand dealt by seat 0, a declaration, every trick."""
    hands, kitty = _deal(rs, genome)
    level, suit = RANK_LETTERS[genome.level], SUIT_LETTERS[genome.trump]
    declared = kind_of(genome.trump, genome.level)
    bidder = next((s for s in range(4) if declared in hands[s]), None)
    if bidder is None:  # in the kitty: trade it for a card of seat 1
        if declared in kitty:
            kitty[kitty.index(declared)] = hands[1][0]
        hands[1][0], bidder = declared, 1
    record = records_pb2.GameRecord(record_id=f"worst-{rs.id}-{genome.seed}", ruleset=rs.id)
    for seat in range(4):
        record.players.add(id=f"p{seat}", display_name=f"Player {seat}")
    context = record.context
    context.hand_number, context.first_hand, context.dealer = 2, False, 0
    context.team0_level = context.team1_level = level
    for hand in hands:
        record.dealt_hands.hands.add(cards=tokens(hand))
    record.dealt_hands.kitty.extend(tokens(kitty))
    bid = Bid.parse(bidder, "declare", f"{suit}{level}")
    event = record.bids.add(seat=bidder, kind=PROTO_BID_KINDS[bid.kind], cards=tokens(bid.cards))
    if bid.names_trump:
        event.trump_chosen = PROTO_SUITS[bid.trump_choice]
    record.kitty_exchanges.add(seat=0, picked_up=tokens(kitty), buried=tokens(kitty))
    table = Table(rs, level, suit)
    held = [Hand(hand) for hand in hands]
    rng = random.Random(genome.seed)
    leader, t = 0, 0
    while len(held[leader]) and t < rs.hand_size:
        lead = _lead(table, held[leader], genome.leads[t])
        trick = record.tricks.add(leader=leader)
        trick.plays.add(seat=leader, cards=tokens(lead))
        held[leader].remove(lead)
        possible = table.check_lead(lead).code != "CARDS_IMPOSSIBLE"
        answered = table.lead(lead) if possible else None
        plays = [lead]
        for offset in (1, 2, 3):
            seat = (leader + offset) % 4
            mode = genome.follows[3 * t + offset - 1]
            play = _follow(table, rng, held[seat], lead, answered, mode)
            held[seat].remove(play)
            trick.plays.add(seat=seat, cards=tokens(play))
            plays.append(play)
        if answered is not None:
            leader = (leader + table.winner(answered, plays[1:])) % 4
        t += 1
    fill_claims(record)
    return record


def hostile_throw() -> records_pb2.GameRecord:
    """Issue 13 (a): one ``classic`` trick, a 28-card throw answered by one card repeated."""
    record = generate_hand("classic", 1)
    del record.tricks[1:]
    trick = record.tricks[0]
    trump = record.claim.trump
    table = Table(PRESETS["classic"], trump.level, SUIT_TOKENS[trump.suit])
    # Triples, pairs and singles in turn, step by step up the trumps.
    steps = table.context.steps[TRUMP]
    throw: list[int] = []
    for i, step in enumerate(steps):
        throw += [step[0]] * (3 - i % 3)
    del trick.plays[:]
    trick.plays.add(seat=trick.leader, cards=tokens(throw[:28]))
    for offset in (1, 2, 3):
        trick.plays.add(seat=(trick.leader + offset) % 4, cards=tokens(parse_cards("SA") * 28))
    return record


def hostile_changshu() -> records_pb2.GameRecord:
    """Issue 13 (b): ``changshu``, 45 tricks each leading 45 cards of four kinds."""
    record = generate_hand("changshu", 1)
    leader = record.tricks[0].leader  # no play can win: the leader leads every trick
    del record.tricks[:]
    lead = parse_cards("C7 C8 C9 CT") * 11 + parse_cards("C7")
    for _ in range(45):
        trick = record.tricks.add(leader=leader)
        for offset in range(4):
            trick.plays.add(seat=(leader + offset) % 4, cards=tokens(lead))
    return record


def hostile_override() -> records_pb2.GameRecord:
    """Issue 13 (c): ``{"hand_size": 1, "kitty_size": 158}`` and a 90-card lead."""
    record = generate_hand("changshu", 2)
    record.ruleset_overrides_json = json.dumps({"hand_size": 1, "kitty_size": 158})
    lead = parse_cards("D3 D4 D5 D7 D8 D9 DT DJ DQ DK DA") * 8 + parse_cards("C3 C4")
    record.tricks[0].plays[0].cards[:] = tokens(lead[:90])
    return record


HOSTILE: dict[str, Callable[[], records_pb2.GameRecord]] = {
    "hostile-throw": hostile_throw,
    "hostile-changshu": hostile_changshu,
    "hostile-override": hostile_override,
}


def cost(record: records_pb2.GameRecord, repeat: int = 3) -> float:
    """The least CPU seconds of ``repeat`` cold audits of ``record``."""
    best = float("inf")
    for _ in range(repeat):
        clear_caches()
        _canonical.cache_clear()
        start = time.process_time()
        audit_game(record)
        best = min(best, time.process_time() - start)
    return best


def climb(rs: Ruleset, rng: random.Random, seconds: float) -> tuple[float, records_pb2.GameRecord]:
    """The slowest record found in about ``seconds`` of climbing, and its cost."""
    genome = _random_genome(rng, rs)
    record = grow(rs, genome)
    worst = cost(record)
    stop = time.process_time() + seconds
    restarts = 0
    while time.process_time() < stop:
        # A fresh genome now and then, so the climb is not stuck on one deal.
        fresh = restarts % 8 == 7
        child = _random_genome(rng, rs) if fresh else _mutate(rng, genome)
        restarts += 1
        grown = grow(rs, child)
        spent = cost(grown)
        if spent > worst:
            genome, record, worst = child, grown, spent
    return worst, record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="climb seconds per ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", type=Path, help="folder for the worst and hostile records")
    args = parser.parse_args()
    print(describe_build())
    rng = random.Random(args.seed)
    print(f"seed {args.seed}, {args.seconds:g} s per ruleset")
    overall: tuple[float, records_pb2.GameRecord] | None = None
    for rs in PRESETS.values():
        worst, record = climb(rs, rng, args.seconds)
        print(f"{rs.id:12} worst {worst * 1000:7.1f} ms/hand ({len(record.tricks)} tricks)")
        if overall is None or worst > overall[0]:
            overall = (worst, record)
    hostile = {name: make() for name, make in HOSTILE.items()}
    for name, record in hostile.items():
        print(f"{name:17}  {cost(record) * 1000:7.1f} ms/hand")
    if args.save and overall is not None:
        args.save.mkdir(parents=True, exist_ok=True)
        saved: Sequence[tuple[str, records_pb2.GameRecord]] = [
            ("worst", overall[1]),
            *hostile.items(),
        ]
        for name, record in saved:
            text = format_records([records_pb2.RecordFile(game=record)])
            (args.save / f"{name}.txt").write_text(text, encoding="utf-8")
        print(f"saved {', '.join(name for name, _ in saved)} to {args.save}")


if __name__ == "__main__":
    main()
