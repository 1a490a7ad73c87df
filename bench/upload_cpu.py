"""The server's event-loop thread's CPU time per uploaded record: what an upload costs the thread
that also answers every referee verdict and short call.

Starts a server in this process on an event loop of its own thread (audit worker processes, or
``--workers 0``: threads), on a fresh SQLite file or on ``--database-url``; a client process
uploads ``--records`` records (2,000, distinct content) in one UploadRecords stream after a
small warm-up upload. The loop thread's CPU time (``time.thread_time``, read on the loop) is
taken before and after the measured upload: CPU time of that thread alone, so the client, the
workers and other jobs on the machine do not count in it (they only slow it down a little
through shared caches). ``--rounds`` uploads are measured; the least and the median are printed.

    python bench/upload_cpu.py
    python bench/upload_cpu.py --workers 0 --records 1000
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import tempfile
import threading
import time
from multiprocessing.connection import Connection

from build_info import describe_build  # bench/, beside this script

from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient
from chaodipi.service.server import RunningServer, ServerConfig, start
from chaodipi.v1 import records_pb2

HANDS = 8


def _upload(target: str, counts: list[int], pipe: Connection) -> None:
    """Upload ``counts[i]`` new records for each i, in turn, once told to go on."""
    base = [generate_hand("classic", 500 + i) for i in range(HANDS)]
    serial = 0
    with AuditClient(target, upload_timeout=3600) as client:
        for count in counts:
            records = []
            for _ in range(count):
                record = records_pb2.GameRecord()
                record.CopyFrom(base[serial % HANDS])
                record.record_id = f"cpu-{serial}"
                serial += 1
                records.append(record)
            pipe.recv()
            summaries = client.upload(records)
            pipe.send(len(summaries))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    print(describe_build())
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def on_loop_cpu() -> float:
        async def read() -> float:
            return time.thread_time()

        return asyncio.run_coroutine_threadsafe(read(), loop).result()

    with tempfile.TemporaryDirectory() as home:
        config = ServerConfig(
            port=0,
            database_url=args.database_url or f"sqlite:///{home}/cpu.db",
            require_keys=False,
            audit_workers=args.workers,
        )
        running: RunningServer = asyncio.run_coroutine_threadsafe(start(config), loop).result()
        context = multiprocessing.get_context("spawn")
        here, there = context.Pipe()
        counts = [64] + [args.records] * args.rounds
        client = context.Process(target=_upload, args=(f"127.0.0.1:{running.port}", counts, there))
        client.start()

        def uploaded() -> int:
            while not here.poll(1):
                if not client.is_alive():
                    raise SystemExit("the uploading process failed")
            count: int = here.recv()
            return count

        try:
            here.send(None)  # the warm-up
            uploaded()
            per_record = []
            for _ in range(args.rounds):
                before = on_loop_cpu()
                here.send(None)
                assert uploaded() == args.records
                asyncio.run_coroutine_threadsafe(running.idle(), loop).result()
                per_record.append((on_loop_cpu() - before) / args.records)
        finally:
            client.join()
            asyncio.run_coroutine_threadsafe(running.stop(1), loop).result()
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
    microseconds = sorted(1e6 * v for v in per_record)
    print(
        f"event-loop CPU per uploaded record ({args.records} records, {args.workers} audit "
        f"workers, {args.rounds} uploads): least {microseconds[0]:.1f} us, median "
        f"{statistics.median(microseconds):.1f} us ({', '.join(f'{v:.1f}' for v in microseconds)})"
    )


if __name__ == "__main__":
    main()
