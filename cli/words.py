"""The command line's words for what the reports hold: suits, results, severities, places.

Never the protobuf's enum names (``SUIT_DIAMONDS``, ``OUTCOME_DEALER_UP``):

>>> from chaodipi.v1 import records_pb2
>>> describe_level_result(records_pb2.LevelResult(outcome=records_pb2.OUTCOME_DEALER_UP, levels=2))
'dealer side up 2 (D+2)'
>>> describe_trump(records_pb2.Trump(level="6", suit=records_pb2.SUIT_DIAMONDS))
'level 6, trump ♦'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chaodipi.auditor import describe_position
from chaodipi.v1 import audit_pb2, records_pb2

if TYPE_CHECKING:
    from rich.text import Text

SUITS = {
    records_pb2.SUIT_SPADES: "♠",
    records_pb2.SUIT_HEARTS: "♥",
    records_pb2.SUIT_CLUBS: "♣",
    records_pb2.SUIT_DIAMONDS: "♦",
    records_pb2.SUIT_NO_TRUMP: "no trump",
}
PHASES = {
    audit_pb2.PHASE_DEAL: "deal",
    audit_pb2.PHASE_BIDDING: "bidding",
    audit_pb2.PHASE_KITTY: "kitty",
    audit_pb2.PHASE_PLAY: "play",
    audit_pb2.PHASE_SCORING: "scoring",
    audit_pb2.PHASE_MATCH: "match",
}
_SEVERITIES = {
    audit_pb2.SEVERITY_BREACH: ("breach", "red"),
    audit_pb2.SEVERITY_SCORING_ERROR: ("scoring error", "yellow"),
    audit_pb2.SEVERITY_WARNING: ("warning", "cyan"),
}


def describe_level_result(result: records_pb2.LevelResult) -> str:
    """A hand's level change in words, with the table's short form."""
    n = result.levels
    outcome = result.outcome
    if outcome == records_pb2.OUTCOME_DEALER_UP:
        return f"dealer side up {n} (D+{n})" if n else "dealer side keeps the deal (D+0)"
    if outcome == records_pb2.OUTCOME_SWAP:
        return "defenders take the deal"
    if outcome == records_pb2.OUTCOME_DEFENDERS_UP:
        return f"defenders take the deal and go up {n} (A+{n})"
    if outcome == records_pb2.OUTCOME_DEALER_WINS_MATCH:
        return "dealer side wins the match"
    if outcome == records_pb2.OUTCOME_DEFENDERS_WIN_MATCH:
        return "defenders win the match"
    return "no result"


def describe_trump(trump: records_pb2.Trump) -> str:
    """``level 6, trump ♦``; ``no trump yet`` before any declaration."""
    if not trump.level:
        return "no trump yet"
    return f"level {trump.level}, trump {SUITS.get(trump.suit, '?')}"


def severity_text(severity: audit_pb2.Severity.ValueType) -> Text:
    """A finding's severity in words, coloured."""
    from rich.text import Text

    word, colour = _SEVERITIES.get(severity, ("?", "default"))
    return Text(word, style=colour)


def position_text(position: audit_pb2.Position) -> str:
    """Where a finding stands (``trick 5, play 3, seat 1``), else its phase (``scoring``)."""
    return describe_position(position) or PHASES.get(position.phase, "")
