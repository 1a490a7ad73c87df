"""The server's upload pipeline: records of a stream are audited in batches while the stream is
still being read, stored batch after batch in stream order, and each batch's summaries go back
as soon as it is stored.

Memory stays flat whatever the stream's length: at most ``in_flight`` batches are being audited
and one stored at a time; once a batch is stored only its summaries remain, and they are sent,
not kept. Reading stops while the batches ahead are busy, so a fast client waits (gRPC flow
control) rather than filling the server.

With audit worker processes, a batch is also stored by a process of its own (a store worker,
``start_store_worker``): reading its reports, checking and hashing its records and writing
them is Python work that, in a thread of the server, would hold the GIL for milliseconds at a
time and make every referee verdict and short call of the server wait behind the upload.

The audit work of a stream stops once its budget is spent (``service.budget``); a batch whose
store has begun is stored whole, and nothing is stored after the budget is spent.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

from chaodipi.service.audited import Audited
from chaodipi.service.budget import Budget
from chaodipi.service.db import SessionFactory, make_engine, session_factory
from chaodipi.service.errors import BudgetSpent, LimitExceeded
from chaodipi.service.ingest import (
    Report,
    audit_requests,
    audit_serialized,
    exit_with_parent,
    make_audited,
    parse_report,
    unreadable_request,
)
from chaodipi.service.metrics import Metrics, cpu_timed
from chaodipi.service.store import store_batch
from chaodipi.service.workers import WorkerPool
from chaodipi.v1 import service_pb2

Request = service_pb2.UploadRecordsRequest
Summary = service_pb2.RecordSummary


@dataclass(slots=True)
class UploadSettings:
    """The pipeline's sizes and the executors it runs on."""

    sessions: SessionFactory
    audit_executor: Executor  # worker processes, or threads (audit_requests)
    # Store workers (``start_store_worker``) beside audit worker processes, or threads.
    store_executor: Executor
    batch_size: int
    in_flight: int  # batches audited ahead of the one being stored
    max_records: int
    metrics: Metrics


@dataclass(slots=True)
class _Batch:
    start: int
    requests: list[Request]
    data: list[bytes]  # the requests serialized, for worker processes (empty with threads)
    audit: Awaitable[tuple[Sequence[Report | bytes | None], float]]  # reports, CPU seconds


def _audit(settings: UploadSettings, budget: Budget, start: int, requests: list[Request]) -> _Batch:
    audit: asyncio.Future[tuple[Sequence[Report | bytes | None], float]]
    data: list[bytes] = []
    if isinstance(settings.audit_executor, WorkerPool):
        data = [r.SerializeToString() for r in requests]
        audit = budget.submit(
            settings.audit_executor,
            cpu_timed,
            audit_serialized,
            data,
            budget.slot,
            budget.deadline,
        )
    else:
        audit = budget.submit(
            settings.audit_executor, cpu_timed, audit_requests, requests, budget.spent
        )
    queue = settings.metrics.audit_queue
    queue.inc(len(requests))
    audit.add_done_callback(lambda _: queue.dec(len(requests)))
    return _Batch(start, requests, data, audit)


def _items(
    start: int,
    requests: Sequence[Request],
    reports: Sequence[Report | None],
    whys: Sequence[str | None],
) -> list[Audited]:
    return [
        make_audited(start + i, request, report)
        if why is None
        else unreadable_request(start + i, why)
        for i, (request, report, why) in enumerate(zip(requests, reports, whys, strict=True))
    ]


def _store_here(
    sessions: SessionFactory,
    tenant: int,
    start: int,
    requests: Sequence[Request],
    out: Sequence[Report | bytes | None],
    whys: Sequence[str | None],
) -> list[Summary]:
    """In a store thread or worker: read the batch's reports, check and hash each record,
    store them."""
    reports = [
        parse_report(request, data) if isinstance(data, bytes) else data
        for request, data in zip(requests, out, strict=True)
    ]
    return store_batch(sessions, tenant, _items(start, requests, reports, whys))


STORE_NICENESS = 5
"""How much lower a store worker's CPU priority is than the server's (Linux gives each thread
its own, so this holds for store threads too): while an upload is written, the event loop's
verdicts and short calls go first."""

_store_sessions: SessionFactory | None = None
"""In a store worker process: sessions on the server's database."""


def start_store_worker(database_url: str) -> None:
    """The store pool's initializer: open the server's database, yield the CPU to the server
    (``STORE_NICENESS``), and exit with the server (``exit_with_parent``)."""
    global _store_sessions
    _store_sessions = session_factory(make_engine(database_url))
    os.nice(STORE_NICENESS)
    exit_with_parent()


def store_serialized(
    tenant: int, start: int, data: Sequence[bytes], out: Sequence[bytes], whys: Sequence[str | None]
) -> list[bytes]:
    """In a store worker: ``_store_here`` of a batch of serialized requests with the reports
    the audit workers returned; the summaries serialized."""
    assert _store_sessions is not None, "start_store_worker opens the database first"
    requests = [Request.FromString(d) for d in data]
    summaries = _store_here(_store_sessions, tenant, start, requests, out, whys)
    return [summary.SerializeToString() for summary in summaries]


async def store(
    executor: Executor,
    sessions: SessionFactory,
    budget: Budget,
    tenant: int,
    start: int,
    requests: Sequence[Request],
    data: Sequence[bytes],
    out: Sequence[Report | bytes | None],
    whys: Sequence[str | None],
) -> list[Summary]:
    """Store audited records (the ``start``-th of their stream first), as ``store_batch`` does,
    in a store worker process when ``executor`` is a pool of them (the requests, ``data``
    serialized or empty, and the reports travel serialized), else in one of its threads.
    The work runs to its end even if the caller stops waiting."""
    if isinstance(executor, WorkerPool):
        reports = [
            r if isinstance(r, bytes) else b"" if r is None else r.SerializeToString() for r in out
        ]
        serialized = budget.submit(
            executor,
            store_serialized,
            tenant,
            start,
            data or [request.SerializeToString() for request in requests],
            reports,
            whys,
        )
        return [Summary.FromString(summary) for summary in await asyncio.shield(serialized)]
    stored = budget.submit(executor, _store_here, sessions, tenant, start, requests, out, whys)
    return await asyncio.shield(stored)


async def upload(
    settings: UploadSettings,
    budget: Budget,
    tenant: int,
    requests: AsyncIterator[Request],
    unreadable: Callable[[int], str | None],
) -> AsyncIterator[Summary]:
    """Audit and store the stream's records for ``tenant``; yields one summary per record, in
    stream order, each batch's once it is stored. ``unreadable(i)`` is why the i-th message of
    the stream could not be read (None: it could), for the messages the reader replaced with an
    empty request. Raises ``LimitExceeded`` past ``max_records`` (after the summaries of the
    records before), ``BudgetSpent`` when the budget ran out before the stream was done.
    """
    queue: asyncio.Queue[_Batch | None] = asyncio.Queue(maxsize=settings.in_flight)
    failure: list[Exception] = []

    async def read() -> None:
        batch: list[Request] = []
        count = 0
        try:
            async for request in requests:
                count += 1
                if count > settings.max_records:
                    raise LimitExceeded(
                        f"an upload holds at most {settings.max_records} records: split the "
                        f"stream (record {count - 1} passes the limit)"
                    )
                batch.append(request)
                if len(batch) >= settings.batch_size:
                    await queue.put(_audit(settings, budget, count - len(batch), batch))
                    batch = []
            if batch:
                await queue.put(_audit(settings, budget, count - len(batch), batch))
        except Exception as exc:  # the stream's own end: raised after the batches before it
            failure.append(exc)
        await queue.put(None)

    reader = asyncio.create_task(read())
    try:
        while (batch := await queue.get()) is not None:
            out, cpu = await asyncio.shield(batch.audit)
            settings.metrics.audit_cpu.inc(cpu)
            if budget.spent() or len(out) < len(batch.requests):
                raise BudgetSpent()
            whys = [unreadable(batch.start + i) for i in range(len(batch.requests))]
            settings.metrics.audited.inc(
                sum(bool(r) if isinstance(r, bytes) else r is not None for r in out)
            )
            summaries = await store(
                settings.store_executor,
                settings.sessions,
                budget,
                tenant,
                batch.start,
                batch.requests,
                batch.data,
                out,
                whys,
            )
            del batch, out
            settings.metrics.count_summaries(summaries)
            for summary in summaries:
                yield summary
        await reader
        if failure:
            raise failure[0]
    finally:
        reader.cancel()
