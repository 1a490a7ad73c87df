"""The replay model: moves through the steps, findings at their step, evidence marks, scores."""

import random
from datetime import UTC, datetime

import pytest

from chaodipi.auditor import audit_game
from chaodipi.auditor.faults import plant
from chaodipi.auditor.generate import generate_hand
from chaodipi.dashboard import explain
from chaodipi.dashboard.render import finding_html, info_html, table_html
from chaodipi.dashboard.stepping import ReplayView, card_tokens
from chaodipi.service.readmodel import StoredGame
from chaodipi.v1 import audit_pb2, records_pb2


def stored(record: records_pb2.GameRecord, report: audit_pb2.AuditReport) -> StoredGame:
    """A game as the read model gives it, without a database."""
    now = datetime(2026, 10, 1, tzinfo=UTC)
    return StoredGame("g1", "", now, now, None, None, record, report)


def view_of(code: str | None, ruleset: str = "classic") -> ReplayView:
    """A view of a generated hand, with a fault of ``code`` planted (None: clean)."""
    for seed in range(1, 30):
        record = generate_hand(ruleset, seed)
        if code is not None:
            planted = plant(record, code, random.Random(seed))
            if planted is None:
                continue
            record = planted[0]
        return ReplayView(stored(record, audit_game(record)).replay())
    raise AssertionError(f"no hand takes {code}")


def test_play_and_trick_moves() -> None:
    view = view_of(None)
    assert view.last > 50 and view.clamp(-3) == 0 and view.clamp(10**6) == view.last
    first_end = view.next_trick(0)
    assert view.steps[first_end].trick == 0 and not view.steps[first_end].HasField("play")
    second_end = view.next_trick(first_end)
    assert view.steps[second_end].trick == 1
    assert view.prev_trick(second_end) == first_end
    assert view.prev_trick(first_end) == 0
    assert view.trick_step(1) == second_end
    assert view.next_trick(view.last) == view.last


def test_clean_hand_has_no_findings_and_claims_match() -> None:
    view = view_of(None)
    assert view.findings == [] and view.next_finding(0) is None and not view.differs
    points = view.score_points()
    assert points[-1].trick == 0
    assert all(p.recorded == p.computed for p in points)


def test_revoke_shows_legal_alternative_at_its_step() -> None:
    view = view_of("FOLLOW_REVOKE")
    index = view.next_finding(0)
    assert index is not None
    at = next(
        i for i in view.step_finding_indexes(index) if view.findings[i].code == "FOLLOW_REVOKE"
    )
    finding = view.findings[at]
    seat = finding.position.seat
    assert view.steps[index].play == finding.position.play
    pos = finding.position
    name = view.seats[seat].name
    assert explain.position_text(view, finding, "en") == (
        f"play · Trick {pos.trick + 1}, play {pos.play + 1} of 4 · {name} (seat {seat})"
    )
    assert explain.position_text(view, finding, "zh") == (
        f"出牌 · 第 {pos.trick + 1} 轮，第 {pos.play + 1} 手 · {name}（座位 {seat}）"
    )
    marks = view.marks(index)[seat]
    assert marks.alt == list(finding.evidence.legal_alternative)
    assert marks.offence == card_tokens(finding.evidence.recorded)
    html = finding_html(view, at, view.trumps(index), "zh")
    assert "FOLLOW_REVOKE" in html and 'class="cdp-card' in html and " alt" in html
    assert "没有跟花色" in html and name in html
    assert "cdp-seat flagged" in table_html(view, index, "zh")
    assert view.prev_finding(index) is None or view.prev_finding(index) < index


def test_throw_not_enforced_marks_the_beating_cards() -> None:
    view = view_of("THROW_NOT_ENFORCED")
    index = next(
        i
        for i in view.finding_steps
        if any(f.code == "THROW_NOT_ENFORCED" for f in view.step_findings(i))
    )
    at = next(
        i for i in view.step_finding_indexes(index) if view.findings[i].code == "THROW_NOT_ENFORCED"
    )
    finding = view.findings[at]
    holders = {b.seat for b in finding.evidence.beaten_by}
    marks = view.marks(index)
    assert holders <= set(marks) and all(marks[s].beat for s in holders)
    html = table_html(view, index, "en")
    assert "cdp-card" in html and " beat" in html
    assert "beaten by" in finding_html(view, at, view.trumps(index), "en")
    assert "被压住" in finding_html(view, at, view.trumps(index), "zh")


def test_scoring_finding_differs_from_claims_on_the_chart() -> None:
    view = view_of("SCORE_MISMATCH")
    final = view.score_points()[-1]
    assert final.trick == 0 and final.recorded != final.computed
    last = view.finding_steps[-1]
    assert view.steps[last].phase == audit_pb2.PHASE_SCORING


def test_seats_sides_and_trumps() -> None:
    view = view_of(None)
    sides = [s.side for s in view.seats]
    assert sides.count("dealer") == 1 and sides.count("defender") == 2
    assert all(s.level for s in view.seats) and all(s.name for s in view.seats)
    assert view.trumps(view.next_trick(0))
    assert "bidding" in info_html(view, 0, "en") and "叫主" in info_html(view, 0, "zh")


def test_full_trick_shown_at_its_end_and_winner_known() -> None:
    view = view_of(None)
    end = view.next_trick(0)
    trick, plays = view.trick_plays(end)
    assert trick == 0 and len(plays) == 4
    assert view.trick_winner(end) == view.audit.computed.tricks[0].winner
    assert view.to_play(end) is None and view.to_play(end + 1) is not None


def test_stored_report_that_differs_is_flagged() -> None:
    record = generate_hand("classic", 3)
    stale = audit_pb2.AuditReport()
    stale.findings.add(code="SCORE_MISMATCH")
    assert ReplayView(stored(record, stale).replay()).differs


@pytest.mark.parametrize("text", ["", "3", "not cards"])
def test_card_tokens_of_non_card_evidence(text: str) -> None:
    assert card_tokens(text) == []
