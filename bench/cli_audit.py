"""Benchmark: ``chaodipi audit FILE`` on a file of generated hands, against the in-process audit.

Writes 2,000 generated two-deck hands (a ``.pb`` stream, or ``--format`` json/text) to a
temporary file, then times, in this process and on one core (CPU time, best of ``--rounds``):

- the command itself, ``chaodipi audit FILE`` (with ``--json``: ``chaodipi audit --json
  FILE``) run through the CLI app in-process with its output sent to ``/dev/null``
  (start-up excluded: the CLI is imported before the clock starts), split into its parts:
  reading the file as the command does (``importers.stream(…).entries(…)``: format detection,
  framing, unknown-field and token checks, each record parsed, or a game a clean frame holds
  alone given as its bytes, its draw order, bids, kitty exchanges and tricks left to the
  audit's read to vouch for,
  and dropped), auditing every record as the command does, printing
  the reports as the command prints them (reports fresh from a parse, to ``/dev/null``), and by
  difference the rest (the command's own loop);
- the in-process audit of the same records (``audit_game`` of each record's bytes +
  ``SerializeToString``, as ``bench/audit.py`` measures it).

    python bench/cli_audit.py [--hands 2000] [--format pb] [--rounds 3] [--json]

It measures the ``chaodipi`` this Python has installed, and says which build it is.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path

from build_info import describe_build  # bench/, beside this script
from timing import best_cpu

from chaodipi import importers
from chaodipi.auditor import audit_encoded_game, audit_game
from chaodipi.auditor.generate import generate_hand
from chaodipi.auditor.jsondict import message_json
from chaodipi.cli.main import _JsonArray, _ReportPrinter, app
from chaodipi.v1 import audit_pb2, records_pb2

SUFFIXES = {"pb": ".pb", "json": ".jsonl", "text": ".txt"}


def as_given(game: bytes) -> tuple[bytes, bool]:
    """A game's encoding as it is, vouched for: the reading alone (the command's read is the
    audit, timed apart)."""
    return game, True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--format", choices=sorted(SUFFIXES), default="pb")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="time chaodipi audit --json FILE")
    args = parser.parse_args()
    records = [
        records_pb2.RecordFile(game=generate_hand(args.ruleset, seed)) for seed in range(args.hands)
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"hands{SUFFIXES[args.format]}"
        importers.write(records, path, args.format)
        size = path.stat().st_size
        # What the command audits: a pb stream's clean games as their bytes, else records.
        entries = list(importers.stream(path).entries(as_given))
        blobs = [entry.game.SerializeToString() for entry in importers.load(path).records]

        def command() -> None:
            with open("/dev/null", "w") as null, contextlib.redirect_stdout(null):
                # standalone_mode=False: the exit code is returned, not raised as SystemExit
                app(["audit", *(["--json"] if args.json else []), str(path)], standalone_mode=False)

        def load() -> None:
            for _ in importers.stream(path).entries(as_given):
                pass

        def audit_loaded() -> None:
            for entry in entries:
                if isinstance(entry, bytes):
                    audit_encoded_game(entry)
                else:
                    audit_game(entry.game)

        def in_process() -> None:
            for blob in blobs:
                audit_game(blob).SerializeToString()

        # Reports fresh from a parse for each round: a report's fields are read once, as the
        # command reads a report fresh from its audit.
        encoded = [audit_game(blob).SerializeToString() for blob in blobs]
        fresh = iter(
            [[audit_pb2.AuditReport.FromString(e) for e in encoded] for _ in range(args.rounds)]
        )

        def print_reports() -> None:
            reports = next(fresh)
            with open("/dev/null", "w") as null, contextlib.redirect_stdout(null):
                if args.json:
                    array = _JsonArray()
                    for report in reports:
                        array.add(message_json(report))
                    array.close()
                else:
                    printer = _ReportPrinter()
                    for report in reports:
                        printer.report(path.name, report)

        command()  # warm: the command's own lazy imports are start-up, not work
        cli_s = best_cpu(args.rounds, command)
        load_s = best_cpu(args.rounds, load)
        audit_s = best_cpu(args.rounds, audit_loaded)
        print_s = best_cpu(args.rounds, print_reports)
        bench_s = best_cpu(args.rounds, in_process)
    n = len(records)
    print(describe_build())
    print(
        f"{n} {args.ruleset} hands, {args.format} file of {size / 1e6:.1f} MB, CPU time, "
        f"best of {args.rounds}, start-up excluded"
    )
    name = "chaodipi audit --json FILE:" if args.json else "chaodipi audit FILE:"
    print(f"{name:28}{n / cli_s:9,.0f} hands/s ({cli_s / n * 1e6:7.1f} us/hand)")
    print(f"  reading the file:         {load_s / n * 1e6:9.1f} us/hand")
    print(f"  auditing:                 {audit_s / n * 1e6:9.1f} us/hand")
    print(f"  printing the reports:     {print_s / n * 1e6:9.1f} us/hand")
    rest = cli_s - load_s - audit_s - print_s
    # By difference of best times taken apart: on a busy machine it can even come out negative.
    print(f"  the rest, by difference:  {rest / n * 1e6:9.1f} us/hand (the command's own loop)")
    rate = f"{n / bench_s:9,.0f} hands/s ({bench_s / n * 1e6:7.1f} us/hand)"
    print(f"in-process audit:           {rate}")
    print(f"the command's rate as a share of the in-process rate: {bench_s / cli_s:.0%}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
