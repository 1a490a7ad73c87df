"""Benchmark: end-to-end audit of generated two-deck hands on one core.

Prints hands per second for the audit of each hand's encoding, replay and report included
(``audit_game`` given the bytes, as a caller holding them gives them; the bars: 3,500/s pure
Python, 7,000/s compiled), and the audit's cost as a multiple of the protobuf parse of the
same hands into ``GameRecord`` messages (which the audit given bytes does not make). Each
round audits other hands (seeds counted on from the last round's), as a corpus would: no hand
is audited twice.

    python bench/audit.py [--hands 400] [--ruleset classic] [--rounds 3]

It measures the ``chaodipi`` this Python has installed, and says which build it is: pure
Python from ``pip install -e .``, mypyc-compiled from a wheel (``pip install .``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from build_info import describe_build  # bench/, beside this script
from timing import best_cpu

from chaodipi.auditor import audit_game
from chaodipi.auditor.audit import report_of
from chaodipi.auditor.bidding import replay_bidding
from chaodipi.auditor.deal import check_deal
from chaodipi.auditor.generate import generate_hand
from chaodipi.auditor.reading import ReadHand, read_game
from chaodipi.auditor.scoring import score_hand
from chaodipi.auditor.state import HandState
from chaodipi.auditor.tricks import play_tricks
from chaodipi.engine import Table
from chaodipi.v1 import records_pb2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parts", action="store_true", help="also time each stage alone")
    args = parser.parse_args()
    # Each round audits hands of its own: a hand audited again finds the engine's caches warm
    # with its own leads and throws (about 6 % fewer instructions), as a corpus seldom does.
    rounds = [
        [generate_hand(args.ruleset, seed).SerializeToString() for seed in range(first, last)]
        for first, last in ((r * args.hands, (r + 1) * args.hands) for r in range(args.rounds))
    ]
    blobs = rounds[0]
    size = sum(map(len, blobs)) / len(blobs)
    parsed, audited = iter(rounds), iter(rounds)

    def parse() -> None:
        for blob in next(parsed):
            records_pb2.GameRecord.FromString(blob)

    def audit() -> None:
        for blob in next(audited):
            audit_game(blob).SerializeToString()

    parse_s = best_cpu(args.rounds, parse)
    audit_s = best_cpu(args.rounds, audit)
    n = len(blobs)
    print(describe_build())
    print(
        f"ruleset {args.ruleset}: {n} hands a round, {size:.0f} bytes each, CPU time, "
        f"best of {args.rounds} rounds of other hands"
    )
    print(f"parse only:     {n / parse_s:12,.0f} hands/s ({parse_s / n * 1e6:7.1f} us/hand)")
    print(f"audit + report: {n / audit_s:12,.0f} hands/s ({audit_s / n * 1e6:7.1f} us/hand)")
    print(f"audit cost as a multiple of the parse: {audit_s / parse_s:.1f}x")
    if args.parts:
        _parts(blobs, args.rounds)


def _parts(blobs: list[bytes], rounds: int) -> None:
    """CPU time per hand of each stage: reading the encoding, deal and bidding, tricks,
    scoring (every round on the same hands, so that the stages are told apart by difference)."""
    stages = ("read", "bid", "play", "score")

    def upto(stop: str) -> Callable[[], None]:
        def work() -> None:
            for blob in blobs:
                read = read_game(blob)
                assert isinstance(read, ReadHand)
                if stop == "read":
                    continue
                replay = HandState(read)
                check_deal(replay)
                outcome = replay_bidding(replay)
                assert outcome is not None
                if stop == "bid":
                    continue
                replay.table = Table(replay.ruleset, outcome.level, outcome.trump)
                replay.dealer = outcome.dealer
                play_tricks(replay)
                if stop == "play":
                    continue
                score_hand(replay)
                report_of(replay).SerializeToString()

        return work

    before = 0.0
    for stage in stages:
        total = best_cpu(rounds, upto(stage))
        print(f"  {stage:6s} {(total - before) / len(blobs) * 1e6:8.1f} us/hand")
        before = total


if __name__ == "__main__":
    main()
