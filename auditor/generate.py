"""Seeded, deterministic generation of complete legal hands and matches.

Simple heuristic players deal, declare, bury and play every trick through the
engine's own checks, so a generated record audits clean under its ruleset; the
table's claims are filled from the audit. Tests, benchmarks and the dashboard's
sample data use it; ``auditor.faults`` plants labelled faults into copies.

>>> record = generate_hand("anhui", seed=7)
>>> record.ruleset, len(record.players), record.claim.HasField("defenders_points")
('anhui', 4, True)
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from chaodipi.auditor.audit import replay_hand
from chaodipi.auditor.claims import claim_computed
from chaodipi.auditor.match import audit_match
from chaodipi.auditor.reading import read_game
from chaodipi.auditor.state import Cleared
from chaodipi.auditor.wire import PROTO_BID_KINDS, PROTO_SUITS, tokens
from chaodipi.engine import (
    POINTS,
    RANK_LETTERS,
    TRUMP,
    Bid,
    BiddingState,
    BidKind,
    FallbackResult,
    Hand,
    NextDealer,
    Ruleset,
    Table,
    TrumpFallback,
    Unsupported,
    apply_bid,
    bury,
    check_bid,
    end_drawing,
    fallback_trump,
    get_ruleset,
    start_bidding,
)
from chaodipi.engine.cards import BIG_JOKER, LITTLE_JOKER, full_deck, kind_of, rank_of
from chaodipi.engine.units import canonical_split
from chaodipi.v1 import records_pb2

PLAYERS = (
    ("li.wei", "Li Wei"),
    ("wang.fang", "Wang Fang"),
    ("zhang.min", "Zhang Min"),
    ("liu.yang", "Liu Yang"),
    ("chen.jing", "Chen Jing"),
    ("yang.lei", "Yang Lei"),
    ("zhao.qiang", "Zhao Qiang"),
    ("huang.li", "Huang Li"),
)
EPOCH = datetime(2026, 11, 1, 19, 0, tzinfo=UTC)
TRUMP_CHOICES: tuple[int | None, ...] = (0, 1, 2, 3, None)
"""What a big-joker bid may name: S, H, C, D or no-trump, in that order."""


class _Players:
    """One hand being played by the heuristic players."""

    def __init__(self, rs: Ruleset, rng: random.Random, record: records_pb2.GameRecord):
        self.rs, self.rng, self.record = rs, rng, record
        self.hands = [Hand() for _ in range(4)]

    def bid(
        self, state: BiddingState, bid: Bid, hand: Sequence[int], drawn_total: int | None
    ) -> BiddingState:
        if check_bid(self.rs, state, bid, held=hand) is not None:
            return state
        event = self.record.bids.add(
            seat=bid.seat, kind=PROTO_BID_KINDS[bid.kind], cards=tokens(bid.cards)
        )
        if bid.names_trump:
            event.trump_chosen = PROTO_SUITS[bid.trump_choice]
        if drawn_total is not None:
            event.drawn_count = drawn_total
        return apply_bid(self.rs, state, bid, held=hand)

    def candidates(
        self, state: BiddingState, seat: int, held: Sequence[int], kind: BidKind
    ) -> list[Bid]:
        """Bids this seat could show: level cards of a suit and jokers, in every count held."""
        level = state.level_for(seat)
        cards = [kind_of(s, level) for s in range(4)] + [LITTLE_JOKER, BIG_JOKER]
        used = [k for s, k in state.shown if s == seat]
        bids = []
        for card in cards:
            have = sum(1 for k in held if k == card) - used.count(card)
            for n in range(1, have + 1):
                names = card == BIG_JOKER
                choice = self.rng.choice(TRUMP_CHOICES) if names else None
                bids.append(Bid(seat, kind, (card,) * n, names_trump=names, trump_choice=choice))
        return bids

    def draw_and_bid(self, state: BiddingState, deck: Sequence[int], first: int) -> BiddingState:
        dealt = 4 * self.rs.hand_size
        drawn: list[list[int]] = [[], [], [], []]
        for i, card in enumerate(deck[:dealt]):
            seat = (first + i) % 4
            drawn[seat].append(card)
            self.hands[seat].counts[card] += 1
            if self.rng.random() > 0.35:
                continue
            if state.standing is None:
                kinds = [BidKind.DECLARE]
            elif state.standing.seat == seat:
                kinds = [BidKind.LOCK, BidKind.OVERCALL]
            else:
                kinds = [BidKind.OVERCALL]
            for kind in kinds:
                options = [
                    b
                    for b in self.candidates(state, seat, drawn[seat], kind)
                    if check_bid(self.rs, state, _timed(b, len(drawn[seat])), held=drawn[seat])
                    is None
                ]
                if options:
                    pick = _timed(self.rng.choice(options), len(drawn[seat]))
                    state = self.bid(state, pick, drawn[seat], i + 1)
                    break
        return end_drawing(state)

    def settle(self, state: BiddingState, kitty: Sequence[int], first: int) -> BiddingState | None:
        """Take the kitty: the fallback trump when nobody declared, then the bury."""
        fallback: FallbackResult | None = None
        if state.standing is None:
            how = (
                self.rs.bidding.fallback_first_hand
                if state.first_hand
                else self.rs.bidding.fallback_later_hands
            )
            if how is TrumpFallback.FLIP_KITTY:
                for j, card in enumerate(kitty):
                    flip = Bid((first + j) % 4, BidKind.KITTY_FLIP, (card,))
                    state = self.bid(state, flip, [], None)
                    if rank_of(card) == state.level:
                        break
            result = fallback_trump(
                self.rs, kitty, state.level, state.first_hand, flips=state.flips
            )
            if isinstance(result, Unsupported):
                return None
            fallback = result
        needs_dealer = state.dealer is None and (fallback is None or fallback.decider is None)
        return bury(state, fallback=fallback, dealer=first if needs_dealer else None)

    def exchange(self, seat: int, table: Table, kitty: list[int]) -> list[int]:
        """The seat takes up the kitty and buries its cheapest cards (sometimes a point card)."""
        hand = self.hands[seat]
        hand.add(kitty)
        risky = self.rng.random() < 0.3
        ctx = table.context
        order = sorted(
            hand,
            key=lambda k: (ctx.suit[k] == TRUMP, 0 if risky else POINTS[k], ctx.step[k], k),
        )
        buried = order[: self.rs.kitty_size]
        hand.remove(buried)
        self.record.kitty_exchanges.add(seat=seat, picked_up=tokens(kitty), buried=tokens(buried))
        return buried

    def lead(self, table: Table, seat: int) -> tuple[list[int], list[int]]:
        """The leader's play and, for a failed throw, the attempt."""
        ctx = table.context
        kinds = list(self.hands[seat])
        pick = self.rng.choice(kinds)
        suit_cards = [k for k in kinds if ctx.suit[k] == ctx.suit[pick]]
        units = canonical_split(ctx, suit_cards)
        if len(units) >= 2 and self.rng.random() < 0.12:
            top = sorted(units, key=lambda u: ctx.strength[u.top], reverse=True)
            attempt = [k for u in top[: self.rng.choice((2, 3))] for k in u.cards()]
            verdict = table.throw(seat, attempt, self.hands)
            if verdict.stands or verdict.forced is None:
                return attempt, []
            return verdict.forced.cards(), attempt
        unit = (
            max(units, key=lambda u: (u.size, self.rng.random()))
            if self.rng.random() < 0.5
            else self.rng.choice(units)
        )
        return unit.cards(), []

    def play(self, table: Table, dealer: int) -> None:
        leader = dealer
        while len(self.hands[leader]):
            cards, attempt = self.lead(table, leader)
            lead = table.lead(cards)
            trick = self.record.tricks.add(leader=leader)
            trick.plays.add(seat=leader, cards=tokens(cards), attempted=tokens(attempt))
            plays = [cards]
            for offset in (1, 2, 3):
                seat = (leader + offset) % 4
                plays.append(list(table.legal_follow(self.hands[seat], lead)))
                trick.plays.add(seat=seat, cards=tokens(plays[-1]))
            for offset, played in enumerate(plays):
                self.hands[(leader + offset) % 4].remove(played)
            leader = (leader + table.winner(lead, plays[1:])) % 4


def _timed(bid: Bid, drawn: int) -> Bid:
    return dataclasses.replace(bid, drawn_count=drawn)


def generate_hand(
    ruleset: str | Ruleset,
    seed: int,
    *,
    first_hand: bool = True,
    team_levels: tuple[int, int] | None = None,
    dealer: int | None = None,
    hand_number: int = 1,
    players: Sequence[tuple[str, str]] | None = None,
    record_id: str | None = None,
    claims: bool = True,
    cleared: Cleared | None = None,
) -> records_pb2.GameRecord:
    """A complete legal hand. Later hands (``first_hand=False``) need ``dealer``.

    In a match, ``cleared`` is the must-play history so far (R-LEVEL-MUST), for the claims.
    """
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if not first_hand and dealer is None:
        raise ValueError("a later hand needs its dealer (the previous hand decided it)")
    rng = random.Random(seed)
    first_level = RANK_LETTERS.index(rs.level.first_level)
    levels = team_levels or (first_level, first_level)
    if players is None:
        players = rng.sample(PLAYERS, 4)
    for attempt in range(100):
        record = records_pb2.GameRecord(
            record_id=record_id or f"{rs.id}-{seed}",
            ruleset=rs.id,
            played_at=(EPOCH + timedelta(minutes=seed % 100_000 * 17)).isoformat(),
            venue="generated",
        )
        record.players.add().CopyFrom(records_pb2.Player())
        del record.players[:]
        for pid, name in players:
            record.players.add(id=pid, display_name=name)
        ctx_msg = record.context
        ctx_msg.hand_number, ctx_msg.first_hand = hand_number, first_hand
        ctx_msg.team0_level, ctx_msg.team1_level = RANK_LETTERS[levels[0]], RANK_LETTERS[levels[1]]
        if _deal_and_play(
            rs, random.Random(rng.random() + attempt), record, first_hand, levels, dealer
        ):
            break
    else:
        raise RuntimeError(f"{rs.id}: no playable deal for seed {seed}")
    if claims:
        fill_claims(record, cleared)
    return record


def _deal_and_play(
    rs: Ruleset,
    rng: random.Random,
    record: records_pb2.GameRecord,
    first_hand: bool,
    levels: tuple[int, int],
    dealer: int | None,
) -> bool:
    players = _Players(rs, rng, record)
    deck = full_deck(rs.decks)
    rng.shuffle(deck)
    first = dealer if dealer is not None else rng.randrange(4)
    record.draw_order.deck.extend(tokens(deck))
    record.draw_order.first_drawer = first
    by_declaration = rs.level.next_dealer is NextDealer.BY_DECLARATION
    if first_hand:
        state = start_bidding(team_levels=levels, first_hand=True)
    elif by_declaration:
        assert dealer is not None
        state = start_bidding(levels[dealer % 2], first_hand=False, holding_team=dealer % 2)
    else:
        assert dealer is not None
        state = start_bidding(levels[dealer % 2], first_hand=False, dealer=dealer)
    state = players.draw_and_bid(state, deck, first)
    kitty = list(deck[4 * rs.hand_size :])
    settled = players.settle(state, kitty, first)
    if settled is None:
        return False
    state = settled
    assert state.dealer is not None
    dealer_seat = state.dealer
    level = levels[dealer_seat % 2]
    if not first_hand or state.dealer is not None:
        record.context.dealer = dealer_seat
    if first_hand:
        record.context.ClearField("dealer")
    table = Table(rs, level, state.trump)
    kitty = players.exchange(dealer_seat, table, kitty)
    if not first_hand or rs.bidding.chao_di_first_hand:
        for offset in (1, 2, 3, 4):
            seat = (dealer_seat + offset) % 4
            if rng.random() > 0.3:
                continue
            held = list(players.hands[seat])
            options = [
                b
                for b in players.candidates(state, seat, held, BidKind.CHAO_DI)
                if check_bid(rs, state, b, held=held) is None
            ]
            if options:
                state = players.bid(state, rng.choice(options), held, None)
                table = Table(rs, level, state.trump)
                kitty = players.exchange(seat, table, kitty)
    players.play(table, dealer_seat)
    return True


def fill_claims(record: records_pb2.GameRecord, cleared: Cleared | None = None) -> None:
    """Fill the table's claims (trick winners, points, penalties, score, level) from the audit.

    ``cleared`` is the must-play history of the match so far, which the hand adds to.
    """
    read = read_game(record)
    assert not isinstance(read, list), read
    report = replay_hand(read, cleared=cleared)
    claim_computed(record, report.computed, read.ruleset)


def generate_match(
    ruleset: str | Ruleset, seed: int, *, max_hands: int = 8, match_id: str | None = None
) -> records_pb2.MatchRecord:
    """A match of up to ``max_hands`` hands, levels and dealers carried from hand to hand."""
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    rng = random.Random(seed)
    players = rng.sample(PLAYERS, 4)
    match = records_pb2.MatchRecord(match_id=match_id or f"{rs.id}-match-{seed}", ruleset=rs.id)
    for pid, name in players:
        match.players.add(id=pid, display_name=name)
    first_level = RANK_LETTERS.index(rs.level.first_level)
    levels = (first_level, first_level)
    dealer: int | None = None
    cleared: Cleared = (set(), set())
    for n in range(max_hands):
        hand = generate_hand(
            rs,
            rng.randrange(1 << 30),
            first_hand=n == 0,
            team_levels=levels,
            dealer=dealer,
            hand_number=n + 1,
            players=players,
            record_id=f"{match.match_id}-h{n + 1}",
            cleared=cleared,
        )
        match.hands.append(hand)
        report = audit_match(match).hands[-1]
        result, computed = report.computed.level_result, report.computed
        if not result.dealer_team_level_after:
            match.claimed_result.winning_team = (
                computed.dealer % 2
                if result.outcome == records_pb2.OUTCOME_DEALER_WINS_MATCH
                else 1 - computed.dealer % 2
            )
            return match
        dealer_team = computed.dealer % 2
        after = [result.dealer_team_level_after, result.defender_team_level_after]
        if dealer_team:
            after.reverse()
        levels = (RANK_LETTERS.index(after[0]), RANK_LETTERS.index(after[1]))
        if computed.HasField("next_dealer"):
            dealer = computed.next_dealer
        else:
            # Dealt by declaration next time: the holding team's first seat draws first.
            dealer = computed.next_dealer_team
    match.claimed_result.team0_final_level = RANK_LETTERS[levels[0]]
    match.claimed_result.team1_final_level = RANK_LETTERS[levels[1]]
    return match
