"""The live referee under load: the latency of a play's verdict while an upload runs beside.

Starts one server (``python -m chaodipi.cli serve``, its audit workers for uploads) on a fresh
SQLite file, or on ``--database-url``. Then, together:

- ``--tables`` tables (32) are refereed, spread over ``--processes`` client processes (4),
  each table on a Referee stream of its own: open, deal, bids and bury at once, then one play
  every ``--interval`` seconds (0.05), the tables' plays spread evenly over the interval as
  independent tables' would be; a table that finishes its hand opens the next (a new record
  id). The time from sending a play to reading its verdict is kept.
- one more process uploads ``--records`` records (10,000, distinct content) in one
  UploadRecords stream.

It prints the p50, p99 and maximum latency of the plays' verdicts made while the upload was
running (the bar: p99 under 5 ms), how many, and the upload's time; measured in this
process without gRPC, the CPU time the referee spends on a play's verdict; and the server's
threads' CPU time slices beside the kernel's default (``service/scheduling.py``).

    python bench/referee.py
    python bench/referee.py --tables 32 --records 10000 --database-url 'postgresql+psycopg://…'

Latencies are wall-clock on the client side: on a busy machine they include waiting for a core
(the client processes share the machine with the server and its workers), and on a virtual
machine the time its vCPUs were taken away: the last line gives the share of CPU time stolen
by the hypervisor while the plays were measured (tens of milliseconds at a time: a run with
steal is not comparable with one without).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import os
import statistics
import tempfile
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event

import grpc
from build_info import describe_build  # bench/, beside this script
from server_process import start_server  # bench/, beside this script
from timing import MachineShare

from chaodipi.auditor.generate import generate_hand
from chaodipi.auditor.referee import events_of
from chaodipi.client import AuditClient
from chaodipi.service.db import make_engine, session_factory
from chaodipi.service.keys import create_key
from chaodipi.service.migrate import upgrade
from chaodipi.service.server import ServerConfig
from chaodipi.v1 import records_pb2, referee_pb2, referee_pb2_grpc

HANDS = 8
"""Distinct generated hands the tables play (each with a new record id every time)."""


def _hands() -> list[records_pb2.GameRecord]:
    return [generate_hand("classic", 500 + i) for i in range(HANDS)]


async def _table(
    stub: referee_pb2_grpc.RefereeServiceStub,
    key: str,
    name: str,
    hands: list[records_pb2.GameRecord],
    interval: float,
    phase: float,
    stop: Event,
    out: list[tuple[float, float]],
) -> None:
    """Referee hands one after another until ``stop``, the plays ``phase`` seconds into each
    interval; (time sent, latency) of each play."""
    round_ = 0
    await asyncio.sleep(phase)
    metadata = (("authorization", f"Bearer {key}"),)
    while not stop.is_set():
        record = records_pb2.GameRecord()
        record.CopyFrom(hands[round_ % len(hands)])
        record.record_id = f"{name}-{round_}"
        round_ += 1
        call = stub.Referee(metadata=metadata)
        due = time.perf_counter()
        for event in events_of(record):
            if event.HasField("play"):
                due += interval
                await asyncio.sleep(max(due - time.perf_counter(), 0))
                if stop.is_set():
                    break
            sent = time.perf_counter()
            await call.write(event)
            response = await call.read()
            if event.HasField("play"):
                out.append((time.time(), time.perf_counter() - sent))
            assert response.verdict.result == referee_pb2.VERDICT_RESULT_LEGAL, response
        await call.done_writing()
        while await call.read() is not grpc.aio.EOF:  # the stored summary
            pass


def _tables(
    target: str,
    keys: list[str],
    phases: list[float],
    interval: float,
    start: Event,
    stop: Event,
    pipe: Connection,
) -> None:
    hands = _hands()
    out: list[tuple[float, float]] = []
    # What the client built to play is long-lived: out of the collector's view, so that its
    # collections (pauses of this process, counted in every table's latency) stay short.
    gc.collect()
    gc.freeze()

    async def main() -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            stub = referee_pb2_grpc.RefereeServiceStub(channel)
            start.wait()
            await asyncio.gather(
                *(
                    _table(stub, key, f"table-{key[:8]}-{i}", hands, interval, phase, stop, out)
                    for i, (key, phase) in enumerate(zip(keys, phases, strict=True))
                )
            )

    asyncio.run(main())
    pipe.send(out)


def _upload(target: str, key: str, count: int, start: Event, pipe: Connection) -> None:
    if not count:
        return
    base = _hands()
    records = []
    for i in range(count):
        record = records_pb2.GameRecord()
        record.CopyFrom(base[i % len(base)])
        record.record_id = f"upload-{key[:8]}-{i}"
        records.append(record)
    with AuditClient(target, api_key=key, upload_timeout=3600) as client:
        start.wait()
        began = time.time()
        summaries = client.upload(records)
        pipe.send((began, time.time(), len(summaries)))


def cpu_per_play(rounds: int = 5) -> list[float]:
    """CPU seconds (``time.process_time``) the pure referee spends on each play's verdict, in
    this process: the server's own work per verdict, without gRPC, repeatable under load."""
    from chaodipi.auditor.referee import Referee

    events = [list(events_of(hand)) for hand in _hands()]
    out = []
    for _ in range(rounds):
        for hand in events:
            referee = Referee()
            for event in hand:
                before = time.process_time()
                referee.handle(event)
                if event.HasField("play"):
                    out.append(time.process_time() - before)
    return out


def _slice_ms(sched: str) -> str | None:
    """A thread's time slice, from its ``/proc/…/sched`` file (Linux 6.6 and later)."""
    try:
        with open(sched) as lines:
            for line in lines:
                if line.startswith("se.slice"):
                    return f"{int(line.split(':')[1]) / 1e6:g} ms"
    except OSError:
        pass
    return None


def _slices(pid: int) -> str:
    """The server's threads' time slices against this process's (the kernel's default)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return "unknown (no /proc)"
    server = sorted({s for t in threads if (s := _slice_ms(f"/proc/{pid}/task/{t}/sched"))})
    default = _slice_ms("/proc/self/sched")
    if not server or default is None:
        return "unknown (no se.slice in /proc/<pid>/sched)"
    return f"the server's threads {', '.join(server)}, this process {default}"


def _ms(values: list[float]) -> str:
    cuts = statistics.quantiles(values, n=100)
    p50, p99, top = (1000 * v for v in (cuts[49], cuts[98], max(values)))
    return f"p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {top:.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=32)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument(
        "--records", type=int, default=10_000, help="0: no upload, tables only (--seconds)"
    )
    parser.add_argument("--seconds", type=float, default=30, help="with --records 0")
    parser.add_argument(
        "--workers",
        type=int,
        default=ServerConfig().audit_workers,
        help="the server's audit workers (default: the server's own, on this machine)",
    )
    parser.add_argument("--database-url")
    args = parser.parse_args()
    print(describe_build())
    context = multiprocessing.get_context("spawn")
    plays = max(sum(e.HasField("play") for e in events_of(hand)) for hand in _hands())
    run = f"{time.time_ns():x}"
    with tempfile.TemporaryDirectory() as home:
        url = args.database_url or f"sqlite:///{home}/referee.db"
        engine = make_engine(url)
        upgrade(engine)  # a tenant and key per table, and one for the upload
        sessions = session_factory(engine)
        keys = [create_key(sessions, f"referee-{run}-{i}")[1] for i in range(args.tables + 1)]
        engine.dispose()
        proc, target = start_server(url, args.workers, home, quiet=True)
        try:
            start, stop = context.Event(), context.Event()
            pipes, procs = [], []
            for p in range(args.processes):
                mine = keys[p : args.tables : args.processes]
                # Independent tables play at independent moments: table t starts t/T of a
                # hand (and of an interval) late. Started in step, every table would send
                # each play at the same instant and end each hand with the others, and the
                # last verdict of each burst would wait for all the others.
                phases = [
                    args.interval * (plays + 1) * t / args.tables
                    for t in range(p, args.tables, args.processes)
                ]
                there, here = context.Pipe(duplex=False)
                procs.append(
                    context.Process(
                        target=_tables,
                        args=(target, mine, phases, args.interval, start, stop, here),
                    )
                )
                pipes.append(there)
            there, here = context.Pipe(duplex=False)
            uploader = context.Process(
                target=_upload, args=(target, keys[-1], args.records, start, here)
            )
            for process in [*procs, uploader]:
                process.start()
            time.sleep(5)  # the processes have generated their hands
            with MachineShare() as machine:
                start.set()
                if args.records:
                    began, ended, stored = there.recv()
                else:
                    began = time.time()
                    time.sleep(args.seconds)
                    ended, stored = time.time(), 0
            stop.set()
            latencies = [
                latency for pipe in pipes for when, latency in pipe.recv() if began <= when <= ended
            ]
            for process in [*procs, uploader]:
                process.join()
            slices = _slices(proc.pid)  # read once the server has long been serving
        finally:
            proc.terminate()
            proc.wait()
    if len(latencies) < 2:
        raise SystemExit("no play was refereed while the upload ran")
    cpu = cpu_per_play()
    print(f"CPU per play verdict, in process, {len(cpu)} plays: {_ms(cpu)}")
    print(
        f"{args.tables} tables, a play every {args.interval * 1000:.0f} ms each, beside an "
        f"upload of {stored} records ({ended - began:.1f} s, {args.workers} audit workers)"
    )
    print(f"play verdicts during the upload, {len(latencies)}: {_ms(latencies)} (wall clock)")
    print(f"the machine meanwhile: {machine.describe()}")
    print(f"CPU time slices: {slices}")


if __name__ == "__main__":
    main()
