"""Clean generated hands and matches of every ruleset audit clean (no findings at all)."""

from __future__ import annotations

import pytest

from chaodipi.auditor import audit_game, audit_match, audit_steps
from tests.auditor.conftest import RULESETS, hand, match


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("first_hand", [True, False])
def test_generated_hand_audits_clean(ruleset: str, seed: int, first_hand: bool) -> None:
    record = hand(ruleset, seed, first_hand=first_hand)
    report = audit_game(record)
    assert not report.rejections
    assert [f.message for f in report.findings] == []
    assert report.computed.HasField("level_result")
    # The generator writes the table's claims from its own play: the audit agrees with them.
    assert record.claim.HasField("defenders_points")
    assert report.computed.defenders_points == record.claim.defenders_points


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("seed", range(3))
def test_generated_match_audits_clean(ruleset: str, seed: int) -> None:
    report = audit_match(match(ruleset, seed))
    assert not report.rejections
    assert [f.message for f in report.findings] == []
    for hand_report in report.hands:
        assert [f.message for f in hand_report.findings] == []


def test_steps_walk_every_play_and_end_empty() -> None:
    record = hand("classic", 3)
    steps = list(audit_steps(record))
    plays = sum(len(t.plays) for t in record.tricks)
    play_steps = [s for s in steps if s.HasField("play")]
    assert len(play_steps) == plays
    assert [s.index for s in steps] == list(range(len(steps)))
    final = steps[-1]
    assert all(not h.cards for h in final.hands)
    assert final.defenders_points_so_far == audit_game(record).computed.defenders_points


def test_replay_computes_points_that_add_up() -> None:
    record = hand("changshu", 2)
    computed = audit_game(record).computed
    assert sum(t.points for t in computed.tricks) + computed.kitty_points == 300
    dealer_team = computed.dealer % 2
    won = sum(t.points for t in computed.tricks if t.winner % 2 != dealer_team)
    assert computed.defenders_points >= won + sum(t.penalty for t in computed.tricks)
