"""The live referee agrees with the audit: every verdict on every preset, clean and faulty hands.

A generated hand's events go through ``Referee`` one by one. Every finding a verdict gives is
one the audit of the whole record makes (same code, position and message); the fault planted
in a hand is refused at its event; a refused event is then replaced by the clean hand's, and
the finished hand is the clean record with the same audit.
"""

from __future__ import annotations

import random

import pytest

from chaodipi.auditor import audit_game
from chaodipi.auditor.faults import PLANTERS, plant
from chaodipi.auditor.referee import Referee, events_of
from chaodipi.engine import PRESETS
from chaodipi.v1 import audit_pb2, records_pb2, referee_pb2
from tests.auditor.conftest import hand
from tests.auditor.scripted import scripted_hand

LEGAL = referee_pb2.VERDICT_RESULT_LEGAL
ILLEGAL = referee_pb2.VERDICT_RESULT_ILLEGAL
THROW_FAILED = referee_pb2.VERDICT_RESULT_THROW_FAILED
REFUSED = {ILLEGAL, THROW_FAILED}
SEEDS = range(4)


def _key(finding: audit_pb2.Finding) -> bytes:
    return finding.SerializeToString(deterministic=True)


def _play_clean(
    record: records_pb2.GameRecord,
) -> tuple[Referee, list[referee_pb2.RefereeResponse]]:
    referee = Referee()
    return referee, [referee.handle(event) for event in events_of(record)]


@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_a_clean_hand_is_legal_event_by_event_and_ends_as_its_audit(ruleset: str) -> None:
    for seed in SEEDS:
        record = hand(ruleset, seed, first_hand=seed % 2 == 0)
        report = audit_game(record)
        referee, responses = _play_clean(record)
        refused = [i for i, r in enumerate(responses) if r.verdict.result != LEGAL]
        # Up to the first refusal the referee and the audit replayed the same events.
        agreed = responses[: refused[0] + 1] if refused else responses
        found = [f for r in agreed for f in r.verdict.findings]
        assert {_key(f) for f in found} <= {_key(f) for f in report.findings}
        if report.breaches:
            # A hand its generator did not keep legal (godot's throws): refused where the
            # audit finds its first breach, with that finding.
            first = next(f for f in report.findings if f.severity == audit_pb2.SEVERITY_BREACH)
            refused = next(r for r in responses if r.verdict.result != LEGAL)
            assert _key(first) in {_key(f) for f in refused.verdict.findings}
            continue
        assert [r.verdict.result for r in responses] == [LEGAL] * len(responses)
        tricks = [r.trick_result for r in responses if r.HasField("trick_result")]
        assert tricks == list(report.computed.tricks)
        assert responses[-1].hand_result.computed == report.computed
        assert referee.finished and referee.record == record
        assert referee.report == report
        assert all(not r.HasField("next_seat") for r in responses[-1:])


def _codes_planted() -> list[str]:
    return sorted(PLANTERS)


@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_every_planted_fault_gets_the_audits_verdict(ruleset: str) -> None:
    seen: set[str] = set()
    legal_hands = 0
    for seed in SEEDS:
        clean = hand(ruleset, seed, first_hand=seed % 2 == 0)
        # godot's generator leads throws its rules forbid: such a hand is refused there first.
        legal = not audit_game(clean).breaches
        legal_hands += legal
        for code in _codes_planted():
            planted = plant(clean, code, random.Random(seed))
            if planted is None:
                continue
            faulty, label = planted
            if _referee_agrees(clean, faulty, label) and legal:
                seen.add(code)
    if legal_hands < 2:
        return
    # Every fault a table can make at an event is refused at it; claims are the referee's own.
    events = {
        "DEAL_INVALID", "CARD_NOT_IN_HAND", "OUT_OF_TURN", "WRONG_CARD_COUNT", "BID_ILLEGAL",
        "LEAD_MIXED_SUITS", "FOLLOW_REVOKE",
    }  # fmt: skip
    assert events <= seen, events - seen


def _referee_agrees(clean: records_pb2.GameRecord, faulty: records_pb2.GameRecord, label) -> bool:  # type: ignore[no-untyped-def]
    """Feed the faulty hand; check its verdicts against its audit; replace a refused event by
    the clean one. True when the planted fault was refused at its event."""
    audit = {_key(f) for f in audit_game(faulty).findings}
    clean_events = list(events_of(clean))
    faulty_events = list(events_of(faulty))
    same_length = len(clean_events) == len(faulty_events)
    referee = Referee()
    diverged = False
    refused_at_fault = False
    for i, event in enumerate(faulty_events):
        response = referee.handle(event)
        verdict = response.verdict
        if not diverged:
            # Up to the first refusal the referee and the audit replayed the same events.
            assert {_key(f) for f in verdict.findings} <= audit, (label, verdict)
        if verdict.result == THROW_FAILED:
            found = [f for f in audit_game(faulty).findings if f.code == "THROW_NOT_ENFORCED"]
            assert found and label.code == "THROW_NOT_ENFORCED", (label, verdict)
            forced = [list(unit.cards) for unit in verdict.throw_failure.forced_units]
            assert list(found[0].evidence.forced_unit) in forced
            assert str(verdict.throw_failure.penalty) == found[0].evidence.details["penalty_due"]
            refused_at_fault = refused_at_fault or not diverged
        elif verdict.result == ILLEGAL:
            assert verdict.rule_id and verdict.reason and verdict.code
            if not diverged and any(label.matches(f) for f in verdict.findings):
                refused_at_fault = True
        elif verdict.result != LEGAL:
            # The hand cannot be refereed (UNSUPPORTED): the audit says so too.
            assert referee.stage.value == "ended"
            assert label.code == "UNSUPPORTED", (label, verdict)
            return True
        if verdict.result in REFUSED:
            diverged = True
            if not same_length:
                continue
            again = referee.handle(clean_events[i])
            if clean_events[i] == event or again.verdict.result != LEGAL:
                return refused_at_fault  # the clean hand's event does not fit the faulty table
    # The clean hand at the faulty hand's table (its metadata, context and rules).
    want = records_pb2.GameRecord()
    want.CopyFrom(clean)
    want.metadata.update(faulty.metadata)
    want.context.CopyFrom(faulty.context)
    want.ruleset_overrides_json = faulty.ruleset_overrides_json
    if referee.finished and (same_length or not diverged):
        # Claims are not events: the referee announces the clean hand's results.
        assert referee.record == want
        assert referee.report == audit_game(want)
    return refused_at_fault


@pytest.mark.parametrize("ruleset", ["classic", "shuangsheng"])
def test_a_refused_event_leaves_the_table_as_it_was(ruleset: str) -> None:
    record = hand(ruleset, 1)
    events = list(events_of(record))
    referee = Referee()
    for event in events[:-1]:
        referee.handle(event)
    before = referee.record.SerializeToString()
    last = events[-1]
    wrong = referee_pb2.RefereeRequest()
    wrong.CopyFrom(last)
    wrong.play.play.seat = (last.play.play.seat + 1) % 4
    assert referee.handle(wrong).verdict.code == "OUT_OF_TURN"
    assert referee.record.SerializeToString() == before
    final = referee.handle(last)
    assert final.verdict.result == LEGAL and final.HasField("hand_result")
    assert referee.record == record


def test_a_failed_throw_is_refused_then_its_forced_unit_accepted() -> None:
    for ruleset in sorted(PRESETS):
        for seed in range(12):
            record = hand(ruleset, seed)
            failed = [t for t, trick in enumerate(record.tricks) if trick.plays[0].attempted]
            if failed:
                break
        else:
            continue
        t = failed[0]
        referee = Referee()
        for event in events_of(record):
            play = event.play.play if event.HasField("play") else None
            if play is not None and play.attempted and play == record.tricks[t].plays[0]:
                throw = referee_pb2.RefereeRequest()
                throw.play.play.seat = play.seat
                throw.play.play.cards.extend(play.attempted)
                verdict = referee.handle(throw).verdict
                assert verdict.result == THROW_FAILED, verdict
                assert verdict.rule_id.startswith("R-THROW")
                units = [list(u.cards) for u in verdict.throw_failure.forced_units]
                assert sorted(play.cards) in [sorted(u) for u in units]
                forced = referee_pb2.RefereeRequest()
                forced.play.play.seat = play.seat
                forced.play.play.cards.extend(play.cards)
                response = referee.handle(forced)
                assert response.verdict.result == LEGAL, response.verdict
                continue
            assert referee.handle(event).verdict.result == LEGAL
        assert referee.record == record
        return
    pytest.fail("no generated hand has a failed throw")


def _damaged(event: referee_pb2.RefereeRequest, rng: random.Random) -> referee_pb2.RefereeRequest:
    """A copy of ``event`` that can never be applied: no event, a seat out of range, a card
    that is no card, or the table opened or dealt again."""
    bad = referee_pb2.RefereeRequest()
    bad.CopyFrom(event)
    kind = bad.WhichOneof("event")
    choice = rng.randrange(4)
    if choice == 0 or kind == "open":
        bad.Clear()
        return bad
    if kind == "deal":
        return referee_pb2.RefereeRequest(open=referee_pb2.OpenTable(ruleset="classic"))
    if choice == 3:
        return referee_pb2.RefereeRequest(deal=referee_pb2.Deal())
    target = {"bid": bad.bid, "kitty_exchange": bad.kitty_exchange, "play": bad.play.play}[kind]
    if choice == 1:
        target.seat = rng.choice([-1, 4, 99])
    else:
        cards = target.buried if kind == "kitty_exchange" else target.cards
        cards.append(rng.choice(["ZZ", "S1", "", "S 2"]))
    return bad


@pytest.mark.parametrize("ruleset", ["classic", "changshu", "botzone"])
def test_hostile_events_never_raise_nor_change_the_table(ruleset: str) -> None:
    """Malformed and out-of-phase events between a hand's own are each refused with a verdict
    and leave nothing behind: the hand ends as its record, audited as its record."""
    rng = random.Random(ruleset)
    refused = {referee_pb2.VERDICT_RESULT_INVALID, referee_pb2.VERDICT_RESULT_OUT_OF_PHASE}
    for seed in range(3):
        record = hand(ruleset, seed)
        referee = Referee()
        for event in events_of(record):
            for _ in range(rng.randrange(3)):
                noise = _damaged(event, rng)
                assert referee.handle(noise).verdict.result in refused, noise
            assert referee.handle(event).verdict.result == LEGAL
        assert referee.finished and referee.record == record
        assert referee.report == audit_game(record)


@pytest.mark.parametrize("forced", ["C2", "H2", "LJ"])
def test_r_throw_force_tie_the_referee_lists_every_tied_unit_and_accepts_any(forced: str) -> None:
    # Seat 0 throws ♣2 ♥2 LJ under ♠ trump at level 2: seat 1's ♠2 beats both level singles
    # and its big joker the LJ; ♣2 and ♥2 tie for the smallest beaten unit.
    record = scripted_hand(
        "classic",
        ["C2 H2 LJ", "S2 BJ", "", ""],
        bids=[(1, "declare", "S2")],
        trump="S",
        levels=("2", "2"),
        leads={0: ("C2", "C2 H2 LJ")},
    )
    referee = Referee()
    events = list(events_of(record))
    first_play = next(i for i, e in enumerate(events) if e.HasField("play"))
    for event in events[:first_play]:
        assert referee.handle(event).verdict.result == LEGAL
    throw = referee_pb2.RefereeRequest()
    throw.play.play.cards.extend(["C2", "H2", "LJ"])
    failed = referee.handle(throw)
    assert failed.verdict.result == THROW_FAILED and failed.next_seat == 0
    assert failed.verdict.rule_id == "R-THROW-FORCE"
    assert [list(u.cards) for u in failed.verdict.throw_failure.forced_units] == [["H2"], ["C2"]]
    assert failed.verdict.throw_failure.penalty == 30
    bid = referee.handle(events[first_play - 2])
    assert bid.verdict.result == referee_pb2.VERDICT_RESULT_OUT_OF_PHASE and bid.next_seat == 0
    play = referee_pb2.RefereeRequest()
    play.play.play.cards.append(forced)
    verdict = referee.handle(play).verdict
    if forced == "LJ":
        assert verdict.result == ILLEGAL and verdict.code == "THROW_ENFORCED_WRONGLY"
        return
    assert verdict.result == LEGAL, verdict
    assert list(referee.record.tricks[0].plays[0].attempted) == ["C2", "H2", "LJ"]
