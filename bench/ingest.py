"""Ingest throughput: stream generated hands into a server over gRPC; print hands per second.

Starts its own server (``python -m service serve``) on a fresh SQLite file, or on the database
given with ``--database-url``, unless ``--server HOST:PORT`` points at a running one.

    python bench/ingest.py                         # SQLite, 3000 hands
    python bench/ingest.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

Hands are generated once (``--distinct`` of them, ~7 ms each) and repeated with new record ids,
so every uploaded hand has its own content hash and is audited and stored in full.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from server_process import start_server  # bench/, beside this script

from chaodipi.auditor.generate import generate_hand
from chaodipi.service.client import AuditClient
from chaodipi.v1 import records_pb2, service_pb2

RULESETS = ("classic", "shuangsheng", "anhui", "changshu")


def _hands(total: int, distinct: int, run: str) -> list[service_pb2.UploadRequest]:
    base = [generate_hand(RULESETS[i % 4], 10_000 + i) for i in range(distinct)]
    requests = []
    for i in range(total):
        hand = records_pb2.GameRecord()
        hand.CopyFrom(base[i % distinct])
        hand.record_id = f"bench-{run}-{i}"
        requests.append(service_pb2.UploadRequest(game=hand))
    return requests


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000, help="hands to upload")
    parser.add_argument("--distinct", type=int, default=200, help="distinct deals generated")
    parser.add_argument("--streams", type=int, default=1, help="Upload calls the hands span")
    parser.add_argument("--server", help="HOST:PORT of a running server")
    parser.add_argument("--database-url", help="database for the server started here")
    parser.add_argument("--workers", type=int, default=2, help="audit worker processes")
    parser.add_argument("--api-key", help="API key for --server")
    args = parser.parse_args()

    run = f"{time.time_ns():x}"
    requests = _hands(args.hands, min(args.distinct, args.hands), run)
    with tempfile.TemporaryDirectory() as home:
        proc = None
        target = args.server
        if target is None:
            proc, target = start_server(args.database_url, args.workers, home)
        try:
            with AuditClient(target, api_key=args.api_key, timeout=600) as client:
                per_stream = -(-len(requests) // args.streams)
                start = time.perf_counter()
                summaries: list[service_pb2.RecordSummary] = []
                for i in range(0, len(requests), per_stream):
                    summaries += client.upload_stream(iter(requests[i : i + per_stream])).results
                elapsed = time.perf_counter() - start
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(30)
    stored = sum(1 for s in summaries if s.status == service_pb2.RecordSummary.STATUS_STORED)
    print(f"database: {args.database_url or ('server ' + target if args.server else 'sqlite')}")
    print(
        f"hands sent: {len(requests)}, stored: {stored}, streams: {args.streams}, "
        f"audit workers: {args.workers}"
    )
    print(f"elapsed: {elapsed:.2f} s, {stored / elapsed:.0f} hands/s stored and audited")


if __name__ == "__main__":
    main()
