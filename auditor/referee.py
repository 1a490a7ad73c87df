"""A live referee: one hand's table judged event by event with the audit's own steps.

A ``Referee`` takes the events of ``chaodipi.v1.RefereeRequest`` (open, deal, bid, kitty
exchange, play) one at a time and answers each with a ``Verdict``. Each event is read as
``read_game`` reads a record's field and replayed by the same step the audit runs on the
whole record (``deal.check_deal``, ``bidding.Bidding``, ``tricks.lead_trick`` /
``follow_trick`` / ``finish_trick``, ``scoring.score_hand``), so a verdict lists exactly the
findings the audit of the finished record makes at that event. An event with a breach is
refused: the table returns to where it was before it (PokerKit's way), and the record keeps
only the events applied. A lead that is a throw one seat can beat is refused with the forced
units (R-THROW-FORCE, every tied one: R-THROW-FORCE-TIE) and the penalty; the leader's next
play must be one of them, and the record then holds it as the table's enforced throw.

When the hand is played out, ``record`` is the hand's ``GameRecord`` with the table's claims
as the referee announced them (``claims.claim_computed``) and ``report`` its audit.

Cost of an event: one step of the replay plus a copy of the hand's state to return to
(four hands, the kitty, the computed tricks so far: O(cards of a hand + tricks)); the
bidding's close and the hand's score run once. Nothing is replayed twice.

>>> from chaodipi.auditor.generate import generate_hand
>>> record = generate_hand("classic", seed=1)
>>> referee = Referee()
>>> responses = [referee.handle(event) for event in events_of(record)]
>>> {r.verdict.result for r in responses} == {VERDICT_RESULT_LEGAL}
True
>>> referee.finished, referee.record == record, responses[-1].hand_result.computed.defenders_points
(True, True, -20)
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from chaodipi.auditor.audit import report_of, settle
from chaodipi.auditor.bidding import Bidding, begin_bidding
from chaodipi.auditor.claims import claim_computed
from chaodipi.auditor.deal import check_deal
from chaodipi.auditor.reading import (
    INCOMPLETE_KEY,
    UNSUPPORTED_KEY,
    Limits,
    ReadPlay,
    ReadTrick,
    Violation,
    read_bid,
    read_exchange,
    read_game,
    read_play,
    resolve_ruleset,
)
from chaodipi.auditor.scoring import score_hand
from chaodipi.auditor.state import HandState
from chaodipi.auditor.tricks import (
    finish_trick,
    follow_trick,
    lead_trick,
    write_trick_results,
)
from chaodipi.auditor.wire import TOKEN_KINDS, tokens
from chaodipi.engine import BidKind, Hand, Lead, Ruleset, Table
from chaodipi.v1 import audit_pb2, records_pb2, referee_pb2

LEGAL = VERDICT_RESULT_LEGAL = referee_pb2.VERDICT_RESULT_LEGAL
ILLEGAL = referee_pb2.VERDICT_RESULT_ILLEGAL
THROW_FAILED = referee_pb2.VERDICT_RESULT_THROW_FAILED
INVALID = referee_pb2.VERDICT_RESULT_INVALID
OUT_OF_PHASE = referee_pb2.VERDICT_RESULT_OUT_OF_PHASE
BREACH = audit_pb2.SEVERITY_BREACH
MAX_VIOLATIONS = 100
"""Field violations a verdict lists (the reason counts the rest)."""


class Stage(enum.Enum):
    """Where the table stands: what events it takes next."""

    CLOSED = "closed"  # open first
    OPEN = "open"  # the deal next
    BIDDING = "bidding"  # bids and kitty exchanges, until the first lead
    PLAYING = "playing"  # plays
    ENDED = "ended"  # the hand is over (or cannot be refereed): nothing more


@dataclass(frozen=True, slots=True)
class _Pending:
    """A failed throw: its leader, and the attempt (tokens) the forced play stands for."""

    seat: int
    attempted: tuple[str, ...]


@dataclass(slots=True)
class _Mark:
    """Everything an event may change, to return to when it is refused."""

    stage: Stage
    hands: list[list[int]]
    kitty: list[int]
    findings: int
    notes: int
    computed: audit_pb2.Computed
    defenders_points: int
    dealer: int
    last_lead: Lead | None
    trick_results: int
    throw_results: dict[int, tuple[int, bytes]]
    current: list[tuple[int, list[int]]]
    trick_index: int | None
    play_index: int | None
    bids: int
    exchanges: int
    tricks: int
    plays: int
    bidding: Bidding | None
    answered: Lead | None


class Referee:
    """One hand's table, refereed event by event (see the module's docstring).

    ``finished`` once the hand is played out: then ``record`` and ``report`` are the hand's.
    ``stage`` says what it takes next.
    """

    record: records_pb2.GameRecord
    report: audit_pb2.AuditReport | None
    stage: Stage
    ruleset: Ruleset | None
    replay: HandState | None
    bidding: Bidding | None
    answered: Lead | None
    pending: _Pending | None

    def __init__(self) -> None:
        self.record = records_pb2.GameRecord()
        self.report = None
        self.stage = Stage.CLOSED
        self.ruleset = None
        self.replay = None
        self.bidding = None
        self.answered = None
        self.pending = None

    @property
    def finished(self) -> bool:
        return self.report is not None

    def handle(self, request: referee_pb2.RefereeRequest) -> referee_pb2.RefereeResponse:
        """The response to one event (without its ``index``: the caller numbers the stream)."""
        kind = request.WhichOneof("event")
        if kind is None:
            return _response(
                _refused(
                    INVALID,
                    "the request holds no event: give open, deal, bid, kitty_exchange or play",
                )
            )
        if self.stage is Stage.ENDED:
            return _response(_refused(OUT_OF_PHASE, "the hand is over: open a new stream"))
        if kind == "open":
            return _response(self._open(request.open))
        if self.stage is Stage.CLOSED:
            return _response(_refused(OUT_OF_PHASE, "open the table first"))
        if kind == "deal":
            return _response(self._deal(request.deal))
        if self.stage is Stage.OPEN:
            return _response(_refused(OUT_OF_PHASE, "the deal comes first"))
        if self.pending is not None and kind != "play":
            seat = self.pending.seat
            return self._respond(
                _refused(OUT_OF_PHASE, f"seat {seat}'s throw failed: seat {seat} plays first")
            )
        if kind == "bid":
            return self._respond(self._bid(request.bid))
        if kind == "kitty_exchange":
            return self._respond(self._exchange(request.kitty_exchange))
        return self._play(request.play)

    # -- opening and dealing --------------------------------------------------------------

    def _open(self, table: referee_pb2.OpenTable) -> referee_pb2.Verdict:
        if self.stage is not Stage.CLOSED:
            return _refused(OUT_OF_PHASE, "the table is already open")
        header = records_pb2.GameRecord(
            record_id=table.record_id,
            ruleset=table.ruleset,
            ruleset_overrides_json=table.ruleset_overrides_json,
            players=table.players,
            context=table.context,
            played_at=table.played_at,
            venue=table.venue,
            metadata=table.metadata,
        )
        reserved = [k for k in (INCOMPLETE_KEY, UNSUPPORTED_KEY) if k in table.metadata]
        if reserved:
            why = "is set by importers of partial records; a refereed hand is whole"
            return _invalid([Violation(f"open.metadata[{k!r}]", why) for k in reserved])
        ruleset = resolve_ruleset(table.ruleset, table.ruleset_overrides_json, "open")
        if isinstance(ruleset, Violation):
            return _invalid([ruleset])
        read = read_game(header, ruleset)
        assert isinstance(read, list)  # no deal yet
        problems = [v for v in read if v.field != "deal"]
        if problems:
            return _invalid([Violation(f"open.{v.field}", v.description) for v in problems])
        self.record = header
        self.ruleset = ruleset
        self.stage = Stage.OPEN
        return referee_pb2.Verdict(result=LEGAL)

    def _deal(self, deal: referee_pb2.Deal) -> referee_pb2.Verdict:
        if self.stage is not Stage.OPEN:
            return _refused(OUT_OF_PHASE, "the hand is already dealt")
        assert self.ruleset is not None
        record = records_pb2.GameRecord()
        record.CopyFrom(self.record)
        which = deal.WhichOneof("deal")
        if which == "draw_order":
            record.draw_order.CopyFrom(deal.draw_order)
        elif which == "dealt_hands":
            record.dealt_hands.CopyFrom(deal.dealt_hands)
        read = read_game(record, self.ruleset)
        if isinstance(read, list):
            return _invalid([Violation(f"deal.{v.field}", v.description) for v in read])
        replay = HandState(read)
        check_deal(replay)
        if replay.findings.items:
            return _judged(replay.findings.items)
        bidding = begin_bidding(replay)
        if bidding is None:
            # Rules no ruleset settles (UNSUPPORTED): the hand cannot be judged, nor stored.
            self.stage = Stage.ENDED
            found = replay.findings.items
            verdict = _refused(OUT_OF_PHASE, f"this hand cannot be refereed: {found[0].message}")
            verdict.findings.extend(found)
            return verdict
        self.record = record
        self.replay, self.bidding = replay, bidding
        self.stage = Stage.BIDDING
        return referee_pb2.Verdict(result=LEGAL)

    # -- bidding and the kitty --------------------------------------------------------------

    def _bid(self, event: records_pb2.BidEvent) -> referee_pb2.Verdict:
        replay, bidding = self.replay, self.bidding
        assert replay is not None and bidding is not None and self.ruleset is not None
        if self.stage is not Stage.BIDDING:
            return _refused(OUT_OF_PHASE, "bidding is over: the first lead was made")
        if len(replay.read.bids) >= Limits.of(self.ruleset).items:
            return _refused(OUT_OF_PHASE, f"a hand holds at most {len(replay.read.bids)} bids")
        read = read_bid(self.ruleset, event)
        if isinstance(read, list):
            return _invalid(read)
        if bidding.buried and read.kind is not BidKind.CHAO_DI:
            return _refused(
                OUT_OF_PHASE, "the dealer has buried the kitty: only a 炒底 bid may follow"
            )
        mark = self._mark()
        if bidding.awaiting is None:
            replay.read.bids.append(read)
            applied = bidding.bid(len(replay.read.bids) - 1, read)
        else:
            bidding.exchange()  # none came: the 炒底 bidder's bury is due first
            applied = False
        verdict = self._settle(mark, applied is not None)
        if verdict.result == LEGAL:
            self.record.bids.append(event)
        return verdict

    def _exchange(self, event: records_pb2.KittyExchange) -> referee_pb2.Verdict:
        replay, bidding = self.replay, self.bidding
        assert replay is not None and bidding is not None and self.ruleset is not None
        if self.stage is not Stage.BIDDING:
            return _refused(OUT_OF_PHASE, "the kitty is settled: the first lead was made")
        if len(replay.read.exchanges) >= Limits.of(self.ruleset).items:
            return _refused(OUT_OF_PHASE, "no more kitty exchanges: the hand holds its limit")
        read = read_exchange(self.ruleset, event)
        if isinstance(read, list):
            return _invalid(read)
        mark = self._mark()
        replay.read.exchanges.append(read)
        going = True
        if not bidding.buried:
            going = bidding.take_kitty()
        elif bidding.awaiting is not None:
            bidding.exchange()
        else:
            bidding.unasked(len(replay.read.exchanges) - 1)
        verdict = self._settle(mark, going)
        if verdict.result == LEGAL:
            self.record.kitty_exchanges.append(event)
        return verdict

    # -- play -----------------------------------------------------------------------------

    def _play(self, event: referee_pb2.PlayEvent) -> referee_pb2.RefereeResponse:
        replay = self.replay
        assert replay is not None and self.ruleset is not None
        tricks = replay.read.tricks
        leads = not tricks or len(tricks[-1].plays) >= 4
        read = read_play(
            self.ruleset, event.play, event.declared_split, lead=leads, path="play.play"
        )
        if isinstance(read, list):
            return self._respond(_invalid(read))
        play, split = read
        mark = self._mark()
        if self.stage is Stage.BIDDING:
            verdict = self._close_bidding(mark)
            if verdict is not None:
                return self._respond(verdict)
        table = replay.table
        assert table is not None
        stored = records_pb2.Play()
        stored.CopyFrom(event.play)
        if not leads:
            stored.ClearField("attempted")  # only a lead's is read, so only a lead's is kept
        pending = self.pending
        if leads:
            if pending is not None and play.seat == pending.seat and not play.attempted:
                # The forced play after a failed throw: recorded as the table's enforcement.
                stored.attempted[:] = pending.attempted
                play = ReadPlay(play.seat, play.cards, _kinds(pending.attempted))
            t = len(tricks)
            trick = ReadTrick(play.seat, [play], split, None)
            tricks.append(trick)
            answered = lead_trick(replay, table, t, trick)
            found = replay.findings.items[mark.findings :]
            if [f.code for f in found if f.severity == BREACH] == ["THROW_NOT_ENFORCED"]:
                self._restore(mark)
                return self._respond(self._throw_failed(table, play.seat, play.cards, split))
            verdict = self._settle(mark, True)
            if verdict.result == LEGAL:
                self.answered = answered
                self.pending = None
                self.record.tricks.add(leader=play.seat, plays=[stored]).declared_split.extend(
                    event.declared_split
                )
            return self._respond(verdict)
        t = len(tricks) - 1
        trick = tricks[t]
        trick.plays.append(play)
        follow_trick(replay, table, t, trick, len(trick.plays) - 1, self.answered)
        ended = len(trick.plays) == 4
        if ended:
            finish_trick(replay, table, t, trick, self.answered)
            write_trick_results(replay)  # read below: the trick's result and the next leader
        verdict = self._settle(mark, True)
        if verdict.result != LEGAL:
            return self._respond(verdict)
        self.record.tricks[t].plays.append(stored)
        response = _response(verdict)
        if ended:
            response.trick_result.CopyFrom(replay.computed.tricks[t])
            if not any(len(hand) for hand in replay.hands):
                self._end(response)
        seat = self._next_seat()
        if seat is not None:
            response.next_seat = seat
        return response

    def _close_bidding(self, mark: _Mark) -> referee_pb2.Verdict | None:
        """The first lead closes the bidding: the kitty is taken, the dealer and trump settle.
        A verdict when the lead cannot be made (the bury is missing, say); None when it can."""
        replay, bidding = self.replay, self.bidding
        assert replay is not None and bidding is not None
        if bidding.awaiting is not None:
            bidding.exchange()  # none came: the 炒底 bidder's bury is due first
            return self._settle(mark, True)
        outcome = bidding.close()
        if outcome is None:
            return self._settle(mark, False)
        if any(f.severity == BREACH for f in replay.findings.items[mark.findings :]):
            return self._settle(mark, True)
        settle(replay, outcome)
        self.stage = Stage.PLAYING
        return None

    def _throw_failed(
        self, table: Table, seat: int, cards: list[int], split: list[list[int]] | None
    ) -> referee_pb2.Verdict:
        """A throw that fails, refused with what is forced and the penalty (the engine's)."""
        replay = self.replay
        assert replay is not None
        throw = table.throw(seat, cards, replay.hands, split)
        verdict = referee_pb2.Verdict(
            result=THROW_FAILED, reason=throw.reason, rule_id=throw.rule, code="THROW_FAILED"
        )
        failure = verdict.throw_failure
        failure.attempted.extend(tokens(cards))
        for unit in throw.forced_options:
            failure.forced_units.add(cards=tokens(unit.cards()))
        failure.penalty = throw.penalty
        for beat in throw.beaten:
            failure.beaten_by.add(
                seat=beat.seat, cards=tokens(beat.by.cards()), unit=tokens(beat.unit.cards())
            )
        self.pending = _Pending(seat, tuple(tokens(cards)))
        return verdict

    def _end(self, response: referee_pb2.RefereeResponse) -> None:
        """The hand is played out: its score, level change and next dealer; record and report."""
        replay = self.replay
        assert replay is not None and self.ruleset is not None
        before = len(replay.findings)
        score_hand(replay)
        report = report_of(replay)
        report.record_id = self.record.record_id
        claim_computed(self.record, replay.computed, self.ruleset)
        self.report = report
        self.stage = Stage.ENDED
        result = response.hand_result
        result.computed.CopyFrom(replay.computed)
        result.findings.extend(f for f in report.findings if f.severity != BREACH)
        result.notes.extend(report.notes)
        response.verdict.findings.extend(replay.findings.items[before:])

    # -- verdicts and the state to return to ---------------------------------------------

    def _settle(self, mark: _Mark, going: bool) -> referee_pb2.Verdict:
        """The verdict on the event just replayed: its findings; refused (the table returned
        to ``mark``) when one is a breach; the table ended when the hand cannot go on."""
        replay = self.replay
        assert replay is not None
        found = replay.findings.items[mark.findings :]
        if not going:
            self.stage = Stage.ENDED
            why = found[-1].message if found else "the hand cannot go on"
            verdict = _refused(OUT_OF_PHASE, f"this hand cannot be refereed: {why}")
            verdict.findings.extend(found)
            return verdict
        verdict = _judged(found)
        if verdict.result != LEGAL:
            self._restore(mark)
        return verdict

    def _respond(self, verdict: referee_pb2.Verdict) -> referee_pb2.RefereeResponse:
        response = _response(verdict)
        seat = self._next_seat()
        if seat is not None:
            response.next_seat = seat
        return response

    def _next_seat(self) -> int | None:
        """Whose turn it is: the forced leader, the 炒底 bidder to bury, or the next to play."""
        if self.stage is Stage.ENDED or self.replay is None:
            return None
        if self.pending is not None:
            return self.pending.seat
        if self.stage is Stage.BIDDING:
            return None if self.bidding is None else self.bidding.awaiting
        replay = self.replay
        tricks = replay.read.tricks
        if not tricks:
            return replay.dealer
        last = tricks[-1]
        if len(last.plays) < 4:
            return (last.leader + len(last.plays)) % 4
        return replay.computed.tricks[-1].winner

    def _mark(self) -> _Mark:
        replay = self.replay
        assert replay is not None
        read = replay.read
        computed = audit_pb2.Computed()
        computed.CopyFrom(replay.computed)
        return _Mark(
            stage=self.stage,
            hands=[list(hand.counts) for hand in replay.hands],
            kitty=list(replay.kitty),
            findings=len(replay.findings.items),
            notes=len(replay.notes),
            computed=computed,
            defenders_points=replay.defenders_points,
            dealer=replay.dealer,
            last_lead=replay.last_lead,
            trick_results=len(replay.trick_results),
            throw_results=dict(replay.throw_results),
            current=list(replay.current),
            trick_index=replay.trick_index,
            play_index=replay.play_index,
            bids=len(read.bids),
            exchanges=len(read.exchanges),
            tricks=len(read.tricks),
            plays=len(read.tricks[-1].plays) if read.tricks else 0,
            bidding=None if self.bidding is None else self.bidding.copy(),
            answered=self.answered,
        )

    def _restore(self, mark: _Mark) -> None:
        replay = self.replay
        assert replay is not None
        read = replay.read
        self.stage = mark.stage
        replay.hands = [Hand.from_counts(counts) for counts in mark.hands]
        replay.kitty = mark.kitty
        del replay.findings.items[mark.findings :]
        del replay.notes[mark.notes :]
        replay.computed.CopyFrom(mark.computed)  # in place: it is the report's own field
        replay.defenders_points = mark.defenders_points
        replay.dealer = mark.dealer
        replay.last_lead = mark.last_lead
        del replay.trick_results[mark.trick_results :]
        replay.throw_results = mark.throw_results
        replay.current = mark.current
        replay.trick_index, replay.play_index = mark.trick_index, mark.play_index
        if mark.stage is not Stage.PLAYING:
            replay.table = None
        del read.bids[mark.bids :]
        del read.exchanges[mark.exchanges :]
        del read.tricks[mark.tricks :]
        if read.tricks:
            del read.tricks[-1].plays[mark.plays :]
        self.bidding = mark.bidding
        self.answered = mark.answered


def _kinds(cards: Sequence[str]) -> list[int]:
    return [TOKEN_KINDS[token] for token in cards]


def _response(verdict: referee_pb2.Verdict) -> referee_pb2.RefereeResponse:
    return referee_pb2.RefereeResponse(verdict=verdict)


def _refused(result: referee_pb2.VerdictResult.ValueType, reason: str) -> referee_pb2.Verdict:
    return referee_pb2.Verdict(result=result, reason=reason)


def _invalid(violations: Sequence[Violation]) -> referee_pb2.Verdict:
    shown = violations[:MAX_VIOLATIONS]
    more = len(violations) - len(shown)
    first = shown[0]
    reason = f"{first.field}: {first.description}"
    if len(violations) > 1:
        reason += f" (and {len(violations) - 1} more)"
    verdict = _refused(INVALID, reason)
    for v in shown:
        verdict.violations.add(field=v.field, description=v.description)
    if more:
        verdict.reason += f"; {more} not listed"
    return verdict


def _judged(found: Sequence[audit_pb2.Finding]) -> referee_pb2.Verdict:
    """Legal, or illegal with the first breach's reason, ruling and legal alternative."""
    breaches = [f for f in found if f.severity == BREACH]
    verdict = referee_pb2.Verdict(result=ILLEGAL if breaches else LEGAL)
    verdict.findings.extend(found)
    first = breaches[0] if breaches else (found[0] if found else None)
    if first is not None:
        verdict.reason = first.message
        verdict.rule_id = first.rule_id
        verdict.code = first.code
        verdict.legal_alternative.extend(first.evidence.legal_alternative)
    return verdict


def events_of(record: records_pb2.GameRecord) -> Iterator[referee_pb2.RefereeRequest]:
    """A record's hand as a table would send it: open, deal, the bids up to the dealer's bury,
    the bury, each 炒底 bid and its bury, then every play (a failed throw as the table enforced
    it). Claims are not events: the referee announces them."""
    open_table = referee_pb2.OpenTable(
        record_id=record.record_id,
        ruleset=record.ruleset,
        ruleset_overrides_json=record.ruleset_overrides_json,
        players=record.players,
        context=record.context,
        played_at=record.played_at,
        venue=record.venue,
        metadata=record.metadata,
    )
    yield referee_pb2.RefereeRequest(open=open_table)
    deal = referee_pb2.Deal()
    if record.HasField("draw_order"):
        deal.draw_order.CopyFrom(record.draw_order)
    elif record.HasField("dealt_hands"):
        deal.dealt_hands.CopyFrom(record.dealt_hands)
    yield referee_pb2.RefereeRequest(deal=deal)
    exchanges = iter(record.kitty_exchanges)
    buried = False
    for bid in record.bids:
        if bid.kind == records_pb2.BID_KIND_CHAO_DI:
            if not buried:
                buried = True
                yield from _exchange_event(exchanges)
            yield referee_pb2.RefereeRequest(bid=bid)
            yield from _exchange_event(exchanges)
        else:
            yield referee_pb2.RefereeRequest(bid=bid)
    for exchange in exchanges:
        yield referee_pb2.RefereeRequest(kitty_exchange=exchange)
    for trick in record.tricks:
        for p, play in enumerate(trick.plays):
            event = referee_pb2.PlayEvent(play=play)
            if p == 0:
                event.declared_split.extend(trick.declared_split)
            yield referee_pb2.RefereeRequest(play=event)


def _exchange_event(
    exchanges: Iterator[records_pb2.KittyExchange],
) -> Iterator[referee_pb2.RefereeRequest]:
    exchange = next(exchanges, None)
    if exchange is not None:
        yield referee_pb2.RefereeRequest(kitty_exchange=exchange)
