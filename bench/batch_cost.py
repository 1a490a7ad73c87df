"""Benchmark: what the batch pipeline costs a hand above the audit itself, and 2 cores against 1.

For the same generated corpus (``bench/batch.py``'s, length-delimited .pb files) it prints:

- the in-process audit: CPU per hand of parsing each record and ``audit_game`` on it, in this
  process, nothing else;
- the batch on one core (the whole process tree pinned to one CPU, one worker) into each
  destination: CPU per hand of everything (reading the files, shipping chunks to the worker,
  the audit, the rows, writing the reports and the ledger), from /proc of the process tree;
- the overhead a hand: that CPU less the CPU of the audit itself in the same run (parsing the
  record and ``audit_game``, as ``bench/audit.py`` times the in-process audit), timed around
  each call inside the workers (the bar: at most 0.1 ms). Both sides of the difference
  come from one run, so a loaded machine, which slows everything, shifts it far less than
  comparing two runs would;
- the batch on 1 and on 2 cores, wall clock, and their ratio (the bar: at least 1.8x), with the
  ratio the CPU figures give on free cores (wall clock on a shared machine measures the others).

    python bench/batch_cost.py [--hands 8000] [--unique 2000] [--sinks json,framed]

Run it against the installed package (``pip install .`` compiles engine/ and auditor/): the
script imports ``chaodipi`` from wherever Python finds it and prints which build it measured.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from build_info import describe_build  # bench/, beside this script

import chaodipi.batch.run
from batch import _cpu_seconds, make_corpus  # bench/, beside this script
from chaodipi.auditor import audit_game
from chaodipi.auditor.wire import sole_game
from chaodipi.batch import FramedSink, JsonFolderSink, LocalBackend, Summary, run_batch
from chaodipi.batch.run import Sink, frame_body
from chaodipi.batch.sources import expand, units
from chaodipi.v1 import records_pb2

T = TypeVar("T")
U = TypeVar("U")

SINKS: dict[str, Callable[[Path], Sink]] = {
    "json": lambda out: JsonFolderSink(out),
    "framed": lambda out: FramedSink(out),
}


def audit_alone(corpus: Path) -> tuple[int, float]:
    """Hands audited and CPU seconds: parse each frame and audit its game, in this process, as
    the batch's worker does (the game given as its bytes)."""
    frames = [payload for _, _, payload, _ in units(expand([str(corpus)]))]
    start = time.process_time()
    for frame in frames:
        body = frame_body(frame)
        record = records_pb2.RecordFile.FromString(body)
        audit_game(sole_game(body) or record.game)
    return len(frames), time.process_time() - start


AUDIT_CPU = multiprocessing.Value("d", 0.0)
"""CPU seconds the batch's workers spent parsing records and in ``audit_game`` (the in-process
audit of a record, as ``bench/audit.py`` times it); forked workers share it."""

_parse = chaodipi.batch.run._parse


def _timed(fn: Callable[[T], U]) -> Callable[[T], U]:
    def timed(arg: T) -> U:
        start = time.thread_time()
        out = fn(arg)
        spent = time.thread_time() - start
        with AUDIT_CPU.get_lock():
            AUDIT_CPU.value += spent
        return out

    return timed


def batch_run(corpus: Path, out: Path, sink: str, cores: int) -> tuple[Summary, float, float]:
    """The batch pinned to ``cores`` CPUs with as many workers: its summary, its CPU seconds
    (this process and its workers) and the CPU seconds of its audits alone."""
    shutil.rmtree(out, ignore_errors=True)
    every = os.sched_getaffinity(0)
    os.sched_setaffinity(0, sorted(every)[:cores])  # the workers inherit it
    AUDIT_CPU.value = 0.0
    try:
        backend = LocalBackend(cores)  # forks: the workers run the timed audit_game
        cpu = _cpu_seconds()
        try:
            summary = run_batch([str(corpus)], SINKS[sink](out), backend)
            cpu = _cpu_seconds() - cpu
        finally:
            backend.close()
    finally:
        os.sched_setaffinity(0, every)
    return summary, cpu, AUDIT_CPU.value


def main() -> None:
    # Before the workers fork, so they run the timed versions.
    chaodipi.batch.run.audit_game = _timed(audit_game)  # type: ignore[assignment]
    chaodipi.batch.run._parse = _timed(_parse)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=8000)
    parser.add_argument("--unique", type=int, default=2000)
    parser.add_argument("--sinks", default="json,framed", help=f"of {', '.join(SINKS)}")
    parser.add_argument("--corpus", type=Path, help="corpus folder (default: in the temp dir)")
    args = parser.parse_args()
    print(describe_build())
    corpus = args.corpus or Path(tempfile.gettempdir()) / f"chaodipi-corpus-{args.hands}"
    make_corpus(corpus, args.hands, args.unique)
    hands, cpu = audit_alone(corpus)
    alone = cpu / hands
    print(f"audit alone, in process:  {alone * 1e3:.3f} ms CPU/hand ({hands / cpu:,.0f} hands/s)")
    scratch = Path(tempfile.mkdtemp(prefix="chaodipi-batch-cost-"))
    try:
        for sink in (s for s in args.sinks.split(",") if s):
            summary, cpu, audits = batch_run(corpus, scratch / sink, sink, 1)
            hands = summary.new_hands
            print(
                f"batch, 1 core, {sink:>6}:   {cpu / hands * 1e3:.3f} ms CPU/hand, of which "
                f"parse + audit {audits / hands * 1e3:.3f}: overhead "
                f"{(cpu - audits) / hands * 1e3:.3f} ms/hand above the audit"
            )
        sink = args.sinks.split(",")[-1]
        one, cpu_one, _ = batch_run(corpus, scratch / "one", sink, 1)
        two, cpu_two, _ = batch_run(corpus, scratch / "two", sink, 2)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        f"batch ({sink}), wall: 1 core {one.hands_per_second:,.0f} hands/s, 2 cores "
        f"{two.hands_per_second:,.0f} hands/s: {two.hands_per_second / one.hands_per_second:.2f}x "
        f"measured (the runs got {cpu_one / one.elapsed:.2f} and {cpu_two / two.elapsed:.2f} "
        f"CPUs); on free cores from CPU per hand: "
        f"{2 * (cpu_one / one.new_hands) / (cpu_two / two.new_hands):.2f}x"
    )


if __name__ == "__main__":
    main()
