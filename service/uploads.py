"""The server's upload pipeline: records of a stream are audited in batches while the stream is
still being read, stored batch after batch in stream order, and each batch's summaries go back
as soon as it is stored.

Memory stays flat whatever the stream's length: at most ``in_flight`` batches are being audited
and one stored at a time; once a batch is stored only its summaries remain, and they are sent,
not kept. Reading stops while the batches ahead are busy, so a fast client waits (gRPC flow
control) rather than filling the server.

The records travel as the server received them, serialized: the audits read them (in the audit
worker processes, or threads) and the store reads them again, so that the event loop, which also
answers every referee verdict, reads none of them (reading a record and writing it again for a
worker was a sixth of the loop's work during an upload).

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
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

from chaodipi.service.budget import Budget
from chaodipi.service.db import SessionFactory, make_engine, session_factory
from chaodipi.service.errors import BudgetSpent, LimitExceeded
from chaodipi.service.ingest import (
    Audit,
    audit_requests,
    audit_serialized,
    exit_with_parent,
    make_audited,
    parse_report,
    serialized,
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
    data: list[bytes]  # the requests as the server received them
    audit: Awaitable[tuple[Sequence[Audit], float]]  # the audits, CPU seconds


def _audit(settings: UploadSettings, budget: Budget, start: int, data: list[bytes]) -> _Batch:
    audit: asyncio.Future[tuple[Sequence[Audit], float]]
    if isinstance(settings.audit_executor, WorkerPool):
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
            settings.audit_executor, cpu_timed, audit_requests, data, budget.spent
        )
    queue = settings.metrics.audit_queue
    queue.inc(len(data))
    audit.add_done_callback(lambda _: queue.dec(len(data)))
    return _Batch(start, data, audit)


def _reported(out: Sequence[Audit]) -> int:
    """How many of the audits gave a report."""
    return sum(
        bool(a) if isinstance(a, bytes) else a is not None and not isinstance(a, str) for a in out
    )


def _store_here(
    sessions: SessionFactory,
    tenant: int,
    start: int,
    requests: Sequence[Request | bytes],
    out: Sequence[Audit],
) -> list[Summary]:
    """In a store thread or worker: read the batch's requests (serialized or not) and reports,
    check and hash each record, store them."""
    items = []
    for index, (request, audit) in enumerate(zip(requests, out, strict=True), start):
        if isinstance(audit, str):
            items.append(unreadable_request(index, audit))
            continue
        if isinstance(request, bytes):
            request = Request.FromString(request)  # it parsed for its audit
        report = parse_report(request, audit) if isinstance(audit, bytes) else audit
        items.append(make_audited(index, request, report))
    return store_batch(sessions, tenant, items)


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
    tenant: int, start: int, data: Sequence[bytes], out: Sequence[bytes | str]
) -> list[bytes]:
    """In a store worker: ``_store_here`` of a batch of serialized requests with the audits
    the audit workers returned; the summaries serialized."""
    assert _store_sessions is not None, "start_store_worker opens the database first"
    summaries = _store_here(_store_sessions, tenant, start, data, out)
    return [summary.SerializeToString() for summary in summaries]


async def store(
    executor: Executor,
    sessions: SessionFactory,
    budget: Budget,
    tenant: int,
    start: int,
    requests: Sequence[Request | bytes],
    out: Sequence[Audit],
) -> list[Summary]:
    """Store audited records (the ``start``-th of their stream first), as ``store_batch`` does,
    in a store worker process when ``executor`` is a pool of them (the requests and reports
    travel serialized), else in one of its threads. The work runs to its end even if the
    caller stops waiting."""
    if isinstance(executor, WorkerPool):
        summaries = budget.submit(
            executor,
            store_serialized,
            tenant,
            start,
            [r if isinstance(r, bytes) else r.SerializeToString() for r in requests],
            [serialized(audit) for audit in out],
        )
        return [Summary.FromString(summary) for summary in await asyncio.shield(summaries)]
    stored = budget.submit(executor, _store_here, sessions, tenant, start, requests, out)
    return await asyncio.shield(stored)


async def upload(
    settings: UploadSettings, budget: Budget, tenant: int, requests: AsyncIterator[bytes]
) -> AsyncGenerator[Summary, None]:
    """Audit and store the stream's records for ``tenant``, its requests serialized as they were
    received (the audits read them); yields one summary per record, in stream order, each
    batch's once it is stored. Raises ``LimitExceeded`` past ``max_records`` (after the
    summaries of the records before), ``BudgetSpent`` when the budget ran out before the stream
    was done.
    """
    queue: asyncio.Queue[_Batch | None] = asyncio.Queue(maxsize=settings.in_flight)
    failure: list[Exception] = []

    async def read() -> None:
        batch: list[bytes] = []
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
            if budget.spent() or len(out) < len(batch.data):
                raise BudgetSpent()
            settings.metrics.audited.inc(_reported(out))
            summaries = await store(
                settings.store_executor,
                settings.sessions,
                budget,
                tenant,
                batch.start,
                batch.data,
                out,
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
