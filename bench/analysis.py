"""Endgame analysis benchmark: the window k that fits 1 s of CPU per hand, per ruleset.

For each ruleset and k = 1, 2, …, analyse the last k tricks of ``--hands`` generated hands
(``auditor.analysis.analyse_game``: the replay, the solver, every play's cost and line) and
time each hand in CPU seconds (``time.process_time``). The window is the largest k whose
95th percentile is at most ``--limit`` seconds. A hand that hits the node budget is listed as
not analysed and counts as over the limit, whatever time it took: the budget stops a search at
about the limit's time, so counting that time would let a hand the analysis gave up on pass
for one analysed in time. Prints, per k: the 95th percentile (``budget`` when it falls on such
a hand) and the slowest hand, positions searched per CPU second, and the node counts (positions
expanded per hand: deterministic, whatever else loads the machine). ``--every`` goes on
past the limit up to ``--max-k``, for the node counts of larger windows.

    python bench/analysis.py --hands 40 --seed 1
    python bench/analysis.py --hands 40 --seed 1 --min-k 4 --max-k 6 --every
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import sys
import time

from build_info import describe_build  # bench/, beside this script

from chaodipi.auditor.analysis import BUDGET, analyse_game
from chaodipi.auditor.generate import generate_hand
from chaodipi.v1 import records_pb2

RULESETS = ("classic", "shuangsheng", "anhui", "changshu")


def _percentile(values: list[float], q: float) -> float:
    # The nearest-rank percentile: the smallest value at or above a share q of the values.
    ordered = sorted(values)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


def measure(records: list[records_pb2.GameRecord], k: int, budget: int) -> dict[str, float]:
    """One window over every record: CPU seconds and nodes per hand; the 95th percentile of the
    seconds counts a hand not analysed as infinitely slow."""
    seconds: list[float] = []
    analysed: list[float] = []
    nodes: list[int] = []
    skipped = 0
    for record in records:
        gc.collect()
        start = time.process_time()
        analysis = analyse_game(record, window=k, budget=budget)
        seconds.append(time.process_time() - start)
        analysed.append(seconds[-1] if analysis.analysed else math.inf)
        nodes.append(analysis.nodes)
        skipped += not analysis.analysed
    return {
        "p95": _percentile(analysed, 0.95),
        "max": max(seconds),
        "rate": sum(nodes) / max(sum(seconds), 1e-9),
        "nodes_p50": statistics.median(nodes),
        "nodes_p95": _percentile([float(n) for n in nodes], 0.95),
        "nodes_max": max(nodes),
        "not_analysed": skipped,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=40, help="generated hands per ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=float, default=1.0, help="CPU seconds at the 95th pct")
    parser.add_argument("--budget", type=int, default=BUDGET, help="node budget per hand")
    parser.add_argument("--min-k", type=int, default=1)
    parser.add_argument("--max-k", type=int, default=10)
    parser.add_argument("--every", action="store_true", help="go on past the limit")
    parser.add_argument("--rulesets", default=",".join(RULESETS))
    args = parser.parse_args(argv)
    print(describe_build())
    rng = random.Random(args.seed)
    names = args.rulesets.split(",")
    # Hands are drawn for RULESETS in their order whichever are measured (then for any other
    # named), so that a run of one ruleset measures the hands the full run measures for it.
    seeds = {
        ruleset: [rng.randrange(1 << 30) for _ in range(args.hands)]
        for ruleset in [*RULESETS, *(name for name in names if name not in RULESETS)]
    }
    print(f"{args.hands} hands per ruleset, node budget {args.budget}, limit {args.limit} s")
    print(
        f"{'ruleset':<12} {'k':>2} {'p95 s':>7} {'max s':>7} {'pos/s':>8} "
        f"{'nodes p50':>9} {'p95':>8} {'max':>8} {'not analysed':>12}"
    )
    for ruleset in names:
        records = [generate_hand(ruleset, seed=seed) for seed in seeds[ruleset]]
        window = 0
        for k in range(args.min_k, args.max_k + 1):
            row = measure(records, k, args.budget)
            p95 = "budget" if math.isinf(row["p95"]) else f"{row['p95']:.3f}"
            print(
                f"{ruleset:<12} {k:>2} {p95:>7} {row['max']:>7.3f} {row['rate']:>8.0f} "
                f"{row['nodes_p50']:>9.0f} {row['nodes_p95']:>8.0f} {row['nodes_max']:>8.0f} "
                f"{row['not_analysed']:>12.0f}",
                flush=True,
            )
            if row["p95"] > args.limit and not args.every:
                break
            if row["p95"] <= args.limit and window == k - 1:
                window = k
        if args.min_k == 1:
            print(f"{ruleset}: window k = {window} (95th percentile ≤ {args.limit} s CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
