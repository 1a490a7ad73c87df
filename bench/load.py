"""Load: concurrent clients stream hands while another client times unary AuditRecord calls.

Starts its own server (``python -m service serve``) on a fresh SQLite file, or on the database
given with ``--database-url``, unless ``--server HOST:PORT`` points at a running one.

    python bench/load.py                           # SQLite, 32 clients x 200 hands
    python bench/load.py --database-url 'postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3Dload'

Every client has a channel (its own TCP connection) and an API key (a tenant) of its own and
streams its hands in one UploadRecords call; all start together. Meanwhile a separate process
calls the unary AuditRecord in a loop, each call timed. With database access (its own server, or
``--database-url``) the bench then counts this run's games: every hand stored exactly once.

Hands are generated once (``--distinct`` of them) and repeated with new record ids, so every
uploaded hand has its own content hash and is audited and stored in full.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event

import grpc
from build_info import describe_build  # bench/, beside this script
from server_process import start_server  # bench/, beside this script
from sqlalchemy import func, select

from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient
from chaodipi.service.db import make_engine, session_factory
from chaodipi.service.keys import create_key
from chaodipi.service.migrate import upgrade
from chaodipi.service.models import Game
from chaodipi.v1 import records_pb2, service_pb2

RULESETS = ("classic", "shuangsheng", "anhui", "changshu")
STORED = service_pb2.RecordSummary.STATUS_STORED


def _client(target: str, key: str | None) -> AuditClient:
    # A channel of its own: without a local subchannel pool, grpc shares one connection between
    # the channels of a process that have the same target and options.
    channel = grpc.insecure_channel(
        target,
        options=[
            ("grpc.use_local_subchannel_pool", 1),
            ("grpc.max_receive_message_length", 64 * 1024 * 1024),
        ],
    )
    return AuditClient(target, api_key=key, timeout=600, upload_timeout=600, channel=channel)


def _hands(
    clients: int, per_client: int, distinct: int, run: str
) -> list[list[service_pb2.UploadRecordsRequest]]:
    base = [generate_hand(RULESETS[i % 4], 20_000 + i) for i in range(distinct)]
    out = []
    for c in range(clients):
        requests = []
        for i in range(per_client):
            hand = records_pb2.GameRecord()
            hand.CopyFrom(base[(c * per_client + i) % distinct])
            hand.record_id = f"load-{run}-{c}-{i}"
            requests.append(service_pb2.UploadRecordsRequest(game=hand))
        out.append(requests)
    return out


def _probe(target: str, key: str | None, stop: Event, interval: float, out: Connection) -> None:
    """In a process of its own: time unary AuditRecord calls until ``stop``; send the timings."""
    hand = generate_hand("classic", 1)
    timings: list[tuple[float, float]] = []
    with _client(target, key) as client:
        client.audit(hand)  # connected and warm
        out.send("ready")
        while not stop.is_set():
            start = time.monotonic()  # CLOCK_MONOTONIC: comparable across processes
            client.audit(hand)
            timings.append((start, time.monotonic() - start))
            stop.wait(interval)
    out.send(timings)


def _percentiles(seconds: list[float]) -> str:
    if not seconds:
        return "no calls"
    ordered = sorted(seconds)

    def rank(p: float) -> float:  # nearest-rank percentile, in ms
        return ordered[max(math.ceil(p / 100 * len(ordered)) - 1, 0)] * 1000

    return (
        f"{len(ordered)} calls, p50 {rank(50):.1f} ms, p95 {rank(95):.1f} ms, "
        f"p99 {rank(99):.1f} ms, max {ordered[-1] * 1000:.1f} ms"
    )


def main() -> None:
    """Run the load and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32, help="concurrent uploading clients")
    parser.add_argument("--hands", type=int, default=200, help="hands each client streams")
    parser.add_argument("--distinct", type=int, default=200, help="distinct deals generated")
    parser.add_argument("--server", help="HOST:PORT of a running server")
    parser.add_argument(
        "--database-url",
        help="database of the server (started here unless "
        "--server): API keys are created in it and this run's games counted",
    )
    parser.add_argument("--workers", type=int, default=2, help="audit worker processes")
    parser.add_argument("--api-key", help="API key for --server without --database-url")
    parser.add_argument(
        "--audit-interval", type=float, default=0.01, help="seconds between two timed Audit calls"
    )
    args = parser.parse_args()
    print(describe_build())

    run = f"{time.time_ns():x}"
    streams = _hands(args.clients, args.hands, min(args.distinct, args.clients * args.hands), run)
    sent = sum(map(len, streams))
    with tempfile.TemporaryDirectory() as home:
        url = args.database_url
        if url is None and args.server is None:
            url = f"sqlite:///{home}/load.db"
        engine = make_engine(url) if url else None
        keys: list[str | None] = [args.api_key] * (args.clients + 1)
        if engine is not None:
            upgrade(engine)  # a tenant and key per client, and one for the Audit calls
            sessions = session_factory(engine)
            keys = [create_key(sessions, f"load-{run}-{c}")[1] for c in range(args.clients + 1)]
        proc = None
        target = args.server
        if target is None:
            proc, target = start_server(url, args.workers, home, quiet=True)
        try:
            with _client(target, keys[-1]) as client:
                hand = generate_hand("classic", 1)
                client.audit(hand)
                idle = []
                for _ in range(100):
                    start = time.monotonic()
                    client.audit(hand)
                    idle.append(time.monotonic() - start)

            spawn = multiprocessing.get_context("spawn")
            stop = spawn.Event()
            receive, send = spawn.Pipe(duplex=False)
            probe = spawn.Process(
                target=_probe, args=(target, keys[-1], stop, args.audit_interval, send)
            )
            probe.start()
            if receive.recv() != "ready":
                raise SystemExit("the Audit probe did not start")

            barrier = threading.Barrier(args.clients + 1)
            results: list[list[service_pb2.RecordSummary] | BaseException] = [
                [] for _ in range(args.clients)
            ]

            def upload(c: int) -> None:
                try:
                    with _client(target, keys[c]) as client:
                        client.health()  # connected before the start
                        barrier.wait()
                        results[c] = list(client.upload_stream(iter(streams[c])))
                except BaseException as exc:
                    results[c] = exc

            threads = [threading.Thread(target=upload, args=(c,)) for c in range(args.clients)]
            for thread in threads:
                thread.start()
            barrier.wait()
            t0 = time.monotonic()
            for thread in threads:
                thread.join()
            t1 = time.monotonic()
            stop.set()
            timings: list[tuple[float, float]] = receive.recv()
            probe.join(30)

            failed = [r for r in results if isinstance(r, BaseException)]
            summaries = [s for r in results if not isinstance(r, BaseException) for s in r]
            totals = []
            if engine is not None:  # a tenant per client: its total is its own hands
                for c in range(args.clients):
                    with _client(target, keys[c]) as client:
                        totals.append(client.list_games(page_size=1).total_size)
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(60)
        if engine is not None:
            with engine.connect() as conn:
                rows = conn.execute(
                    select(
                        func.count(),
                        func.count(Game.record_id.distinct()),
                        func.count(Game.content_hash.distinct()),
                    ).where(Game.record_id.like(f"load-{run}-%"))
                ).one()
            engine.dispose()

    stored = sum(1 for s in summaries if s.status == STORED)
    during = [seconds for start, seconds in timings if t0 <= start <= t1]
    print(f"database: {url or 'server ' + target}")
    print(
        f"clients: {args.clients} x {args.hands} hands = {sent} sent, audit workers: "
        f"{args.workers}, failed uploads: {len(failed)} {failed[:1]}"
    )
    print(f"summaries: {len(summaries)}, stored: {stored}, other: {len(summaries) - stored}")
    if totals:
        print(
            f"ListGames totals per client tenant: min {min(totals)}, max {max(totals)}, "
            f"sum {sum(totals)}"
        )
    if engine is not None:
        games, records, hashes = rows
        once = games == records == hashes == sent
        print(
            f"database: {games} games of this run, {records} distinct record ids, {hashes} "
            f"distinct content hashes: {'each hand stored once' if once else 'MISMATCH'}"
        )
    print(f"upload: {t1 - t0:.2f} s, {stored / (t1 - t0):.0f} hands/s stored and audited")
    print(f"unary Audit idle:        {_percentiles(idle)}")
    print(f"unary Audit during load: {_percentiles(during)}")
    if failed or stored != sent:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
