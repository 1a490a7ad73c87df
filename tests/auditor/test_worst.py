"""The slowest record bench/worst.py found and issue 13's hostile ones, audited (R-HELD).

Their cost is measured by ``bench/worst.py`` (docs/benchmarks.md), not here: these tests pin
what the audit finds in them, so a change in their verdicts is seen.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from chaodipi.auditor import audit_game
from chaodipi.importers.notation import read_text
from chaodipi.v1 import audit_pb2

FIXTURES = Path(__file__).parent.parent / "fixtures" / "worst"


def _audit(name: str) -> audit_pb2.AuditReport:
    (record,) = read_text((FIXTURES / name).read_text(encoding="utf-8"), name, strict=True).records
    return audit_game(record.game)


def _codes(report: audit_pb2.AuditReport) -> dict[str, int]:
    assert not report.rejections
    return dict(Counter(f.code for f in report.findings))


def test_r_held_a_throw_of_triples_with_two_decks_is_not_in_hand() -> None:
    # Issue 13 (a): a 28-card throw of triples, pairs and singles up the trumps, answered by
    # ♠A 28 times. No deck holds these cards: no split, throw or winner search runs on them.
    report = _audit("hostile-throw.txt")
    assert _codes(report) == {
        "CARD_NOT_IN_HAND": 4,
        "TRICK_POINTS_MISMATCH": 1,
        "RECORD_INCOMPLETE": 1,
    }
    lead = report.findings[0]
    assert (lead.code, lead.position.play) == ("CARD_NOT_IN_HAND", 0)
    assert lead.message.startswith("seat 2 led ♦3 ♦3 ♦3")
    # Nothing played can win against cards that cannot exist: the table's claim decides.
    assert report.computed.tricks[0].winner == 2


def test_r_held_changshu_leads_of_four_kinds_eleven_times_are_not_in_hand() -> None:
    # Issue 13 (b): 45 tricks, each play 45 cards of ♣7 ♣8 ♣9 ♣10 (three decks hold 3 of each).
    report = _audit("hostile-changshu.txt")
    assert _codes(report) == {"CARD_NOT_IN_HAND": 180, "RECORD_INCOMPLETE": 1}
    assert len(report.computed.tricks) == 45


def test_ruleset_override_of_a_one_card_hand_is_a_rejection_naming_the_field() -> None:
    # Issue 13 (c): {"hand_size": 1, "kitty_size": 158} makes 162 cards but no game.
    report = _audit("hostile-override.txt")
    assert [(v.field, v.description) for v in report.rejections] == [
        (
            "ruleset_overrides_json",
            "ruleset.hand_size: 1 is not within 33-40 with 3 decks "
            "(four hands and a kitty of 1 to a hand's size)",
        )
    ]


def test_the_slowest_record_found_audits_clean() -> None:
    # bench/worst.py's slowest (changshu): a 30-card trump tractor of triples led, answered
    # by 30 cards of each other seat, then a single and an 8-card throw that stands.
    report = _audit("worst.txt")
    assert _codes(report) == {}
    assert [(t.leader, t.winner, t.throw_stood) for t in report.computed.tricks] == [
        (0, 0, False),
        (0, 3, False),
        (3, 3, True),
    ]
    assert report.computed.defenders_points == 285
