"""The server's upload pipeline: records of a stream are audited in batches while the stream is
still being read, stored batch after batch in stream order, and each batch's summaries go back
as soon as it is stored.

Memory stays flat whatever the stream's length: at most ``in_flight`` batches are being audited
and one stored at a time; once a batch is stored only its summaries remain, and they are sent,
not kept. Reading stops while the batches ahead are busy, so a fast client waits (gRPC flow
control) rather than filling the server.

The audit work of a stream stops once its budget is spent (``service.budget``); a batch whose
store has begun is stored whole, and nothing is stored after the budget is spent.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass

from chaodipi.service.budget import Budget
from chaodipi.service.db import SessionFactory
from chaodipi.service.errors import BudgetSpent, LimitExceeded
from chaodipi.service.ingest import (
    Report,
    audit_requests,
    audit_serialized,
    make_audited,
    parse_report,
    unreadable_request,
)
from chaodipi.service.metrics import Metrics, cpu_timed
from chaodipi.service.store import store_batch
from chaodipi.v1 import service_pb2

Request = service_pb2.UploadRecordsRequest
Summary = service_pb2.RecordSummary


@dataclass(slots=True)
class UploadSettings:
    """The pipeline's sizes and the executors it runs on."""

    sessions: SessionFactory
    audit_executor: Executor  # worker processes, or threads (audit_requests)
    store_executor: Executor  # threads: database writes block
    batch_size: int
    in_flight: int  # batches audited ahead of the one being stored
    max_records: int
    metrics: Metrics


@dataclass(slots=True)
class _Batch:
    start: int
    requests: list[Request]
    audit: Awaitable[tuple[Sequence[Report | bytes | None], float]]  # reports, CPU seconds


def _audit(settings: UploadSettings, budget: Budget, start: int, requests: list[Request]) -> _Batch:
    audit: asyncio.Future[tuple[Sequence[Report | bytes | None], float]]
    if isinstance(settings.audit_executor, ProcessPoolExecutor):
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
    return _Batch(start, requests, audit)


def _reports(batch: _Batch, out: Sequence[Report | bytes | None]) -> list[Report | None]:
    return [
        parse_report(request, data) if isinstance(data, bytes) else data
        for request, data in zip(batch.requests, out, strict=True)
    ]


def _store(
    settings: UploadSettings,
    tenant: int,
    batch: _Batch,
    out: Sequence[Report | bytes | None],
    whys: list[str | None],
) -> list[Summary]:
    """In a store thread: read the batch's reports, check and hash each record, store them.

    The reading and checking cost a few milliseconds a batch; on the event loop they would
    hold up every referee verdict and short call arriving meanwhile.
    """
    reports = _reports(batch, out)
    settings.metrics.audited.inc(sum(r is not None for r in reports))
    items = [
        make_audited(batch.start + i, request, report)
        if why is None
        else unreadable_request(batch.start + i, why)
        for i, (request, report, why) in enumerate(zip(batch.requests, reports, whys, strict=True))
    ]
    return store_batch(settings.sessions, tenant, items)


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
            stored = budget.submit(
                settings.store_executor, _store, settings, tenant, batch, out, whys
            )
            del batch, out
            summaries = await asyncio.shield(stored)
            settings.metrics.count_summaries(summaries)
            for summary in summaries:
                yield summary
        await reader
        if failure:
            raise failure[0]
    finally:
        reader.cancel()
