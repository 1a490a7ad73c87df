"""Long fuzz run: damaged records into every importer and the audit, by the hundred thousand.

Runs the targets of ``tests/fuzz/targets.py`` (the same cases and properties as the
Hypothesis tests in ``tests/fuzz``) round robin: case ``i`` of target ``t`` is drawn by
``Case.draw(random.Random(f"{seed}:{i}"))``, so ``--seed S --case I`` reruns one case alone
and prints its traceback. Every failure is printed with that reproducer and the case's
``repr`` (paste it into a test: ``GameCase(...).run()``).

Plain seeded ``random`` rather than Hypothesis: a case is already small (a list of
``(mutator, seed)`` steps), so shrinking gains little, while Hypothesis' per-example
bookkeeping, health checks and example database cost more than many cases themselves and
would tie a failure to a database instead of to two numbers. The mutators are the same
functions either way (``tests/fuzz/mutators.py``).

    python -m tests.fuzz.campaign [--cases 100000] [--seed 0] [--jobs 2] [--target audit-game ...]
    python -m tests.fuzz.campaign --seed 0 --case 1234        # rerun one case with its traceback
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
import traceback
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from tests.fuzz.targets import CASES

TARGETS = {cls.target: cls for cls in CASES}
CHUNK = 250


class CaseTimeout(Exception):
    """A case ran longer than ``--timeout`` seconds."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise CaseTimeout("case took longer than the timeout")


@dataclass
class Failure:
    """One kind of failure (target, exception, where raised) and its first reproducer."""

    count: int
    index: int
    case: str
    error: str


@dataclass
class Tally:
    """What a chunk of cases (or the whole run) found."""

    cases: Counter[str] = field(default_factory=Counter)
    seconds: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    slowest: dict[str, tuple[float, int]] = field(default_factory=dict)
    failures: dict[tuple[str, str, str], Failure] = field(default_factory=dict)

    def add(self, other: Tally) -> None:
        self.cases.update(other.cases)
        for target, took in other.seconds.items():
            self.seconds[target] += took
        for target, (took, index) in other.slowest.items():
            if took > self.slowest.get(target, (0.0, 0))[0]:
                self.slowest[target] = (took, index)
        for key, found in other.failures.items():
            if key in self.failures:
                self.failures[key].count += found.count
            else:
                self.failures[key] = found

    @property
    def failed(self) -> int:
        return sum(f.count for f in self.failures.values())


def draw(seed: int, index: int, targets: list[str]) -> object:
    """Case ``index`` of the run with ``seed``."""
    cls = TARGETS[targets[index % len(targets)]]
    return cls.draw(random.Random(f"{seed}:{index}"))


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    root = str(Path(__file__).resolve().parent.parent) + os.sep
    frame = frames[-1] if frames else None
    return f"{frame.filename.replace(root, '')}:{frame.lineno}" if frame else "?"


def run_chunk(seed: int, start: int, stop: int, targets: list[str], timeout: float) -> Tally:
    """Run cases ``start``..``stop - 1``; a worker's unit of work."""
    tally = Tally()
    signal.signal(signal.SIGALRM, _alarm)
    for index in range(start, stop):
        case = draw(seed, index, targets)
        target = type(case).target  # type: ignore[attr-defined]
        began = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            case.run()  # type: ignore[attr-defined]
        except Exception as exc:  # every escape is a finding of the run
            key = (target, type(exc).__name__, _where(exc))
            message = f"{type(exc).__name__}: {str(exc)[:300]}"
            if key in tally.failures:
                tally.failures[key].count += 1
            else:
                tally.failures[key] = Failure(1, index, repr(case), message)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        took = time.perf_counter() - began
        tally.cases[target] += 1
        tally.seconds[target] += took
        if took > tally.slowest.get(target, (0.0, 0))[0]:
            tally.slowest[target] = (took, index)
    return tally


def _progress(done: int, total: int, failed: int, began: float) -> None:
    elapsed = time.monotonic() - began
    left = elapsed / done * (total - done) if done else 0.0
    print(
        f"\r{done:>9,}/{total:,} cases  {failed:,} failures  {elapsed:6.0f} s elapsed  "
        f"~{left:4.0f} s left",
        end="",
        file=sys.stderr,
        flush=True,
    )


def rerun(seed: int, index: int, targets: list[str]) -> int:
    """Run one case in the foreground, printing it and its traceback."""
    case = draw(seed, index, targets)
    print(f"seed {seed}, case {index}: {case!r}")
    try:
        case.run()  # type: ignore[attr-defined]
    except Exception:
        traceback.print_exc()
        return 1
    print("passed")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000, help="cases in all (default 100000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds a case may take before it counts as hung (default 60)",
    )
    parser.add_argument(
        "--target",
        action="append",
        choices=sorted(TARGETS),
        help="only this target (repeatable; default all)",
    )
    parser.add_argument("--case", type=int, help="rerun this one case index and show it")
    args = parser.parse_args()
    targets = args.target or list(TARGETS)
    if args.case is not None:
        return rerun(args.seed, args.case, targets)
    print(
        f"fuzz: {args.cases:,} cases, seed {args.seed}, {args.jobs} job(s), targets "
        f"{', '.join(targets)}"
    )
    began = time.monotonic()
    total = Tally()
    chunks = [(s, min(s + CHUNK, args.cases)) for s in range(0, args.cases, CHUNK)]
    if args.jobs == 1:
        for start, stop in chunks:
            total.add(run_chunk(args.seed, start, stop, targets, args.timeout))
            _progress(sum(total.cases.values()), args.cases, total.failed, began)
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [
                pool.submit(run_chunk, args.seed, start, stop, targets, args.timeout)
                for start, stop in chunks
            ]
            for future in futures:
                total.add(future.result())
                _progress(sum(total.cases.values()), args.cases, total.failed, began)
    elapsed = time.monotonic() - began
    print(file=sys.stderr)
    print(
        f"{'target':16s} {'cases':>9s} {'failures':>9s} {'mean ms':>8s} {'slowest ms':>11s} (case)"
    )
    for target in targets:
        n = total.cases[target]
        failed = sum(f.count for k, f in total.failures.items() if k[0] == target)
        took, index = total.slowest.get(target, (0.0, 0))
        mean = total.seconds[target] / n * 1000 if n else 0.0
        print(f"{target:16s} {n:9,} {failed:9,} {mean:8.1f} {took * 1000:11.0f} ({index})")
    print(f"{'all':16s} {sum(total.cases.values()):9,} {total.failed:9,}")
    for (target, kind, where), found in sorted(total.failures.items()):
        print(
            f"\nFAIL {target}: {kind} at {where} ({found.count} cases)\n"
            f"  reproduce: python -m tests.fuzz.campaign --seed {args.seed} --case {found.index}"
            + "".join(f" --target {t}" for t in args.target or ())
            + f"\n  {found.error}\n  {found.case}"
        )
    print(
        f"\n{sum(total.cases.values()):,} cases, {total.failed:,} failures, "
        f"{elapsed:.0f} s elapsed ({time.strftime('%Y-%m-%d %H:%M')})"
    )
    return 1 if total.failed else 0


if __name__ == "__main__":
    sys.exit(main())
