"""One hand being replayed: the record as read, where the cards are now, what is computed so far.

The replay's steps (``deal``, ``bidding``, ``tricks``, ``scoring``, ``claims``) each read and
change a ``HandState``; ``audit.replay_hand`` runs them in order.
"""

from __future__ import annotations

from collections.abc import Sequence

from chaodipi.auditor.findings import Findings
from chaodipi.auditor.reading import ReadHand
from chaodipi.auditor.wire import tokens
from chaodipi.engine import Hand, Lead, Ruleset, Table, card_token, label_cards
from chaodipi.v1 import audit_pb2

Cleared = tuple[set[int], set[int]]
"""The must-play ranks (rank indexes) team 0 and team 1 have cleared so far in a match."""


class HandState:
    """A hand in replay; ``findings`` grows as the steps go.

    ``hands`` are the seats' cards as the record moves them; ``computed`` is the part of
    ``report`` the steps fill in; ``table`` is set once the bidding has settled trump, with
    ``dealer``. ``last_lead`` is the lead format the kitty counts (R-KITTY): after a failed
    throw the forced unit; None after a lead with no legal shape. With ``want_steps`` the
    state after every step is kept in ``steps``, and the play's place (``trick_index``,
    ``play_index``, the trick under way in ``current``) is kept for them: without steps
    the play leaves those as they start.
    ``trick_results`` holds each trick played out, its ``TrickResult`` encoded, until the
    play writes them all to ``computed.tricks`` at once (``tricks.write_trick_results``);
    ``throw_results`` the penalty and the throw fields, encoded (``TrickResult``'s), of each
    trick led with a throw.
    ``cleared`` holds the must-play ranks each team cleared in the match's earlier hands
    (R-LEVEL-MUST); scoring reads it and adds what this hand clears.
    """

    read: ReadHand
    ruleset: Ruleset
    findings: Findings
    notes: list[str]
    hands: list[Hand]
    kitty: list[int]
    report: audit_pb2.AuditReport
    computed: audit_pb2.Computed
    defenders_points: int
    table: Table | None
    dealer: int
    last_lead: Lead | None
    trick_results: list[bytes]
    throw_results: dict[int, tuple[int, bytes]]
    want_steps: bool
    steps: list[audit_pb2.StepState]
    current: list[tuple[int, list[int]]]
    trick_index: int | None
    play_index: int | None
    cleared: Cleared
    _reported: int

    def __init__(
        self,
        read: ReadHand,
        *,
        steps: bool = False,
        hand_index: int | None = None,
        cleared: Cleared | None = None,
    ):
        self.read = read
        self.ruleset = read.ruleset
        self.findings = Findings(hand_index)
        self.notes = []
        self.hands = [Hand(cards) for cards in read.hands]
        self.kitty = list(read.kitty)
        # The report is filled in place: ``computed`` is its field, never copied into it.
        self.report = audit_pb2.AuditReport()
        self.computed = self.report.computed
        self.computed.SetInParent()  # present in every report, as when it was copied in
        self.defenders_points = 0
        self.table = None
        self.dealer = 0
        self.last_lead = None
        self.trick_results = []
        self.throw_results = {}
        self.want_steps = steps
        self.steps = []
        self.current = []
        self.trick_index = None
        self.play_index = None
        self.cleared = (set(), set()) if cleared is None else cleared
        self._reported = 0

    def take(
        self,
        seat: int,
        cards: Sequence[int],
        phase: audit_pb2.Phase.ValueType,
        what: str,
        *,
        trick: int | None = None,
        play: int | None = None,
        exchange_index: int | None = None,
    ) -> None:
        """Remove cards from a seat's hand; cards it does not hold are a finding and skipped."""
        absent = self.hands[seat].remove(cards)
        if absent:
            self.findings.record(
                "CARD_NOT_IN_HAND",
                f"seat {seat} {what} {label_cards(absent)} without holding "
                + ("it" if len(absent) == 1 else "them"),
                phase,
                seat=seat,
                recorded=" ".join(tokens(absent)),
                trick=trick,
                play=play,
                exchange_index=exchange_index,
            )

    def snapshot(self, phase: audit_pb2.Phase.ValueType) -> None:
        """Keep the state after a step, with the findings made at that step (``want_steps``)."""
        if not self.want_steps:
            return
        state = audit_pb2.StepState(index=len(self.steps), phase=phase)
        if self.trick_index is not None:
            state.trick = self.trick_index
        if self.play_index is not None:
            state.play = self.play_index
        for hand in self.hands:
            state.hands.add().cards.extend(card_token(k) for k in self._in_order(hand))
        for seat, cards in self.current:
            state.current_trick.add(seat=seat, cards=tokens(cards))
        state.defenders_points_so_far = self.defenders_points
        state.kitty.extend(tokens(self.kitty))
        state.trump.CopyFrom(self.computed.trump)
        found = len(self.findings)
        state.finding_indexes.extend(range(self._reported, found))
        self._reported = found
        self.steps.append(state)

    def _in_order(self, hand: Hand) -> Sequence[int]:
        # Before trump is known, kind order; then as the table orders them (trumps last).
        cards = list(hand)
        return cards if self.table is None else self.table.order(cards)
