"""Rulings as the audit of a whole hand applies them, on hands scripted around one case."""

from __future__ import annotations

from chaodipi.auditor import audit_game
from chaodipi.engine import get_ruleset
from tests.auditor.scripted import scripted_hand

NO_TRUMP_BIDS = [(2, "declare", "D6"), (1, "overcall", "BJ BJ", "NT")]
"""Seat 2 declares ♦, seat 1 overcalls with the big jokers and names no-trump (level 6)."""


def test_r_unit_nt_a_tractor_lead_is_no_failed_throw_in_the_audit() -> None:
    # Seat 0 leads ♣6 ♣6 LJ LJ in no-trump; seat 1 holds the big jokers, which beat each pair.
    record = scripted_hand(
        "classic",
        ["C6 C6 LJ LJ", "BJ BJ", "D6", ""],
        bids=NO_TRUMP_BIDS,
        trump="NT",
        leads={0: ("C6 C6 LJ LJ", "")},
    )
    report = audit_game(record)
    assert [f.code for f in report.findings] == []
    first = report.computed.tricks[0]
    assert (first.throw_attempted, first.penalty) == (False, 0)
    # The Botzone judger's rules link only LJ LJ BJ BJ: there it is a throw that fails.
    botzone = audit_game(record, ruleset=get_ruleset("botzone"))
    assert "THROW_NOT_ENFORCED" in [f.code for f in botzone.findings]
