"""Every planted fault is found with the right code and position, under every ruleset."""

from __future__ import annotations

import random

import pytest

from chaodipi.auditor import CODES, audit_game
from chaodipi.auditor.faults import PLANTERS, plant
from tests.auditor.conftest import RULESETS, hand

REQUIRED = [
    "DEAL_INVALID",
    "CARD_NOT_IN_HAND",
    "OUT_OF_TURN",
    "WRONG_CARD_COUNT",
    "BID_ILLEGAL",
    "KITTY_INVALID",
    "LEAD_MIXED_SUITS",
    "THROW_NOT_ENFORCED",
    "THROW_ENFORCED_WRONGLY",
    "FOLLOW_REVOKE",
    "FOLLOW_SHAPE",
    "TRICK_WINNER_MISMATCH",
    "TRICK_POINTS_MISMATCH",
    "PENALTY_MISMATCH",
    "KITTY_MISMATCH",
    "SCORE_MISMATCH",
    "LEVEL_MISMATCH",
    "DEALER_MISMATCH",
    "UNSUPPORTED",
]


def test_every_required_code_has_a_planter_and_a_catalogue_entry() -> None:
    assert set(REQUIRED) <= set(PLANTERS)
    assert set(PLANTERS) <= set(CODES)
    # Every code the auditor can report, not only the required ones, has a planted-fault test.
    assert set(CODES) - set(PLANTERS) == {"SPLIT_INVALID", "RECORD_INCOMPLETE"}


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("code", [*REQUIRED, "TRUMP_MISMATCH"])
def test_planted_fault_is_found_at_its_position(ruleset: str, code: str) -> None:
    found = 0
    for seed in range(12):
        # Later hands too: anhui's dealer is checked against the declaration there.
        record = hand(ruleset, seed, first_hand=seed % 2 == 0)
        planted = plant(record, code, random.Random(seed))
        if planted is None:
            continue
        faulty, label = planted
        report = audit_game(faulty)
        assert not report.rejections
        matches = [f for f in report.findings if label.matches(f)]
        assert matches, (label, [(f.code, f.position, f.message) for f in report.findings])
        assert matches[0].message
        assert matches[0].severity == CODES[code].severity
        found += 1
        if found == 3:
            break
    assert found, f"no generated {ruleset} hand had a place for {code}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_r_lead_a_throw_under_a_variant_without_throws_is_found(ruleset: str) -> None:
    for seed in range(20):
        planted = plant(hand(ruleset, seed), "THROW_NOT_ALLOWED", random.Random(seed))
        if planted is None:
            continue
        faulty, label = planted
        report = audit_game(faulty)
        assert not report.rejections
        found = [f for f in report.findings if label.matches(f)]
        assert found and found[0].severity == CODES["THROW_NOT_ALLOWED"].severity
        assert "has no throws" in found[0].message
        # The same hand with throws allowed has no such finding.
        assert "THROW_NOT_ALLOWED" not in {f.code for f in audit_game(hand(ruleset, seed)).findings}
        return
    pytest.fail(f"no throw in 20 generated {ruleset} hands")


def test_plant_leaves_the_original_untouched() -> None:
    record = hand("classic", 1)
    before = record.SerializeToString()
    assert plant(record, "OUT_OF_TURN", random.Random(0)) is not None
    assert record.SerializeToString() == before


def test_r_throw_check_unenforced_throw_names_who_beat_it() -> None:
    for seed in range(40):
        planted = plant(hand("classic", seed), "THROW_NOT_ENFORCED", random.Random(seed))
        if planted is None:
            continue
        faulty, label = planted
        finding = next(f for f in audit_game(faulty).findings if label.matches(f))
        evidence = finding.evidence
        assert evidence.beaten_by and evidence.forced_unit
        assert all(b.seat != label.seat for b in evidence.beaten_by)
        assert int(evidence.details["penalty_due"]) == 10 * len(
            faulty.tricks[label.trick or 0].plays[0].cards
        )
        return
    pytest.fail("no failed throw in 40 generated hands")


def test_r_follow_illegal_follow_carries_a_legal_alternative() -> None:
    planted = None
    for seed in range(20):
        planted = plant(hand("shuangsheng", seed), "FOLLOW_REVOKE", random.Random(seed))
        if planted:
            break
    assert planted is not None
    faulty, label = planted
    finding = next(f for f in audit_game(faulty).findings if label.matches(f))
    assert finding.evidence.legal_alternative
    assert "held" in finding.message or "play" in finding.message


def test_findings_catalogue_documents_every_code() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "findings.md").read_text()
    missing = [code for code in CODES if f"### `{code}`" not in text]
    assert missing == []
