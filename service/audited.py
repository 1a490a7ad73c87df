"""An uploaded record with its audit: what ``service.ingest`` hands to ``service.store``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from chaodipi.service.limits import bounded, echo, id_problem
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2


@dataclass(slots=True)
class Audited:
    """One uploaded record with its audit, ready to store (or rejected)."""

    index: int
    client_ref: str
    game: records_pb2.GameRecord | None = None
    match: records_pb2.MatchRecord | None = None
    content_hash: str = ""
    report: audit_pb2.AuditReport | None = None
    match_report: audit_pb2.MatchAuditReport | None = None
    violations: list[audit_pb2.FieldViolation] = field(default_factory=list)

    @property
    def record_id(self) -> str:
        """The record's own id."""
        if self.game is not None:
            return self.game.record_id
        return self.match.match_id if self.match is not None else ""


def content_hash(record: records_pb2.GameRecord | records_pb2.MatchRecord) -> str:
    """SHA-256 of the deterministic serialization, prefixed by kind (a hand is never a match)."""
    kind = b"game\0" if isinstance(record, records_pb2.GameRecord) else b"match\0"
    return hashlib.sha256(kind + record.SerializeToString(deterministic=True)).hexdigest()


def fill_from_match(match: records_pb2.MatchRecord) -> list[records_pb2.GameRecord]:
    """The match's hands as stand-alone records: players and ruleset taken from the match where
    the hand leaves them empty, so each stored hand replays (and shows names) on its own."""
    hands = []
    for hand in match.hands:
        filled = records_pb2.GameRecord()
        filled.CopyFrom(hand)
        if not filled.players:
            filled.players.extend(match.players)
        # audit_match plays every hand under the match's ruleset; the stored hand says so.
        filled.ruleset = match.ruleset
        filled.ruleset_overrides_json = match.ruleset_overrides_json
        hands.append(filled)
    return hands


def rejected_summary(item: Audited) -> service_pb2.RecordSummary:
    """The summary of a record that was not stored: the bad fields in ``violations`` and in one
    line in ``error`` (at most ``MAX_VIOLATIONS`` of them; ``error`` counts the rest), its record
    id cut short when it is not a valid id."""
    shown = bounded(item.violations)
    record_id = item.record_id
    return service_pb2.RecordSummary(
        index=item.index,
        client_ref=item.client_ref,
        record_id=echo(record_id) if id_problem(record_id, required=False) else record_id,
        status=service_pb2.RecordSummary.STATUS_REJECTED,
        error="; ".join(f"{v.field}: {v.description}" for v in shown.violations)
        + shown.count_text(),
        violations=shown.violations,
    )
