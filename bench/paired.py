"""Benchmark: this build against a base build, run in turn on one machine, as a ratio.

A hands/s figure belongs to the machine it was taken on: the same code has audited 2,100 and
4,100 hands/s on hosts of one class, and on one host its speed drifts by a fifth from minute
to minute. A bar set as hands/s on the machine where it was written is read against the build
that machine measured: this build's bench and the base's ``bench/audit.py`` run in turn
(A B A B …), so a drift reaches both alike, and the ratio is taken pair by pair. The median
ratio times the base's figure on the bar's machine is this build's figure there.

    git worktree add /tmp/base 00e0f61     # the build issue 18's figures were measured on
    python -m venv /tmp/base-venv && /tmp/base-venv/bin/pip install -e /tmp/base
    python bench/paired.py --base-python /tmp/base-venv/bin/python --base-bench /tmp/base/bench \\
        --base-rate 1900 [--ours "cli_audit.py --hands 2000 --json"] [--pairs 5]

``--ours`` and ``--base`` name each side's bench and its arguments (``audit.py --hands 400``
unless given). For the compiled builds, run this script with the Python of a venv holding
this build's wheel, and give ``--base-python`` one holding the base's. The
figure read is the first ``… hands/s`` on a line ending ``audit + report:`` (an older
``audit.py`` says ``parse + audit + report:``: its audit took a parsed message) or ``FILE:``
(``cli_audit.py``'s command).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

from build_info import describe_build  # bench/, beside this script

_RATE = re.compile(r"(?:audit \+ report|FILE):\s+([\d,]+) hands/s")
"""The first figure a bench prints: ``audit.py``'s audit, ``cli_audit.py``'s command."""


def _rate(python: str, bench: Path, command: list[str]) -> float:
    """The hands/s that a bench script of one build prints, run by that build's Python."""
    out = subprocess.run(
        [python, *command], cwd=bench, capture_output=True, text=True, check=True
    ).stdout
    found = _RATE.search(out)
    if found is None:
        raise SystemExit(f"no hands/s figure in what {bench / command[0]} printed")
    return float(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-python", required=True, help="the Python of the base build")
    parser.add_argument("--base-bench", required=True, type=Path, help="the base build's bench/")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument(
        "--ours",
        default="audit.py --hands 400",
        help="this build's bench and its arguments (or: 'cli_audit.py --hands 2000 --json')",
    )
    parser.add_argument(
        "--base",
        default="audit.py --hands 400",
        help="the base's bench and its arguments (an older one measures its installed, compiled"
        " build with: 'audit.py --hands 400 --installed')",
    )
    parser.add_argument(
        "--base-rate", type=float, help="the base's hands/s on the bar's machine, to scale by"
    )
    args = parser.parse_args()
    here = Path(__file__).resolve().parent
    print(describe_build())
    print(f"base: {args.base_python} running {args.base_bench}/{args.base}")
    ratios = []
    for pair in range(1, args.pairs + 1):
        ours = _rate(sys.executable, here, args.ours.split())
        base = _rate(args.base_python, args.base_bench, args.base.split())
        ratios.append(ours / base)
        print(f"pair {pair}: this build {ours:8,.0f} hands/s, base {base:8,.0f}: {ours / base:.2f}")
    median, low, high = statistics.median(ratios), min(ratios), max(ratios)
    print(f"this build / base: median {median:.2f} (min {low:.2f}, max {high:.2f})")
    if args.base_rate is not None:
        print(
            f"where the base audits {args.base_rate:,.0f} hands/s, this build audits "
            f"{median * args.base_rate:,.0f} (min {low * args.base_rate:,.0f})"
        )


if __name__ == "__main__":
    main()
