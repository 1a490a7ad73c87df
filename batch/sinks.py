"""Where results go: a folder of JSON reports, or a database through the service's own storage.

Both keep a done-ledger (JSON Lines, one ``Row`` per unit) written after the unit's report is
stored and flushed after every chunk, so after a stop or a crash every ledger line has its report
and ``--resume`` redoes at most the chunk being written. A torn last line is ignored on reading.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from chaodipi.batch.row import Row
from chaodipi.batch.run import Mode, Result, frame_body
from chaodipi.service.db import data_dir, make_engine, session_factory
from chaodipi.service.ingest import make_audited
from chaodipi.service.migrate import upgrade
from chaodipi.service.store import ensure_tenant, store_batch
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

LEDGER = "ledger.jsonl"
REPORTS = "reports"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_LINE = json.JSONEncoder(ensure_ascii=False).encode
"""A ledger line: ``json.dumps(…, ensure_ascii=False)`` without making an encoder per row."""


def is_database_url(dest: str) -> bool:
    """Whether ``--out`` names a database (``scheme://…``) rather than a folder."""
    return "://" in dest


class _Ledger:
    """The done-ledger: rows appended as JSON Lines, flushed per chunk."""

    def __init__(self, path: Path, resume: bool) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not resume:
            path.unlink(missing_ok=True)
        self._file: IO[str] | None = None

    def rows(self) -> Iterator[Row]:
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    yield Row.from_json(json.loads(line))
                except (json.JSONDecodeError, TypeError):
                    continue  # the line being written when the process was killed

    def append(self, rows: Sequence[Row]) -> None:
        if self._file is None:
            self._file = self.path.open("a", encoding="utf-8")
            self._end_torn_line()
        self._file.write("".join(_LINE(r.to_json()) + "\n" for r in rows))
        self._file.flush()

    def _end_torn_line(self) -> None:
        # A kill mid-write leaves a line without its newline: start ours on a fresh line.
        assert self._file is not None
        if self.path.stat().st_size:
            with self.path.open("rb") as f:
                f.seek(-1, 2)
                if f.read(1) != b"\n":
                    self._file.write("\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def report_path(unit: str, record_id: str) -> Path:
    """Where a unit's report goes inside ``reports/``: a folder per source file, a file per record.

    The folder is the file's name plus a hash of its full path (two folders may hold ``a.pb``).
    """
    path, _, index = unit.rpartition("#")
    folder = f"{_UNSAFE.sub('_', Path(path).name)}-{hashlib.sha1(path.encode()).hexdigest()[:8]}"
    name = f"{index}-{_UNSAFE.sub('_', record_id)[:80]}" if record_id else index
    return Path(folder) / f"{name}.json"


class JsonFolderSink:
    """One JSON report per record under ``DEST/reports/``, the ledger in ``DEST/ledger.jsonl``."""

    mode: Mode = "json"

    def __init__(self, folder: Path, *, resume: bool = False) -> None:
        self.folder = folder
        self.reports = folder / REPORTS
        self.ledger = _Ledger(folder / LEDGER, resume)
        self._made: set[Path] = set()

    def done(self) -> Iterator[Row]:
        """The ledger's rows."""
        return self.ledger.rows()

    def write(self, results: Sequence[Result]) -> None:
        """Write each report (unreadable units have none), then the ledger lines."""
        for result in results:
            if result.report:
                path = self.reports / report_path(result.row.unit, result.row.record_id)
                if path.parent not in self._made:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    self._made.add(path.parent)
                path.write_bytes(result.report)
        self.ledger.append([r.row for r in results])

    def close(self) -> None:
        """Close the ledger."""
        self.ledger.close()

    def describe(self) -> str:
        """The folder."""
        return str(self.folder)


FRAMED = "reports.pb"
_HAS_REPORT = frozenset({"audited", "rejected"})  # units whose audit produced a report


def _frame_end(f: IO[bytes]) -> int | None:
    """Skip one frame of a length-delimited stream; its end offset, or None at a torn frame."""
    value = shift = 0
    while True:
        byte = f.read(1)
        if not byte:
            return None
        value |= (byte[0] & 0x7F) << shift
        shift += 7
        if not byte[0] & 0x80:
            break
    start = f.tell()
    f.seek(0, 2)
    if f.tell() < start + value:
        return None
    f.seek(start + value)
    return start + value


class FramedSink:
    """Every report in one length-delimited stream, ``DEST/reports.pb`` (``AuditRecordResponse``
    frames: ``importers.protobin`` and any protobuf library read them), the ledger in
    ``DEST/ledger.jsonl``: the reports are the ledger's rows with a report (``audited`` and
    ``rejected``), in the ledger's order (``framed_reports`` pairs them).

    A chunk's reports are written before its ledger lines, so after a stop or a crash the stream
    may only hold more than the ledger: on ``resume`` it is cut back to the ledger's rows, in
    O(frames) reads of the lengths.
    """

    mode: Mode = "framed"

    def __init__(self, folder: Path, *, resume: bool = False) -> None:
        self.folder = folder
        self.ledger = _Ledger(folder / LEDGER, resume)
        self.path = folder / FRAMED
        if not resume:
            self.path.unlink(missing_ok=True)
        elif self.path.exists():
            self._cut_back(sum(r.status in _HAS_REPORT for r in self.ledger.rows()))
        self._file: IO[bytes] | None = None

    def _cut_back(self, frames: int) -> None:
        with self.path.open("r+b") as f:
            end = 0
            for _ in range(frames):
                found = _frame_end(f)
                if found is None:
                    break
                end = found
            f.truncate(end)

    def done(self) -> Iterator[Row]:
        """The ledger's rows."""
        return self.ledger.rows()

    def write(self, results: Sequence[Result]) -> None:
        """Append the chunk's report frames, then its ledger lines."""
        if self._file is None:
            self._file = self.path.open("ab")
        self._file.write(b"".join(r.report for r in results if r.row.status in _HAS_REPORT))
        self._file.flush()
        self.ledger.append([r.row for r in results])

    def close(self) -> None:
        """Close the stream and the ledger."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.ledger.close()

    def describe(self) -> str:
        """The folder."""
        return str(self.folder)


def framed_reports(
    folder: Path,
) -> Iterator[tuple[Row, service_pb2.AuditRecordResponse | None]]:
    """Each ledger row of a ``FramedSink`` folder with its report (None: the unit has none)."""
    with (folder / FRAMED).open("rb") as f:
        for row in _Ledger(folder / LEDGER, resume=True).rows():
            if row.status not in _HAS_REPORT:
                yield row, None
                continue
            start = f.tell()
            end = _frame_end(f)
            assert end is not None, f"{folder / FRAMED}: fewer reports than the ledger"
            f.seek(start)
            data = f.read(end - start)
            yield row, service_pb2.AuditRecordResponse.FromString(frame_body(data))


def default_ledger(url: str, tenant: str) -> Path:
    """The ledger of a database run: ``$CHAODIPI_HOME/batch/<hash of URL and tenant>.jsonl``."""
    key = hashlib.sha256(f"{url}\0{tenant}".encode()).hexdigest()[:16]
    return data_dir() / "batch" / f"{key}.jsonl"


class DatabaseSink:
    """Stores audited records as the service does (``service.store.store_batch``: one
    transaction per chunk, duplicates by content stored once); records that cannot be replayed
    are not stored, as in an upload. The ledger is a file (``default_ledger`` unless given)."""

    mode: Mode = "proto"

    def __init__(
        self,
        url: str,
        *,
        tenant: str = "default",
        ledger: Path | None = None,
        resume: bool = False,
    ) -> None:
        self.url = url
        self.engine = make_engine(url)
        upgrade(self.engine)
        self.sessions = session_factory(self.engine)
        self.tenant_id = ensure_tenant(self.sessions, tenant)
        self.ledger = _Ledger(ledger or default_ledger(url, tenant), resume)
        self.stored = self.duplicates = 0

    def done(self) -> Iterator[Row]:
        """The ledger's rows."""
        return self.ledger.rows()

    def write(self, results: Sequence[Result]) -> None:
        """Store the chunk's records in one transaction, then append the ledger lines."""
        items = []
        for index, result in enumerate(results):
            if not result.record:
                continue
            record = records_pb2.RecordFile.FromString(result.record)
            request = service_pb2.UploadRecordsRequest(client_ref=result.row.unit)
            report: audit_pb2.AuditReport | audit_pb2.MatchAuditReport
            if record.WhichOneof("record") == "game":
                request.game.CopyFrom(record.game)
                report = audit_pb2.AuditReport.FromString(result.report)
            else:
                request.match.CopyFrom(record.match)
                report = audit_pb2.MatchAuditReport.FromString(result.report)
            items.append(make_audited(index, request, report))
        if items:
            for summary in store_batch(self.sessions, self.tenant_id, items):
                if summary.status == service_pb2.RecordSummary.STATUS_STORED:
                    self.stored += 1
                elif summary.status == service_pb2.RecordSummary.STATUS_DUPLICATE:
                    self.duplicates += 1
        self.ledger.append([r.row for r in results])

    def close(self) -> None:
        """Close the ledger and the connection pool."""
        self.ledger.close()
        self.engine.dispose()

    def describe(self) -> str:
        """The database (password hidden) and what was stored there."""
        shown = self.engine.url.render_as_string(hide_password=True)
        return f"{shown} ({self.stored:,} stored, {self.duplicates:,} already there)"
