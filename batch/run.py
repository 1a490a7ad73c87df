"""The backend-neutral pipeline: units in chunks → workers audit them → one sink writes them.

Workers get a chunk of units (bytes in) and return small ``Row``s with the reports serialized
(bytes out), so neither side holds more than the chunks in flight: memory stays flat whatever
the corpus size. ``audit_chunk`` is the one function every backend runs.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Literal, Protocol

from google.protobuf.message import DecodeError

from chaodipi.auditor import audit_game, audit_match
from chaodipi.auditor.analysis import analyse_game
from chaodipi.auditor.jsondict import message_dict
from chaodipi.auditor.wire import encode_varint, read_varint, sole_game
from chaodipi.batch.row import Row
from chaodipi.batch.sources import Unit, expand, units
from chaodipi.batch.summary import Summary
from chaodipi.v1 import audit_pb2, records_pb2

Mode = Literal["json", "framed", "proto"]
"""What workers return for a report: JSON text (a folder of reports), a length-delimited
``AuditRecordResponse`` frame (one stream of reports) or protobuf with the record (a database)."""

DEFAULT_CHUNK = 64
"""Units per chunk: large enough that a task's overhead is small next to ~3 ms per hand."""


@dataclass(frozen=True, slots=True)
class Result:
    """A row with its report (JSON or protobuf bytes, per mode) and, for a database, the record."""

    row: Row
    report: bytes = b""
    record: bytes = b""

    def __reduce__(self) -> tuple[type[Result], tuple[Row, bytes, bytes]]:
        # As Row's: its values, not the dataclass's state functions (a result a record).
        return Result, (self.row, self.report, self.record)


def _tally(
    report: audit_pb2.AuditReport,
    players: Sequence[records_pb2.Player],
    codes: Counter[str],
    seats: dict[str, list[int]],
) -> None:
    for finding in report.findings:
        codes[finding.code] += 1
    ids = [p.id or p.display_name for p in players]
    for pid in ids:
        if pid:
            seats.setdefault(pid, [0, 0])[0] += 1
    for finding in report.findings:
        pos = finding.position
        breach = finding.severity == audit_pb2.SEVERITY_BREACH and pos.HasField("seat")
        if breach and 0 <= pos.seat < len(ids) and ids[pos.seat]:
            seats[ids[pos.seat]][1] += 1


@dataclass
class _Endgames:
    """A unit's hands analysed at their end (``--analyze``): counts and points lost by player."""

    analysed: int = 0
    not_analysed: Counter[str] = field(default_factory=Counter)
    players: dict[str, list[int]] = field(default_factory=dict)

    def add(
        self, record: records_pb2.GameRecord, players: Sequence[records_pb2.Player], window: int
    ) -> None:
        analysis = analyse_game(record, window=window or None)
        if not analysis.analysed:
            self.not_analysed[analysis.why] += 1
            return
        self.analysed += 1
        ids = [p.id or p.display_name for p in players]
        for seat, lost in enumerate(analysis.lost_by_seat()):
            if seat < len(ids) and ids[seat]:
                tally = self.players.setdefault(ids[seat], [0, 0])
                tally[0] += 1
                tally[1] += lost


_NOT_ANALYSED = _Endgames()
"""The endgames of every unit when none is analysed (``window`` None): never added to."""


def _audit_unit(unit: Unit, mode: Mode, window: int | None) -> Result:
    unit_id, digest, payload, problem = unit
    if problem:
        return Result(Row(unit_id, digest, "unreadable", error=problem))
    body = frame_body(payload)
    record = _parse(body)
    if isinstance(record, str):
        return Result(Row(unit_id, digest, "unreadable", error=record))
    codes: Counter[str] = Counter()
    seats: dict[str, list[int]] = {}
    endgames = _NOT_ANALYSED if window is None else _Endgames()
    report: audit_pb2.AuditReport | audit_pb2.MatchAuditReport
    if record.WhichOneof("record") == "game":
        game = record.game
        # The game's own bytes when the frame holds it alone (read once, not re-encoded).
        report = audit_game(sole_game(body) or game)
        kind, record_id, ruleset, hands = "game", game.record_id, game.ruleset, 1
        rejections = list(report.rejections)
        counts = (report.breaches, report.scoring_errors, report.warnings)
        if not rejections:
            _tally(report, game.players, codes, seats)
            if window is not None:
                endgames.add(game, game.players, window)
    else:
        match = record.match
        report = audit_match(match)
        kind, record_id, ruleset, hands = "match", match.match_id, match.ruleset, len(match.hands)
        rejections = list(report.rejections) + [v for h in report.hands for v in h.rejections]
        for hand_record, hand in zip(match.hands, report.hands, strict=False):
            _tally(hand, hand_record.players or match.players, codes, seats)
            if window is not None and not hand.rejections:
                endgames.add(hand_record, hand_record.players or match.players, window)
        codes.update(f.code for f in report.findings)
        severities = Counter(f.severity for f in report.findings)
        counts = (
            sum(h.breaches for h in report.hands) + severities[audit_pb2.SEVERITY_BREACH],
            sum(h.scoring_errors for h in report.hands)
            + severities[audit_pb2.SEVERITY_SCORING_ERROR],
            sum(h.warnings for h in report.hands) + severities[audit_pb2.SEVERITY_WARNING],
        )
    row = Row(
        unit_id,
        digest,
        "rejected" if rejections else "audited",
        kind,
        record_id,
        ruleset,
        hands,
        *counts,
        codes=dict(sorted(codes.items())),
        players=dict(sorted(seats.items())),
        error="; ".join(f"{v.field}: {v.description}" for v in rejections),
        analysed=endgames.analysed,
        not_analysed=dict(sorted(endgames.not_analysed.items())),
        endgame=dict(sorted(endgames.players.items())),
    )
    if mode == "json":
        return Result(row, _report_json(report))
    if mode == "framed":
        return Result(row, _report_frame(report))
    return Result(
        row,
        report.SerializeToString(deterministic=True),
        record.SerializeToString(deterministic=True),
    )


def frame_body(frame: bytes) -> bytes:
    """A frame's bytes after its length prefix (a frame the sources or a sink framed)."""
    prefix = read_varint(frame)
    assert prefix is not None, "a frame begins with its length"
    return frame[prefix[1] :]


def _parse(body: bytes) -> records_pb2.RecordFile | str:
    """A frame's record, or why it has none. Parsed as the service parses an upload: card
    tokens and the like are left to the auditor, which rejects a record it cannot replay."""
    try:
        record = records_pb2.RecordFile.FromString(body)
    except DecodeError as exc:
        return f"not a protobuf RecordFile: {exc}"
    if record.WhichOneof("record") is None:
        return "the RecordFile holds neither a game nor a match"
    return record


def _report_json(report: audit_pb2.AuditReport | audit_pb2.MatchAuditReport) -> bytes:
    return json.dumps(message_dict(report), indent=1, ensure_ascii=False).encode()


_REPORT_TAG = b"\x0a"  # AuditRecordResponse.report: field 1, length-delimited
_MATCH_REPORT_TAG = b"\x12"  # AuditRecordResponse.match_report: field 2, length-delimited


def _report_frame(report: audit_pb2.AuditReport | audit_pb2.MatchAuditReport) -> bytes:
    """The report as one frame of a length-delimited stream of ``AuditRecordResponse``s, built
    around its serialized bytes (no copy of the message into a wrapper)."""
    body = report.SerializeToString(deterministic=True)
    tag = _REPORT_TAG if isinstance(report, audit_pb2.AuditReport) else _MATCH_REPORT_TAG
    inner = tag + encode_varint(len(body)) + body
    return encode_varint(len(inner)) + inner


def _guarded(unit: Unit, mode: Mode, window: int | None) -> Result:
    try:
        return _audit_unit(unit, mode, window)
    except Exception as exc:  # the auditor never raises on data: this is a bug, seen per record
        # One bad record must not stop a corpus of thousands, nor lose the rest of its chunk.
        return Result(Row(unit[0], unit[1], "failed", error=f"{type(exc).__name__}: {exc}"))


def audit_chunk(chunk: Sequence[Unit], mode: Mode, window: int | None) -> list[Result]:
    """Audit a chunk of units (in a worker: a pool process or a Ray task); never raises.

    Unless ``window`` is None, each hand audited without rejections also has its last
    ``window`` tricks (0: its ruleset's default window) analysed by the endgame solver
    (``chaodipi.auditor.analysis``), into the row.
    """
    return [_guarded(unit, mode, window) for unit in chunk]


class Backend(Protocol):
    """Runs ``audit_chunk`` over chunks with at most ``window`` chunks in flight."""

    name: str
    workers: int

    def map(
        self, chunks: Iterable[list[Unit]], mode: Mode, window: int | None = None
    ) -> Iterator[list[Result]]:
        """Results chunk by chunk, in completion order; pulls chunks only as slots free up
        (``window``: tricks analysed at each hand's end, None for none; see ``audit_chunk``)."""
        ...

    def close(self) -> None:
        """Release the workers (and the Ray connection this backend opened)."""
        ...


class Sink(Protocol):
    """The single writer: reports and the done-ledger."""

    mode: Mode

    def done(self) -> Iterator[Row]:
        """Rows of the units already done (the ledger), for ``--resume``."""
        ...

    def write(self, results: Sequence[Result]) -> None:
        """Store a chunk of results, then record them as done."""
        ...

    def close(self) -> None:
        """Flush and close the ledger and any connection."""
        ...

    def describe(self) -> str:
        """Where the reports went, for the summary."""
        ...


class Control:
    """Stops a running batch: no new chunks are submitted; in-flight ones finish and are written."""

    def __init__(self) -> None:
        self.stopped = False

    def stop(self) -> None:
        """Ask the batch to stop after the work in flight (safe from a signal handler)."""
        self.stopped = True


def _chunks(stream: Iterator[Unit], size: int, control: Control) -> Iterator[list[Unit]]:
    while not control.stopped:
        chunk = list(islice(stream, size))
        if not chunk:
            return
        yield chunk


def run_batch(
    sources: Iterable[str],
    sink: Sink,
    backend: Backend,
    *,
    chunk_size: int = DEFAULT_CHUNK,
    control: Control | None = None,
    on_chunk: Callable[[Summary], None] | None = None,
    exclude: Iterable[Path] = (),
    analyze: int | None = None,
) -> Summary:
    """Audit every record in ``sources`` into ``sink`` and return the summary.

    Units the sink's ledger already holds (same id and digest; a sink opened with ``resume``
    keeps its ledger) are skipped and counted in the summary as earlier work. ``on_chunk`` runs
    after each chunk is written (the progress bar, or a test stopping the run through
    ``control``). The sink is closed on return, on a stop and on an exception, so its ledger
    always matches what it wrote. Unless ``analyze`` is None, that many tricks are analysed at
    each hand's end (0: each ruleset's default window; ``audit_chunk``); the summary then
    counts the hands analysed and the points players lost.
    """
    control = control or Control()
    summary = Summary(backend=backend.name, workers=backend.workers)
    done: set[tuple[str, str]] = set()
    for row in sink.done():
        if row.status == "failed":
            continue  # an auditor bug: try again (the auditor may have been fixed since)
        done.add((row.unit, row.digest))
        summary.add(row, new=False)
    start = time.perf_counter()
    try:
        todo = (u for u in units(expand(sources, exclude=exclude)) if (u[0], u[1]) not in done)
        chunks = _chunks(todo, chunk_size, control)
        for results in backend.map(chunks, sink.mode, analyze):
            sink.write(results)
            for result in results:
                summary.add(result.row, new=True)
            summary.elapsed = time.perf_counter() - start
            if on_chunk is not None:
                on_chunk(summary)
    finally:
        summary.elapsed = time.perf_counter() - start
        summary.interrupted = control.stopped
        summary.destination = sink.describe()
        sink.close()
    return summary
