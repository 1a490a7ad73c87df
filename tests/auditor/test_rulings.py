"""Rulings as the audit of a whole hand applies them, on hands scripted around one case."""

from __future__ import annotations

import dataclasses

import pytest

from chaodipi.auditor import audit_game
from chaodipi.engine import ForcedTie, get_ruleset
from chaodipi.engine.presets import CLASSIC
from chaodipi.v1 import records_pb2
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


SPADE_BIDS = [(1, "declare", "S2")]
"""Seat 1 declares ♠ at level 2."""


def _tie_hand(ruleset: str, attempt: str, forced: str) -> records_pb2.GameRecord:
    # Seat 0 throws ♣2 ♥2 LJ under ♠ trump at level 2: seat 1's ♠2 beats both level singles and
    # its big joker the LJ. ♣2 and ♥2 tie for the smallest beaten unit.
    return scripted_hand(
        ruleset,
        ["C2 H2 LJ", "S2 BJ", "", ""],
        bids=SPADE_BIDS,
        trump="S",
        levels=("2", "2"),
        leads={0: (forced, attempt)},
    )


@pytest.mark.parametrize("forced", ["C2", "H2"])
def test_r_throw_force_tie_the_audit_accepts_every_tied_unit(forced: str) -> None:
    record = _tie_hand("classic", "C2 H2 LJ", forced)
    report = audit_game(record)
    assert [f.message for f in report.findings] == []
    assert list(report.computed.tricks[0].forced_unit) == [forced]
    assert report.computed.tricks[0].penalty == 30


def test_r_throw_force_tie_a_unit_outside_the_tied_set_is_enforced_wrongly() -> None:
    report = audit_game(_tie_hand("classic", "C2 H2 LJ", "LJ"))
    wrong = [f for f in report.findings if f.code == "THROW_ENFORCED_WRONGLY"]
    assert len(wrong) == 1
    assert wrong[0].rule_id == "R-THROW-FORCE"
    assert "the rule forces one of ♥2, ♣2 (tied)" in wrong[0].message
    assert wrong[0].evidence.details["forced_options"] == "H2 | C2"


def test_r_throw_force_tie_a_variant_naming_its_pick_flags_the_other() -> None:
    # A variant that forces the tied unit listed first in the attempt (the 80-fen program's).
    variant = dataclasses.replace(
        CLASSIC,
        id="first-listed",
        throw=dataclasses.replace(CLASSIC.throw, forced_tie=ForcedTie.ATTEMPT_ORDER),
    )
    picked = audit_game(_tie_hand("classic", "C2 H2 LJ", "C2"), ruleset=variant)
    assert [f.message for f in picked.findings] == []
    other = audit_game(_tie_hand("classic", "C2 H2 LJ", "H2"), ruleset=variant)
    wrong = [f for f in other.findings if f.code == "THROW_ENFORCED_WRONGLY"]
    assert [f.rule_id for f in wrong] == ["R-THROW-FORCE-TIE"]
    assert "first-listed forces the tied unit whose top card comes first" in wrong[0].message
