"""Replaying a hand's bidding and kitty exchanges (R-BID) through the engine's bidding machine."""

from __future__ import annotations

from dataclasses import dataclass

from chaodipi.auditor.findings import count_cards
from chaodipi.auditor.reading import ReadBid
from chaodipi.auditor.state import HandState
from chaodipi.auditor.wire import SUITS_BY_PROTO, tokens
from chaodipi.engine import (
    RANK_LETTERS,
    Bid,
    BiddingState,
    BidError,
    BidKind,
    FirstHandLevels,
    NextDealer,
    Phase,
    RecordedDraw,
    Unsupported,
    apply_bid,
    bury,
    end_drawing,
    fallback_trump,
    label_cards,
    start_bidding,
)
from chaodipi.v1 import audit_pb2

BIDDING = audit_pb2.PHASE_BIDDING
KITTY = audit_pb2.PHASE_KITTY


@dataclass(frozen=True, slots=True)
class BiddingOutcome:
    """What the bidding settled: the level played, trump (None: no-trump) and dealer."""

    level: int
    trump: int | None
    dealer: int
    overcalls: int

    def __init__(self, level: int, trump: int | None, dealer: int, overcalls: int) -> None:
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "overcalls", overcalls)


def _bidder_cards(
    replay: HandState, seat: int, drawn_total: int | None
) -> tuple[list[int], int | None]:
    """The bidder's cards for the check, and how many of them were drawn by then."""
    first = replay.read.first_drawer
    if first is None or drawn_total is None:
        return list(replay.hands[seat]), None
    # As read from a draw order, a seat's dealt cards are in the order it drew them.
    own = replay.read.hands[seat]
    # Draws go round the table from the first drawer, so a seat's share of the first n is known.
    drawn = (drawn_total - (seat - first) % 4 + 3) // 4 if drawn_total > 0 else 0
    return own, min(max(drawn, 0), len(own))


def replay_bidding(replay: HandState) -> BiddingOutcome | None:
    """Replay bids and kitty exchanges; None when the hand cannot go on (trump unknown)."""
    bidding = begin_bidding(replay)
    if bidding is None:
        return None
    for i, event in enumerate(replay.read.bids):
        applied = bidding.bid(i, event)
        if applied is None:
            return None
        if applied:
            if bidding.awaiting is not None:
                bidding.exchange()
            replay.snapshot(BIDDING)
    return bidding.close()


def begin_bidding(replay: HandState) -> Bidding | None:
    """The hand's bidding before its first bid; None (with UNSUPPORTED) when it cannot start."""
    read, rs = replay.read, replay.ruleset
    recorded_dealer = read.dealer
    by_declaration = rs.level.next_dealer is NextDealer.BY_DECLARATION
    if read.first_hand:
        # No dealer yet: with the teams at different levels, bidding.first_hand_levels decides.
        state = start_bidding(team_levels=read.team_levels, first_hand=True)
        if state.team_levels is not None:
            zero, one = (RANK_LETTERS[level] for level in state.team_levels)
            levels = (
                "the first hand's teams stand at different levels "
                f"(team 0 at {zero}, team 1 at {one})"
            )
            if rs.bidding.first_hand_levels is FirstHandLevels.UNSUPPORTED:
                replay.findings.record(
                    "UNSUPPORTED",
                    f"{rs.id}: {levels}, and its rules do not say which level is bid",
                    BIDDING,
                )
                return None
            replay.notes.append(
                f"{levels}: each bid was checked against its bidder's own team's level, and the "
                "hand is played at the dealer's team's level"
            )
    elif recorded_dealer is None:
        replay.findings.record(
            "UNSUPPORTED",
            "a later hand needs its dealer (context.dealer): the match decided it",
            BIDDING,
        )
        return None
    else:
        level = read.team_levels[recorded_dealer % 2]
        state = (
            start_bidding(level, first_hand=False, holding_team=recorded_dealer % 2)
            if by_declaration
            else start_bidding(level, first_hand=False, dealer=recorded_dealer)
        )
    return Bidding(replay, state)


class Bidding:
    """A hand's bidding and kitty exchanges in replay, one event at a time (R-BID).

    The dealer takes up and buries the kitty (``take_kitty``) at the first 炒底 bid, or when
    the bidding closes; a 炒底 bid waits (``awaiting``, the bidder's seat) for its bidder's
    exchange. ``next_exchange`` is the index of the next exchange of the record to apply.
    A live referee calls the same steps as its events come (``auditor.referee``).
    """

    replay: HandState
    state: BiddingState
    buried: bool
    next_exchange: int
    awaiting: int | None

    def __init__(self, replay: HandState, state: BiddingState) -> None:
        self.replay = replay
        self.state = state
        self.buried = False
        self.next_exchange = 0
        self.awaiting = None

    def copy(self) -> Bidding:
        """The same bidding, to return to (its ``state`` is immutable)."""
        other = Bidding(self.replay, self.state)
        other.buried, other.next_exchange = self.buried, self.next_exchange
        other.awaiting = self.awaiting
        return other

    def bid(self, i: int, event: ReadBid) -> bool | None:
        """Apply bid ``i``: True when applied, False when illegal (BID_ILLEGAL), None when
        the hand cannot go on (the kitty cannot be settled before a 炒底)."""
        replay, state = self.replay, self.state
        kind = event.kind
        # Each ``BidKind.X`` read costs a call of the enum type's ``__getattr__`` hook: read once.
        chao_di = kind is BidKind.CHAO_DI
        if (chao_di or kind is BidKind.KITTY_FLIP) and state.phase is Phase.DRAWING:
            self.state = end_drawing(state)
        if chao_di and not self.buried and not self.take_kitty():
            return None
        held, drawn = _bidder_cards(replay, event.seat, event.drawn_count)
        bid = Bid(
            event.seat, kind, tuple(event.cards), drawn, event.names_trump, event.trump_choice
        )
        try:
            self.state = apply_bid(replay.ruleset, self.state, bid, held=held)
        except BidError as exc:  # the engine's reason the bid is illegal
            replay.findings.record(
                "BID_ILLEGAL",
                f"seat {event.seat}'s {kind.value} of {label_cards(event.cards)}: {exc}",
                BIDDING,
                seat=event.seat,
                bid_index=i,
                recorded=" ".join(tokens(event.cards)),
            )
            return False
        if chao_di:
            self.awaiting = event.seat
        return True

    def take_kitty(self) -> bool:
        """The dealer takes up and buries the kitty: trump and dealer settle (False: they
        cannot, UNSUPPORTED or BID_ILLEGAL recorded)."""
        # Straight from the drawing too (no end_drawing): the bury sets the phase, and the
        # drawing's end changes nothing else it reads; a hand whose bury fails goes no further.
        settled = _bury(self, self.state)
        if settled is None:
            return False
        self.state, self.buried = settled, True
        return True

    def exchange(self) -> None:
        """The 炒底 bidder's exchange (KITTY_INVALID when the record has none)."""
        assert self.awaiting is not None
        seat, self.awaiting = self.awaiting, None
        _exchange(self, seat, chao_di=True)

    def unasked(self, j: int) -> None:
        """KITTY_INVALID for exchange ``j``, which no 炒底 bid asked for."""
        extra = self.replay.read.exchanges[j]
        self.replay.findings.record(
            "KITTY_INVALID",
            f"kitty exchange {j + 1} by seat {extra.seat} follows no 炒底 bid",
            KITTY,
            seat=extra.seat,
            exchange_index=j,
        )

    def close(self) -> BiddingOutcome | None:
        """The bidding is over: the kitty taken if not yet, exchanges left over, the dealer
        checked; what it settled, or None when the hand cannot go on."""
        replay = self.replay
        read = replay.read
        if not self.buried and read.incomplete and not read.exchanges and not read.tricks:
            # The source says the record stops before the dealer took the kitty: nothing to settle.
            return None
        if not self.buried and not self.take_kitty():
            return None
        for j in range(self.next_exchange, len(read.exchanges)):
            self.unasked(j)
        state = self.state
        if state.draw_unchecked:
            replay.notes.append(
                f"{state.draw_unchecked} declaration(s) made while drawing were not checked for "
                "timing: the record gives the dealt hands, not the draw order"
            )
        assert state.dealer is not None
        recorded_dealer = read.dealer
        if recorded_dealer is not None and state.dealer != recorded_dealer:
            replay.findings.record(
                "DEALER_MISMATCH",
                f"the bidding makes seat {state.dealer} the dealer; the record says seat "
                f"{recorded_dealer}",
                BIDDING,
                seat=recorded_dealer,
                expected=str(state.dealer),
                recorded=str(recorded_dealer),
            )
        level = read.team_levels[state.dealer % 2]
        return BiddingOutcome(level, state.trump, state.dealer, state.stake)


def _bury(bidding: Bidding, state: BiddingState) -> BiddingState | None:
    """Settle trump and dealer when the dealer takes the kitty, then check the bury."""
    replay = bidding.replay
    rs = replay.ruleset
    recorded_dealer = replay.read.dealer
    fallback = None
    if state.standing is None:
        result = None
        try:
            result = fallback_trump(
                rs,
                replay.read.kitty,
                state.level,
                state.first_hand,
                flips=state.flips,
                first_drawer=_first_drawer(replay),
                recorded=_recorded_draw(replay),
            )
        except ValueError as exc:
            replay.findings.record(
                "BID_ILLEGAL", f"nobody declared and the kitty flips are wrong: {exc}", BIDDING
            )
            return None
        if isinstance(result, Unsupported):
            replay.findings.record("UNSUPPORTED", result.reason, BIDDING)
            return None
        fallback = result
    dealer = recorded_dealer if state.dealer is None and not state.dealer_by_bidding else None
    if state.dealer is None and fallback is not None and fallback.decider is None:
        dealer = recorded_dealer
    try:
        state = bury(state, fallback=fallback, dealer=dealer)
    except ValueError as exc:
        replay.findings.record("UNSUPPORTED", f"the dealer cannot be settled: {exc}", BIDDING)
        return None
    assert state.dealer is not None
    _exchange(bidding, state.dealer, chao_di=False)
    return state


def _first_drawer(replay: HandState) -> int | None:
    read = replay.read
    # A draw order that deals no card names no first drawer.
    return read.first_drawer if any(read.hands) else None


def _recorded_draw(replay: HandState) -> RecordedDraw | None:
    """The record's own trump and dealer, for a program that drew them at random."""
    read = replay.read
    if read.claim is None or not read.claim.HasField("trump"):
        return None
    suit = read.claim.trump.suit
    if suit not in SUITS_BY_PROTO:
        return None
    trump = SUITS_BY_PROTO[suit]
    # Without context.dealer, the seat that took up the kitty is the dealer the table had.
    dealer = read.dealer
    if dealer is None and read.exchanges:
        dealer = read.exchanges[0].seat
    return RecordedDraw(trump, dealer)


def _exchange(bidding: Bidding, seat: int, *, chao_di: bool) -> None:
    """Check and apply the record's next kitty exchange, made by ``seat``."""
    replay = bidding.replay
    rs = replay.ruleset
    exchanges = replay.read.exchanges
    who = "the 炒底 bidder" if chao_di else "the dealer"
    if bidding.next_exchange >= len(exchanges):
        replay.findings.record(
            "KITTY_INVALID",
            f"{who} (seat {seat}) took up no kitty in the record; the kitty is kept as it lies",
            KITTY,
            seat=seat,
        )
        return
    j = bidding.next_exchange
    ex = exchanges[j]
    bidding.next_exchange = j + 1
    if ex.seat != seat:
        replay.findings.record(
            "KITTY_INVALID",
            f"kitty exchange {j + 1} was made by seat {ex.seat}; {who} is seat {seat}",
            KITTY,
            seat=ex.seat,
            exchange_index=j,
            expected=str(seat),
            recorded=str(ex.seat),
        )
    if sorted(ex.picked_up) != sorted(replay.kitty):
        replay.findings.record(
            "KITTY_INVALID",
            f"seat {ex.seat} picked up {label_cards(ex.picked_up)}; the kitty was "
            f"{label_cards(replay.kitty)}",
            KITTY,
            seat=ex.seat,
            exchange_index=j,
            expected=" ".join(tokens(replay.kitty)),
            recorded=" ".join(tokens(ex.picked_up)),
        )
    if len(ex.buried) != rs.kitty_size:
        replay.findings.record(
            "KITTY_INVALID",
            f"seat {ex.seat} buried {count_cards(len(ex.buried))}; the kitty holds {rs.kitty_size}",
            KITTY,
            seat=ex.seat,
            exchange_index=j,
            expected=str(rs.kitty_size),
            recorded=str(len(ex.buried)),
        )
    replay.hands[ex.seat].add(replay.kitty)
    replay.take(ex.seat, ex.buried, KITTY, "buried", exchange_index=j)
    replay.kitty = list(ex.buried)
    replay.snapshot(KITTY)
