"""The one code path that audits and stores records: the server's Upload, the dashboard's upload
page, sample games and batch imports all go through ``ingest_records`` (or its two halves,
``audit_upload`` and ``service.store.store_batch``).

A record the auditor cannot replay (its report has ``rejections``) is not stored: its summary
says STATUS_REJECTED and names the fields. A record that replays but breaks the rules is stored
with its findings: that is an audit, not an error.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Iterable, Iterator, Sequence

from chaodipi.auditor import audit_game, audit_match
from chaodipi.engine.ruleset import Ruleset
from chaodipi.service.audited import Audited, content_hash
from chaodipi.service.db import SessionFactory
from chaodipi.service.store import store_batch
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

DEFAULT_BATCH = 256
"""Records audited and stored per database transaction."""

AnyRecord = (
    records_pb2.RecordFile
    | records_pb2.GameRecord
    | records_pb2.MatchRecord
    | service_pb2.UploadRequest
)
"""A record in any of the shapes callers hold them in (see ``as_requests``)."""


def run_audit(
    request: service_pb2.UploadRequest, ruleset: Ruleset | None = None
) -> audit_pb2.AuditReport | audit_pb2.MatchAuditReport | None:
    """The auditor's report on the request's record (None when the request holds none)."""
    kind = request.WhichOneof("record")
    if kind == "game":
        return audit_game(request.game, ruleset=ruleset)
    if kind == "match":
        return audit_match(request.match, ruleset=ruleset)
    return None


def audit_serialized(requests: Sequence[bytes]) -> list[bytes]:
    """``run_audit`` on serialized upload requests, for a worker process (empty: no record)."""
    out = []
    for data in requests:
        report = run_audit(service_pb2.UploadRequest.FromString(data))
        out.append(b"" if report is None else report.SerializeToString())
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
    request: service_pb2.UploadRequest,
    report: audit_pb2.AuditReport | audit_pb2.MatchAuditReport | None,
) -> Audited:
    """An uploaded record with its report, its content hash and its violations collected."""
    item = Audited(index=index, client_ref=request.client_ref)
    if isinstance(report, audit_pb2.AuditReport):
        item.game, item.report = request.game, report
        item.content_hash = content_hash(request.game)
        item.violations.extend(report.rejections)
    elif isinstance(report, audit_pb2.MatchAuditReport):
        item.match, item.match_report = request.match, report
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
        item.violations.append(
            audit_pb2.FieldViolation(field="record", description="missing: give game or match")
        )
    return item


def unreadable_request(index: int, description: str) -> Audited:
    """An upload message that did not parse: rejected, with the reason under ``request``."""
    item = Audited(index=index, client_ref="")
    item.violations.append(audit_pb2.FieldViolation(field="request", description=description))
    return item


def parse_report(
    request: service_pb2.UploadRequest, data: bytes
) -> audit_pb2.AuditReport | audit_pb2.MatchAuditReport | None:
    """The report ``audit_serialized`` returned for ``request``."""
    kind = request.WhichOneof("record")
    if kind == "game":
        return audit_pb2.AuditReport.FromString(data)
    if kind == "match":
        return audit_pb2.MatchAuditReport.FromString(data)
    return None


def audit_upload(index: int, request: service_pb2.UploadRequest) -> Audited:
    """Audit one record of an upload in this process (CPU only, no I/O)."""
    return make_audited(index, request, run_audit(request))


def as_requests(records: Iterable[AnyRecord]) -> Iterator[service_pb2.UploadRequest]:
    """Upload requests for records in any of the shapes callers hold them in."""
    for record in records:
        if isinstance(record, service_pb2.UploadRequest):
            yield record
        elif isinstance(record, records_pb2.GameRecord):
            yield service_pb2.UploadRequest(game=record)
        elif isinstance(record, records_pb2.MatchRecord):
            yield service_pb2.UploadRequest(match=record)
        elif record.WhichOneof("record") == "game":
            yield service_pb2.UploadRequest(game=record.game)
        elif record.WhichOneof("record") == "match":
            yield service_pb2.UploadRequest(match=record.match)
        else:
            yield service_pb2.UploadRequest()


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


def all_violations(items: Sequence[Audited]) -> list[audit_pb2.FieldViolation]:
    """Every violation of the items, with fields prefixed by ``records[i].``."""
    return [
        audit_pb2.FieldViolation(
            field=f"records[{item.index}].{v.field}",
            description=f"{item.record_id or 'record'}: {v.description}",
        )
        for item in items
        for v in item.violations
    ]
