"""``chaodipi export``: audited records as notation, each finding a comment where it happened."""

from __future__ import annotations

from collections.abc import Iterable

from chaodipi.auditor import audit_game, audit_match, describe_position
from chaodipi.engine.ruleset import Ruleset
from chaodipi.importers.notation import Anchor, format_game, format_match
from chaodipi.v1 import audit_pb2, records_pb2


def _where(position: audit_pb2.Position) -> str:
    where = describe_position(position)
    return f" ({where})" if where else ""


def finding_text(finding: audit_pb2.Finding) -> str:
    """One line for a finding: severity, code, place, message, evidence and ruling."""
    severity = audit_pb2.Severity.Name(finding.severity).removeprefix("SEVERITY_")
    text = f"{severity} {finding.code}{_where(finding.position)}: {finding.message}"
    evidence = finding.evidence
    if evidence.expected or evidence.recorded:
        text += f" (expected {evidence.expected or '-'}; recorded {evidence.recorded or '-'})"
    return text + (f" [{finding.rule_id}]" if finding.rule_id else "")


def _anchor(position: audit_pb2.Position) -> Anchor:
    if position.HasField("trick"):
        return ("trick", position.trick)
    if position.HasField("bid_index"):
        return ("bid", position.bid_index)
    if position.HasField("exchange_index"):
        return ("bury", position.exchange_index)
    if position.phase == audit_pb2.PHASE_DEAL:
        return ("deal", 0)
    if position.phase in (audit_pb2.PHASE_PLAY, audit_pb2.PHASE_SCORING):
        return ("end", 0)
    return ("header", 0)


def _count(n: int, word: str, plural: str = "") -> str:
    """``1 breach``, ``2 breaches``, ``0 warnings``."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def game_notes(report: audit_pb2.AuditReport) -> dict[Anchor, list[str]]:
    """Comment lines for a written game from its audit report."""
    notes: dict[Anchor, list[str]] = {
        ("header", 0): [
            f"audit under {report.ruleset!r}: "
            + ", ".join(
                [
                    _count(report.breaches, "breach", "breaches"),
                    _count(report.scoring_errors, "scoring error"),
                    _count(report.warnings, "warning"),
                ]
            )
        ]
    }
    for violation in report.rejections:
        notes[("header", 0)].append(f"REJECTED {violation.field}: {violation.description}")
    for finding in report.findings:
        notes.setdefault(_anchor(finding.position), []).append(finding_text(finding))
    return notes


def export_text(records: Iterable[records_pb2.RecordFile], ruleset: Ruleset | None = None) -> str:
    """Audit every record (under its own ruleset, or ``ruleset``) and write it as annotated text."""
    blocks = ["# chaodipi notation v1 (docs/notation.md), with audit findings as comments"]
    for record in records:
        if record.HasField("match"):
            report = audit_match(record.match, ruleset=ruleset)
            hand_notes = [game_notes(hand) for hand in report.hands]
            match_notes = [f"REJECTED {v.field}: {v.description}" for v in report.rejections]
            match_notes += [
                f"hand {f.position.hand_index + 1}: {finding_text(f)}"
                if f.position.HasField("hand_index")
                else finding_text(f)
                for f in report.findings
            ]
            blocks.append("\n".join(format_match(record.match, hand_notes, match_notes)))
        else:
            notes = game_notes(audit_game(record.game, ruleset=ruleset))
            blocks.append("\n".join(format_game(record.game, notes)))
    return "\n\n".join(blocks) + "\n"
