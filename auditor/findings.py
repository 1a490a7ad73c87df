"""Collecting findings: each with its code's severity and ruling, where it stands, and evidence.

>>> findings = Findings(hand_index=2)
>>> found = findings.record("OUT_OF_TURN", "seat 3 led", audit_pb2.PHASE_PLAY, seat=3, trick=4)
>>> found.rule_id, describe_position(found.position)
('R-WIN', 'hand 3, trick 5, seat 3')
"""

from __future__ import annotations

from chaodipi.auditor.codes import CODES
from chaodipi.v1 import audit_pb2


class Findings:
    """The findings of one hand (or of a match's chain of hands), in the order they are made.

    Every finding of a hand carries its ``hand_index`` when the hand is one of a match.
    """

    items: list[audit_pb2.Finding]
    hand_index: int | None

    def __init__(self, hand_index: int | None = None) -> None:
        self.items = []
        self.hand_index = hand_index

    def __len__(self) -> int:
        return len(self.items)

    def record(
        self,
        code: str,
        message: str,
        phase: audit_pb2.Phase.ValueType,
        *,
        seat: int | None = None,
        trick: int | None = None,
        play: int | None = None,
        bid_index: int | None = None,
        exchange_index: int | None = None,
        hand_index: int | None = None,
        expected: str = "",
        recorded: str = "",
        rule: str = "",
    ) -> audit_pb2.Finding:
        """Record a finding of ``code`` (its ruling unless ``rule`` names another) and return it.

        ``hand_index`` places it in another hand than this collector's.
        """
        info = CODES[code]
        finding = audit_pb2.Finding(
            code=code, severity=info.severity, message=message, rule_id=rule or info.rule
        )
        pos = finding.position
        pos.phase = phase
        for name, value in (
            ("seat", seat),
            ("trick", trick),
            ("play", play),
            ("bid_index", bid_index),
            ("exchange_index", exchange_index),
            ("hand_index", self.hand_index if hand_index is None else hand_index),
        ):
            if value is not None:
                setattr(pos, name, value)
        finding.evidence.expected = expected
        finding.evidence.recorded = recorded
        self.items.append(finding)
        return finding


def count_cards(n: int) -> str:
    """``1 card``, ``3 cards``: a count of cards in a finding's message."""
    return f"{n} card" if n == 1 else f"{n} cards"


def describe_position(position: audit_pb2.Position) -> str:
    """Where a finding stands: ``hand 2, trick 5, play 3, seat 1`` (1-based), or "" if nowhere."""
    pos = position
    places = (
        ("hand", pos.hand_index if pos.HasField("hand_index") else None),
        ("bid", pos.bid_index if pos.HasField("bid_index") else None),
        ("kitty exchange", pos.exchange_index if pos.HasField("exchange_index") else None),
        ("trick", pos.trick if pos.HasField("trick") else None),
        ("play", pos.play if pos.HasField("play") else None),
    )
    parts = [f"{label} {index + 1}" for label, index in places if index is not None]
    if pos.HasField("seat"):
        parts.append(f"seat {pos.seat}")
    return ", ".join(parts)


def tally_findings(report: audit_pb2.AuditReport) -> None:
    """Count the report's findings by severity."""
    counts = {
        audit_pb2.SEVERITY_BREACH: 0,
        audit_pb2.SEVERITY_SCORING_ERROR: 0,
        audit_pb2.SEVERITY_WARNING: 0,
    }
    for finding in report.findings:
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
    report.breaches = counts[audit_pb2.SEVERITY_BREACH]
    report.scoring_errors = counts[audit_pb2.SEVERITY_SCORING_ERROR]
    report.warnings = counts[audit_pb2.SEVERITY_WARNING]
