"""Verdicts: whether a lead or a follow may be played and, when not, why (R-LEAD, R-FOLLOW).

A ``Verdict`` says it as a referee would: ``code`` for machines (the auditor's finding
code), ``rule`` (the ruling id, R-…, in docs/rules.md), ``reason`` (a sentence), and,
for a follow, ``alternative``: one legal play from the same hand.

>>> LEGAL.legal, Verdict("FOLLOW_REVOKE", "held 2 ♥ but played 1 ♥", Cards("H3 H9")).rule
(True, 'R-FOLLOW-SUIT')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from chaodipi.engine.cards import Cards

RULES: Final = {
    "LEAD_EMPTY": "R-LEAD",
    "CARDS_IMPOSSIBLE": "R-HELD",
    "LEAD_MIXED_SUITS": "R-LEAD",
    "SPLIT_INVALID": "R-UNIT-SPLIT",
    "THROW_NOT_ALLOWED": "R-LEAD",
    "WRONG_CARD_COUNT": "R-FOLLOW",
    "FOLLOW_REVOKE": "R-FOLLOW-SUIT",
    "FOLLOW_SHAPE": "R-FOLLOW-SHAPE",
}
"""The ruling each verdict code enforces."""

NO_CARDS: Final = Cards()


@dataclass(frozen=True, slots=True)
class Verdict:
    """A play's verdict: legal, or why not (``code``, ``reason``) with a legal ``alternative``.

    ``code`` is empty for a legal play; otherwise one of ``RULES``: ``LEAD_EMPTY``,
    ``CARDS_IMPOSSIBLE`` (more copies of a card than the decks have),
    ``LEAD_MIXED_SUITS`` (not all one effective suit), ``SPLIT_INVALID`` (a declared split
    that does not fit), ``THROW_NOT_ALLOWED`` (several units where the ruleset has no
    throws), ``WRONG_CARD_COUNT``, ``FOLLOW_REVOKE`` (did not follow suit while
    able) or ``FOLLOW_SHAPE`` (did not play a tractor, triple or pair while able).
    """

    code: str
    reason: str
    alternative: Cards = NO_CARDS

    @property
    def legal(self) -> bool:
        return not self.code

    @property
    def rule(self) -> str:
        """The ruling id (R-…) the play breaks; empty when it is legal."""
        return RULES.get(self.code, "")

    def __str__(self) -> str:
        if self.legal:
            return "legal"
        text = f"{self.code} ({self.rule}): {self.reason}"
        return f"{text}; legal: {self.alternative}" if self.alternative else text


LEGAL: Final = Verdict("", "legal")
"""The verdict of every legal play (one shared value)."""
