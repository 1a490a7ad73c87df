"""Uploaded files: read by ``importers``, audited and stored by ``service.ingest``, for the tenant
and database of the service's read model.

A file that cannot be read is reported by name with the reason; the records of the other files
(and the readable records of a partly bad file) are still stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from chaodipi import importers
from chaodipi.dashboard.i18n import Lang, t
from chaodipi.service.ingest import ingest_records
from chaodipi.service.readmodel import ReadModel
from chaodipi.v1 import records_pb2, service_pb2

STATUS = {
    service_pb2.RecordSummary.STATUS_STORED: "stored",
    service_pb2.RecordSummary.STATUS_DUPLICATE: "duplicate",
    service_pb2.RecordSummary.STATUS_REJECTED: "rejected",
    service_pb2.RecordSummary.STATUS_CONFLICT: "conflict",
}


FORMAT_KEYS = {
    "text": "upload.format_text",
    "pb": "upload.format_pb",
    "json": "upload.format_json",
    "eighty": "upload.format_eighty",
    "botzone": "upload.format_botzone",
    "godot": "upload.format_godot",
}
"""The catalogue key describing each format ``importers`` reads (``importers.FORMATS``)."""


def formats_text(lang: Lang) -> str:
    """Every format an upload may be in, in words, in the importers' order."""
    separator = "；" if lang == "zh" else "; "
    return separator.join(t(lang, FORMAT_KEYS[name]) for name in importers.FORMATS)


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """One record of an upload and what happened to it."""

    file: str
    record_id: str
    status: str
    game_ids: tuple[str, ...]
    breaches: int
    scoring_errors: int
    warnings: int
    codes: tuple[str, ...]
    error: str


@dataclass(slots=True)
class UploadOutcome:
    """The upload's records and the problems of the files (``file: where: what``)."""

    records: list[StoredRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        """How many records ended with ``status`` (stored, duplicate, rejected or conflict)."""
        return sum(1 for r in self.records if r.status == status)


def ingest_files(model: ReadModel, files: Sequence[tuple[str, bytes]]) -> UploadOutcome:
    """Read, audit and store ``(name, content)`` files where ``model`` reads (its database and
    tenant); one outcome for all of them."""
    outcome = UploadOutcome()
    records: list[records_pb2.RecordFile] = []
    names: list[str] = []
    for name, data in files:
        try:
            result = importers.load_bytes(data, name)
        except ValueError as exc:
            outcome.problems.append(f"{name}: {exc}")
            continue
        outcome.problems.extend(str(p) for p in result.errors)
        outcome.notes.extend(f"{name}: {note}" for note in result.notes)
        if not result.records and not result.errors:
            outcome.problems.append(f"{name}: no records found")
        records.extend(result.records)
        names.extend(name for _ in result.records)
    if not records:
        return outcome
    summaries = ingest_records(model.sessions, model.tenant_id, records)
    for name, summary in zip(names, summaries, strict=True):
        # Summaries name games "games/{id}"; the dashboard links by id.
        stored = list(summary.hand_games) or ([summary.game] if summary.game else [])
        games = tuple(game.partition("/")[2] for game in stored)
        outcome.records.append(
            StoredRecord(
                file=name,
                record_id=summary.record_id,
                status=STATUS.get(summary.status, "unknown"),
                game_ids=games,
                breaches=summary.breaches,
                scoring_errors=summary.scoring_errors,
                warnings=summary.warnings,
                codes=tuple(summary.finding_codes),
                error=summary.error,
            )
        )
    return outcome
