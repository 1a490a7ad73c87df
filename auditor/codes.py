"""The catalogue of finding codes: stable names, default severity and the ruling each enforces."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from chaodipi.v1 import audit_pb2

BREACH: Final = audit_pb2.SEVERITY_BREACH
SCORING: Final = audit_pb2.SEVERITY_SCORING_ERROR
WARNING: Final = audit_pb2.SEVERITY_WARNING


@dataclass(frozen=True, slots=True)
class Code:
    """One finding code: what it means, how severe, which ruling (R-…) it checks."""

    name: str
    severity: audit_pb2.Severity.ValueType
    rule: str
    meaning: str


CODES: Final[dict[str, Code]] = {
    c.name: c
    for c in (
        Code(
            "DEAL_INVALID",
            BREACH,
            "R-DEAL",
            "the deal is not the ruleset's deck in its hand and kitty sizes",
        ),
        Code(
            "CARD_NOT_IN_HAND",
            BREACH,
            "R-HELD",
            "a card played, shown or buried was not in that hand",
        ),
        Code("OUT_OF_TURN", BREACH, "R-WIN", "a seat led or played out of turn"),
        Code(
            "WRONG_CARD_COUNT",
            BREACH,
            "R-FOLLOW",
            "a follow had not as many cards as the lead, or a hand did not end empty",
        ),
        Code(
            "BID_ILLEGAL",
            BREACH,
            "R-BID",
            "a declaration, lock, overcall or 炒底 the rules do not allow",
        ),
        Code(
            "KITTY_INVALID",
            BREACH,
            "R-BID",
            "a kitty pick-up or bury that does not fit the kitty or the hand",
        ),
        Code("LEAD_MIXED_SUITS", BREACH, "R-LEAD", "a lead not all of one effective suit"),
        Code(
            "THROW_NOT_ALLOWED",
            BREACH,
            "R-LEAD",
            "a lead of several units where the ruleset has no throws",
        ),
        Code(
            "THROW_NOT_ENFORCED",
            BREACH,
            "R-THROW-CHECK",
            "a throw that could be beaten was let stand",
        ),
        Code(
            "THROW_ENFORCED_WRONGLY",
            BREACH,
            "R-THROW-FORCE",
            "the table forced a throw that stood, or forced the wrong unit",
        ),
        Code("FOLLOW_REVOKE", BREACH, "R-FOLLOW-SUIT", "did not follow suit while able"),
        Code(
            "FOLLOW_SHAPE",
            BREACH,
            "R-FOLLOW-SHAPE",
            "did not play a pair, triple or tractor while able",
        ),
        Code(
            "TRICK_WINNER_MISMATCH",
            SCORING,
            "R-WIN",
            "the claimed winner of a trick is not the winner",
        ),
        Code(
            "TRICK_POINTS_MISMATCH", SCORING, "R-SCORE", "the claimed points of a trick are wrong"
        ),
        Code(
            "PENALTY_MISMATCH",
            SCORING,
            "R-THROW-PENALTY",
            "the claimed throw penalty, or the claimed stake units of failed throws, is wrong",
        ),
        Code(
            "KITTY_MISMATCH", SCORING, "R-KITTY", "the claimed kitty multiplier or bonus is wrong"
        ),
        Code("SCORE_MISMATCH", SCORING, "R-SCORE", "the claimed defenders' total is wrong"),
        Code(
            "LEVEL_MISMATCH",
            SCORING,
            "R-LEVEL",
            "the claimed level change, match points, or a match's levels are wrong",
        ),
        Code(
            "TRUMP_MISMATCH", SCORING, "R-BID", "the claimed trump is not the one the bidding made"
        ),
        Code(
            "DEALER_MISMATCH", SCORING, "R-MATCH-DEALER", "the claimed or recorded dealer is wrong"
        ),
        Code("UNSUPPORTED", WARNING, "R-BID", "the record needs a rule the ruleset leaves open"),
        Code(
            "SPLIT_INVALID", WARNING, "R-UNIT-SPLIT", "a declared split that does not fit the lead"
        ),
        Code(
            "RECORD_INCOMPLETE",
            WARNING,
            "R-SCORE",
            "the record stops before the hand is played out",
        ),
    )
}
