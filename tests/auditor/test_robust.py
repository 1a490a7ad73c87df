"""The auditor never raises on a bad record: malformed fields are rejections, the rest findings."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chaodipi.auditor import audit_game, audit_match
from chaodipi.v1 import records_pb2
from tests.auditor.conftest import RULESETS, hand, match
from tests.fuzz.mutators import REAL_DAMAGE, damage


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from(RULESETS),
    seed=st.integers(0, 5),
    seed_of_damage=st.integers(0, 2**32),
    times=st.integers(1, 6),
)
def test_audit_never_raises_on_damaged_hands(
    ruleset: str, seed: int, seed_of_damage: int, times: int
) -> None:
    record = hand(ruleset, seed, first_hand=seed % 2 == 0)
    damage(record, random.Random(seed_of_damage), times, REAL_DAMAGE)
    report = audit_game(record)
    assert report.rejections or report.computed.HasField("trump") or report.findings


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2), seed_of_damage=st.integers(0, 2**32))
def test_audit_never_raises_on_damaged_matches(seed: int, seed_of_damage: int) -> None:
    record = match("classic", seed)
    rng = random.Random(seed_of_damage)
    for game in record.hands:
        damage(game, rng, 2, REAL_DAMAGE)
    if record.hands and rng.random() < 0.5:
        del record.hands[rng.randrange(len(record.hands))]
    report = audit_match(record)
    assert len(report.hands) == len(record.hands)


def test_bad_token_is_a_rejection_naming_the_field() -> None:
    record = hand("classic", 1)
    record.tricks[3].plays[1].cards[0] = "X9"
    report = audit_game(record)
    assert [(v.field, v.description[:24]) for v in report.rejections] == [
        ("tricks[3].plays[1].cards[0]", "bad card token 'X9': exp")
    ]
    assert not report.findings


def test_unknown_ruleset_and_missing_deal_are_rejections() -> None:
    record = hand("classic", 1)
    record.ruleset = "poker"
    assert [v.field for v in audit_game(record).rejections] == ["ruleset"]
    empty = records_pb2.GameRecord(record_id="x", ruleset="classic")
    assert [v.field for v in audit_game(empty).rejections] == ["deal"]


def test_lowercase_tokens_are_read() -> None:
    record = hand("anhui", 2)
    clean = audit_game(record)
    for trick in record.tricks:
        for play in trick.plays:
            play.cards[:] = [c.lower() for c in play.cards]
    assert audit_game(record).computed == clean.computed
