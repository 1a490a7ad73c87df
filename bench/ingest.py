"""Ingest throughput and memory: stream generated hands into a server over gRPC; print hands per
second and the server's peak memory.

Starts its own server (``python -m chaodipi.cli serve``) on a fresh SQLite file, or on the
database given with ``--database-url``, unless ``--server HOST:PORT`` points at a running one.

    python bench/ingest.py                         # SQLite, 3000 hands
    python bench/ingest.py --stream 100000         # one stream of 100,000 hands: peak RSS
    python bench/ingest.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

Hands are generated once (``--distinct`` of them, ~7 ms each) and repeated with new record ids,
made as they are sent, so every uploaded hand has its own content hash and is audited and stored
in full, and the client holds only the summaries' counts. Peak memory is the kernel's high-water
mark of resident memory (``VmHWM``) of the server's main process and of its largest audit
worker, read when the stream is done (Linux; only for a server started here).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from build_info import describe_build  # bench/, beside this script
from server_process import start_server  # bench/, beside this script

from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient
from chaodipi.v1 import records_pb2, service_pb2

RULESETS = ("classic", "shuangsheng", "anhui", "changshu")


def _requests(
    base: list[records_pb2.GameRecord], start: int, count: int, run: str
) -> Iterator[service_pb2.UploadRecordsRequest]:
    for i in range(start, start + count):
        hand = records_pb2.GameRecord()
        hand.CopyFrom(base[i % len(base)])
        hand.record_id = f"bench-{run}-{i}"
        yield service_pb2.UploadRecordsRequest(game=hand)


def _peak_mib(pid: int) -> float:
    """The process's peak resident memory (VmHWM) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise ValueError(f"no VmHWM for process {pid}")


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(child) for child in (task / "children").read_text().split()]
    return out


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000, help="hands to upload")
    parser.add_argument("--stream", type=int, metavar="N", help="upload N hands in one stream")
    parser.add_argument("--distinct", type=int, default=200, help="distinct deals generated")
    parser.add_argument("--streams", type=int, default=1, help="UploadRecords calls the hands span")
    parser.add_argument("--server", help="HOST:PORT of a running server")
    parser.add_argument("--database-url", help="database for the server started here")
    parser.add_argument("--workers", type=int, default=2, help="audit worker processes")
    parser.add_argument("--api-key", help="API key for --server")
    args = parser.parse_args()
    print(describe_build())
    total = args.stream or args.hands
    streams = 1 if args.stream else args.streams

    run = f"{time.time_ns():x}"
    base = [generate_hand(RULESETS[i % 4], 10_000 + i) for i in range(min(args.distinct, total))]
    with tempfile.TemporaryDirectory() as home:
        proc = None
        target = args.server
        if target is None:
            proc, target = start_server(args.database_url, args.workers, home)
        try:
            with AuditClient(target, api_key=args.api_key, upload_timeout=None) as client:
                per_stream = -(-total // streams)
                statuses: Counter[int] = Counter()
                start = time.perf_counter()
                for first in range(0, total, per_stream):
                    count = min(per_stream, total - first)
                    for summary in client.upload_stream(_requests(base, first, count, run)):
                        statuses[summary.status] += 1
                elapsed = time.perf_counter() - start
            peaks = None
            if proc is not None:
                workers = [_peak_mib(child) for child in _children(proc.pid)]
                peaks = (_peak_mib(proc.pid), max(workers, default=0.0))
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(60)
    stored = statuses[service_pb2.RecordSummary.STATUS_STORED]
    print(f"database: {args.database_url or ('server ' + target if args.server else 'sqlite')}")
    print(
        f"hands sent: {total}, stored: {stored}, other: {total - stored}, streams: {streams}, "
        f"audit workers: {args.workers}"
    )
    print(f"elapsed: {elapsed:.2f} s, {stored / elapsed:.0f} hands/s stored and audited")
    if peaks is not None:
        print(
            f"peak RSS (VmHWM): server {peaks[0]:.0f} MiB, largest audit worker {peaks[1]:.0f} MiB"
        )


if __name__ == "__main__":
    main()
