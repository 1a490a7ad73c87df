"""Auditing a hand: replay it step by step and find every breach (the product's core job).

``audit_game`` never raises on a bad record: malformed fields reject it (the report's
``rejections`` name them), and every rule broken in a readable record is a finding. After
a breach the replay carries on with the cards as recorded, so later findings are still
found. The steps, each in its own module: ``deal``, ``bidding`` (and the kitty),
``tricks``, ``scoring`` (with ``claims``); ``match`` chains hands.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from chaodipi.auditor.bidding import BiddingOutcome, replay_bidding
from chaodipi.auditor.deal import check_deal
from chaodipi.auditor.findings import tally_findings
from chaodipi.auditor.reading import ReadHand, Violation, read_game, record_names
from chaodipi.auditor.scoring import score_hand
from chaodipi.auditor.state import Cleared, HandState
from chaodipi.auditor.tricks import play_tricks
from chaodipi.auditor.wire import PROTO_SUITS
from chaodipi.engine import RANK_LETTERS, Ruleset, Table
from chaodipi.v1 import audit_pb2, records_pb2


def replay_hand(
    read: ReadHand,
    *,
    steps: bool = False,
    hand_index: int | None = None,
    cleared: Cleared | None = None,
) -> audit_pb2.AuditReport:
    """The report of one readable hand: deal, bidding and kitty, tricks, score and claims.

    ``cleared`` carries a match's must-play history from hand to hand (R-LEVEL-MUST): the
    ranks each team cleared before, to which this hand adds the one it clears.
    """
    replay = HandState(read, steps=steps, hand_index=hand_index, cleared=cleared)
    if read.unsupported:
        # Rules no ruleset field models: any check could be a false finding, so none is made.
        replay.findings.record(
            "UNSUPPORTED", f"{read.unsupported}; nothing is checked", audit_pb2.PHASE_DEAL
        )
        return report_of(replay)
    check_deal(replay)
    replay.snapshot(audit_pb2.PHASE_DEAL)
    outcome = replay_bidding(replay)
    if outcome is not None:
        settle(replay, outcome)
        play_tricks(replay)
        score_hand(replay)
    if read.incomplete and not any(f.code == "RECORD_INCOMPLETE" for f in replay.findings.items):
        replay.findings.record("RECORD_INCOMPLETE", read.incomplete, audit_pb2.PHASE_SCORING)
    return report_of(replay)


def settle(replay: HandState, outcome: BiddingOutcome) -> None:
    """What the bidding settled, for the play: trump, dealer, the table of the hand."""
    trump = replay.computed.trump
    trump.level = RANK_LETTERS[outcome.level]
    trump.suit = PROTO_SUITS[outcome.trump]
    replay.computed.dealer = outcome.dealer
    replay.computed.overcall_count = outcome.overcalls
    replay.table = Table(replay.ruleset, outcome.level, outcome.trump)
    replay.dealer = outcome.dealer


def report_of(replay: HandState) -> audit_pb2.AuditReport:
    """The hand's report: what was computed, every finding (tallied), steps and notes."""
    report = replay.report
    report.ruleset = replay.ruleset.id
    # Most hands have no finding, step or note: an empty field is left as the fresh report
    # holds it (its counts 0), not extended by nothing.
    if replay.findings.items:
        report.findings.extend(replay.findings.items)
        tally_findings(report)
    if replay.steps:
        report.steps.extend(replay.steps)
    if replay.notes:
        report.notes.extend(replay.notes)
    return report


def rejected(
    record_id: str, ruleset: str, violations: Sequence[Violation]
) -> audit_pb2.AuditReport:
    """A report for a record that could not be replayed: its violations, nothing computed."""
    report = audit_pb2.AuditReport(record_id=record_id, ruleset=ruleset)
    for v in violations:
        report.rejections.add(field=v.field, description=v.description)
    return report


def audit_game(
    record: records_pb2.GameRecord | bytes,
    *,
    ruleset: Ruleset | None = None,
    steps: bool = False,
    hand_index: int | None = None,
) -> audit_pb2.AuditReport:
    """Audit one hand under its own ruleset (or ``ruleset``); never raises on a bad record.

    ``record``: a ``GameRecord``, or its encoding, which is read once (the cheaper: pass the
    bytes when they are at hand); bytes that do not parse are a report that rejects them.
    """
    return _audited(record, ruleset, steps, hand_index)[0]


def audit_encoded_game(
    data: bytes, *, ruleset: Ruleset | None = None
) -> tuple[audit_pb2.AuditReport, bool]:
    """``audit_game`` of a game's encoding, and whether its read vouches for the game's draw
    order, bids, kitty exchanges and tricks: each was read from its bytes as a canonical writer
    writes them, so every token in them is canonical and no field in them unknown
    (``ReadHand.canonical``; never for a record rejected). A reader of records that checked
    the rest of the game (``RECORD_FILE_READ``) need check nothing more of it.

    >>> from chaodipi.auditor.generate import generate_hand
    >>> report, vouched = audit_encoded_game(generate_hand("classic", seed=1).SerializeToString())
    >>> report.breaches, vouched
    (0, True)
    """
    return _audited(data, ruleset, False, None)


def _audited(
    record: records_pb2.GameRecord | bytes,
    ruleset: Ruleset | None,
    steps: bool,
    hand_index: int | None,
) -> tuple[audit_pb2.AuditReport, bool]:
    read = read_game(record, ruleset)
    if isinstance(read, list):
        return rejected(*record_names(record), read), False
    report = replay_hand(read, steps=steps, hand_index=hand_index)
    report.record_id = read.record_id
    return report, read.canonical


def audit_steps(record: records_pb2.GameRecord) -> Iterator[audit_pb2.StepState]:
    """The state after every step of a hand, for a replay viewer."""
    yield from audit_game(record, steps=True).steps
