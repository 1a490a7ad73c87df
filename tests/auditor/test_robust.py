"""The auditor never raises on a bad record: malformed fields are rejections, the rest findings."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import audit_game, audit_match
from chaodipi.v1 import records_pb2
from engine.cards import KINDS, card_token
from tests.auditor.conftest import RULESETS, hand, match

TOKENS = [card_token(k) for k in range(KINDS)]


def _mutate(record: records_pb2.GameRecord, rng: random.Random, times: int) -> None:
    """Random damage of the kinds real logs show: wrong cards, lost plays, wrong seats."""
    for _ in range(times):
        what = rng.randrange(9)
        tricks = record.tricks
        if what == 0 and tricks:
            play = rng.choice(rng.choice(tricks).plays)
            if play.cards:
                play.cards[rng.randrange(len(play.cards))] = rng.choice(TOKENS)
        elif what == 1 and tricks:
            trick = rng.choice(tricks)
            if trick.plays:
                del trick.plays[rng.randrange(len(trick.plays))]
        elif what == 2 and tricks:
            rng.choice(tricks).leader = rng.randrange(4)
        elif what == 3 and tricks:
            del tricks[rng.randrange(len(tricks)) :]
        elif what == 4 and tricks:
            plays = rng.choice(tricks).plays
            if plays:
                rng.choice(plays).attempted.extend(rng.sample(TOKENS, rng.randrange(1, 4)))
        elif what == 5 and record.bids:
            bid = rng.choice(record.bids)
            bid.kind = rng.randrange(1, 6)  # type: ignore[assignment]
            bid.cards[:] = rng.sample(TOKENS, rng.randrange(0, 3))
        elif what == 6 and record.kitty_exchanges:
            del record.kitty_exchanges[rng.randrange(len(record.kitty_exchanges))]
        elif what == 7:
            record.context.team0_level = rng.choice("23456789TJQKA")
            record.context.first_hand = rng.random() < 0.5
            if rng.random() < 0.5:
                record.context.dealer = rng.randrange(4)
        elif what == 8 and tricks:
            trick = rng.choice(tricks)
            trick.declared_split.add().cards.extend(rng.sample(TOKENS, 2))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from(RULESETS),
    seed=st.integers(0, 5),
    damage=st.integers(0, 2**32),
    times=st.integers(1, 6),
)
def test_audit_never_raises_on_damaged_hands(
    ruleset: str, seed: int, damage: int, times: int
) -> None:
    record = hand(ruleset, seed, first_hand=seed % 2 == 0)
    _mutate(record, random.Random(damage), times)
    report = audit_game(record)
    assert report.rejections or report.computed.HasField("trump") or report.findings


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2), damage=st.integers(0, 2**32))
def test_audit_never_raises_on_damaged_matches(seed: int, damage: int) -> None:
    record = match("classic", seed)
    rng = random.Random(damage)
    for game in record.hands:
        _mutate(game, rng, 2)
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
