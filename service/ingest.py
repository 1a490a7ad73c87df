"""The one code path that audits and stores records: the server's Upload, the dashboard's upload
page, sample games and batch imports all go through ``ingest_records`` (or its two halves,
``audit_upload`` and ``service.store.store_batch``).

A record the auditor cannot replay (its report has ``rejections``), or one that breaks the
service's own rules (``service.limits``: lengths, characters, times, players), is not stored: its
summary says STATUS_REJECTED and names the fields. A record that replays but breaks the rules of
the game is stored with its findings: that is an audit, not an error.

Records are made canonical before anything else: unknown protobuf fields are dropped, so they
neither count in the duplicate check nor get stored.

The upload's audit loops (``audit_requests`` in a thread, ``audit_serialized`` in a worker
process) take the requests as the server received them, serialized: they read each one there,
not on the server's event loop (a request that does not parse is the reason why, in its place).
They look at the call's budget before each record and stop once it is spent (the call was
cancelled or its deadline passed): a call given up costs at most the record being audited.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from chaodipi.auditor import audit_game, audit_match
from chaodipi.engine.ruleset import Ruleset
from chaodipi.service.audited import Audited, content_hash
from chaodipi.service.db import SessionFactory
from chaodipi.service.errors import not_readable
from chaodipi.service.limits import MAX_TEXT, echo, record_violations, text_problem
from chaodipi.service.store import store_batch
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

DEFAULT_BATCH = 256
"""Records audited and stored per database transaction."""

AnyRecord = (
    records_pb2.RecordFile
    | records_pb2.GameRecord
    | records_pb2.MatchRecord
    | service_pb2.UploadRecordsRequest
)
"""A record in any of the shapes callers hold them in (see ``as_requests``)."""


def run_audit(
    request: service_pb2.UploadRecordsRequest, ruleset: Ruleset | None = None
) -> audit_pb2.AuditReport | audit_pb2.MatchAuditReport | None:
    """The auditor's report on the request's record (None when the request holds none)."""
    kind = request.WhichOneof("record")
    if kind == "game":
        return audit_game(request.game, ruleset=ruleset)
    if kind == "match":
        return audit_match(request.match, ruleset=ruleset)
    return None


Report = audit_pb2.AuditReport | audit_pb2.MatchAuditReport


def audit_for_upload(request: service_pb2.UploadRecordsRequest) -> Report | None:
    """``run_audit`` of an uploaded record, or None, unaudited, when the record breaks the
    service's rules (``make_audited`` then rejects it without spending an audit on it)."""
    kind = request.WhichOneof("record")
    if kind is None or record_violations(request.game if kind == "game" else request.match):
        return None
    return run_audit(request)


Audit = Report | bytes | str | None
"""What the audit of one uploaded request gave: its report (serialized when it comes from an
audit worker process; None or empty bytes: the record was not audited), or why the request
could not be read (a str)."""


def serialized(audit: Audit) -> bytes | str:
    """An audit as it travels between processes: its report serialized (empty: none)."""
    if audit is None:
        return b""
    return audit if isinstance(audit, bytes | str) else audit.SerializeToString()


def read_request(data: bytes) -> service_pb2.UploadRecordsRequest | str:
    """The upload request ``data`` holds, or why it cannot be read."""
    try:
        return service_pb2.UploadRecordsRequest.FromString(data)
    except DecodeError as exc:
        return not_readable(service_pb2.UploadRecordsRequest.DESCRIPTOR.full_name, exc)


def audit_read(data: bytes) -> Report | str | None:
    """``audit_for_upload`` of the request ``data`` holds, or why it cannot be read."""
    request = read_request(data)
    return request if isinstance(request, str) else audit_for_upload(request)


def audit_requests(requests: Sequence[bytes], spent: Callable[[], bool]) -> list[Audit]:
    """``audit_read`` of each serialized request, in a thread, until ``spent()`` says the
    call's budget is gone: then the audits so far (fewer than the requests)."""
    out: list[Audit] = []
    for data in requests:
        if spent():
            break
        out.append(audit_read(data))
    return out


def batch_requests(data: bytes) -> list[bytes]:
    """The upload requests of a serialized ``BatchUploadRecordsRequest``, each serialized (in
    an audit worker or thread, so that the event loop reads none of them); ``DecodeError`` when
    the batch does not parse."""
    batch = service_pb2.BatchUploadRecordsRequest.FromString(data)
    return [request.SerializeToString() for request in batch.requests]


_flags: Any = None
"""In an audit worker process: the server's cancellation flags, one byte per call slot."""


WORKER_NICENESS = 10
"""How much lower the audit workers' CPU priority is than the server's (``os.nice``): when the
cores are busy, the event loop's verdicts and short calls go before batch audits."""


def worker_flags() -> Any:
    """The cancellation flags ``start_worker`` kept (None outside an audit worker process)."""
    return _flags


def start_worker(flags: Any) -> None:
    """The audit pool's initializer: keep the server's cancellation flags (a shared
    ``RawArray``), yield the CPU to the server's event loop (``WORKER_NICENESS``), and exit
    with the server (``exit_with_parent``)."""
    global _flags
    _flags = flags
    os.nice(WORKER_NICENESS)
    exit_with_parent()


def audit_serialized(
    requests: Sequence[bytes], slot: int = -1, deadline: float | None = None
) -> list[bytes | str]:
    """``audit_read`` of serialized requests, in a worker process, each report serialized
    (empty bytes: no report), until the call's flag (``slot`` of the flags ``start_worker``
    kept) is raised or the ``deadline`` (``time.time()``) passes: then the audits so far."""
    out: list[bytes | str] = []
    for data in requests:
        if (slot >= 0 and _flags is not None and _flags[slot]) or (
            deadline is not None and time.time() >= deadline
        ):
            break
        out.append(serialized(audit_read(data)))
    return out


def exit_with_parent() -> None:
    """In a worker process: exit as soon as the process that started it is gone, even killed
    with SIGKILL, so a crashed server leaves no orphaned audit workers. A pool ``initializer``;
    in a process that no multiprocessing parent started it does nothing."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()  # waits on the parent's sentinel: it closes when the parent exits
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def make_audited(
    index: int,
    request: service_pb2.UploadRecordsRequest,
    report: Report | None,
) -> Audited:
    """An uploaded record with its report, its content hash and its violations collected.

    The request is made canonical in place (unknown fields dropped) before it is hashed; a
    record that breaks the service's rules is rejected whatever its report says.
    """
    request.DiscardUnknownFields()
    item = Audited(index=index, client_ref=request.client_ref)
    problem = text_problem(request.client_ref, MAX_TEXT)
    if problem:
        item.client_ref = echo(request.client_ref)
        item.violations.append(audit_pb2.FieldViolation(field="client_ref", description=problem))
    kind = request.WhichOneof("record")
    if kind is None:
        item.violations.append(
            audit_pb2.FieldViolation(field="record", description="missing: give game or match")
        )
        return item
    if kind == "game":
        item.game = request.game
    else:
        item.match = request.match
    item.violations.extend(record_violations(request.game if kind == "game" else request.match))
    if item.violations:
        return item
    if isinstance(report, audit_pb2.AuditReport) and kind == "game":
        item.report = report
        item.content_hash = content_hash(request.game)
        item.violations.extend(report.rejections)
    elif isinstance(report, audit_pb2.MatchAuditReport) and kind == "match":
        item.match_report = report
        item.content_hash = content_hash(request.match)
        item.violations.extend(report.rejections)
        for hand in report.hands:
            item.violations.extend(hand.rejections)
        if not request.match.hands and not item.violations:
            item.violations.append(
                audit_pb2.FieldViolation(
                    field="hands", description="a match needs at least one hand"
                )
            )
    else:
        raise ValueError(f"record {index}: a {kind} needs its audit report, got {type(report)}")
    return item


def unreadable_request(index: int, description: str) -> Audited:
    """An upload message that did not parse: rejected, with the reason under ``request``."""
    item = Audited(index=index, client_ref="")
    item.violations.append(audit_pb2.FieldViolation(field="request", description=description))
    return item


def parse_report(request: service_pb2.UploadRecordsRequest, data: bytes) -> Report | None:
    """The report ``audit_serialized`` returned for ``request`` (None: it was not audited)."""
    kind = request.WhichOneof("record")
    if not data or kind is None:
        return None
    if kind == "game":
        return audit_pb2.AuditReport.FromString(data)
    return audit_pb2.MatchAuditReport.FromString(data)


def audit_upload(index: int, request: service_pb2.UploadRecordsRequest) -> Audited:
    """Audit one record of an upload in this process (CPU only, no I/O)."""
    return make_audited(index, request, audit_for_upload(request))


def as_requests(records: Iterable[AnyRecord]) -> Iterator[service_pb2.UploadRecordsRequest]:
    """Upload requests for records in any of the shapes callers hold them in."""
    for record in records:
        if isinstance(record, service_pb2.UploadRecordsRequest):
            yield record
        elif isinstance(record, records_pb2.GameRecord):
            yield service_pb2.UploadRecordsRequest(game=record)
        elif isinstance(record, records_pb2.MatchRecord):
            yield service_pb2.UploadRecordsRequest(match=record)
        elif record.WhichOneof("record") == "game":
            yield service_pb2.UploadRecordsRequest(game=record.game)
        elif record.WhichOneof("record") == "match":
            yield service_pb2.UploadRecordsRequest(match=record.match)
        else:
            yield service_pb2.UploadRecordsRequest()


def ingest_records(
    sessions: SessionFactory,
    tenant_id: int,
    records: Iterable[AnyRecord],
    *,
    batch_size: int = DEFAULT_BATCH,
) -> list[service_pb2.RecordSummary]:
    """Audit and store records for a tenant; one summary per record, in order.

    Each batch of ``batch_size`` records is one transaction; a record is stored whole (game,
    seats, findings) or not at all, and rejected records never stop the others.
    """
    summaries: list[service_pb2.RecordSummary] = []
    batch: list[Audited] = []
    for index, request in enumerate(as_requests(records)):
        batch.append(audit_upload(index, request))
        if len(batch) >= batch_size:
            summaries.extend(store_batch(sessions, tenant_id, batch))
            batch = []
    if batch:
        summaries.extend(store_batch(sessions, tenant_id, batch))
    return summaries
