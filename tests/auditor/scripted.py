"""Whole hands built around a few chosen cards and leads, for auditor tests of one ruling.

``scripted_hand`` deals the chosen cards to their seats, fills every hand and the kitty from the
rest of the decks (shuffled by ``seed``), records the bids, lets the dealer bury the kitty as it
was dealt, and plays every trick out: a chosen lead where one is given (with the attempt of a
failed throw), else the leader's lowest card, and a legal follow from every other seat. The
table's claims are filled from the audit, as the generator does.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from chaodipi.auditor.generate import fill_claims
from chaodipi.auditor.wire import PROTO_BID_KINDS, PROTO_SUITS, tokens
from chaodipi.engine import Bid, Hand, Table, get_ruleset, parse_cards
from chaodipi.engine.cards import full_deck
from chaodipi.v1 import records_pb2

ScriptedBid = tuple[int, str, str] | tuple[int, str, str, str]
"""``(seat, kind, cards)`` or ``(seat, kind, cards, trump)`` as ``Bid.parse`` reads them."""


def scripted_hand(
    ruleset: str,
    seats: Sequence[str],
    *,
    kitty: str = "",
    bids: Sequence[ScriptedBid],
    trump: str,
    dealer: int = 0,
    levels: tuple[str, str] = ("6", "6"),
    leads: Mapping[int, tuple[str, str]] | None = None,
    seed: int = 0,
) -> records_pb2.GameRecord:
    """A later hand dealt by ``dealer``; ``leads[t]`` is trick ``t``'s (played, attempted)."""
    rs = get_ruleset(ruleset)
    rest = full_deck(rs.decks)
    chosen = [parse_cards(cards) for cards in seats]
    for card in [k for cards in chosen for k in cards] + parse_cards(kitty):
        rest.remove(card)
    random.Random(seed).shuffle(rest)
    hands = [list(cards) for cards in chosen]
    for hand in hands:
        while len(hand) < rs.hand_size:
            hand.append(rest.pop())
    kitty_cards = parse_cards(kitty) + rest
    assert len(kitty_cards) == rs.kitty_size, "the chosen cards leave the kitty the wrong size"

    record = records_pb2.GameRecord(record_id=f"scripted-{ruleset}-{seed}", ruleset=rs.id)
    for seat in range(4):
        record.players.add(id=f"p{seat}", display_name=f"Player {seat}")
    context = record.context
    context.hand_number, context.first_hand, context.dealer = 2, False, dealer
    context.team0_level, context.team1_level = levels
    for hand in hands:
        record.dealt_hands.hands.add(cards=tokens(hand))
    record.dealt_hands.kitty.extend(tokens(kitty_cards))
    for seat, kind, cards, *named in bids:
        bid = Bid.parse(seat, kind, cards, trump=named[0] if named else None)
        event = record.bids.add(seat=seat, kind=PROTO_BID_KINDS[bid.kind], cards=tokens(bid.cards))
        if bid.names_trump:
            event.trump_chosen = PROTO_SUITS[bid.trump_choice]
    record.kitty_exchanges.add(
        seat=dealer, picked_up=tokens(kitty_cards), buried=tokens(kitty_cards)
    )

    table = Table(rs, levels[dealer % 2], trump)
    held = [Hand(hand) for hand in hands]
    leader, t = dealer, 0
    while len(held[leader]):
        played, attempted = (leads or {}).get(t, ("", ""))
        cards = parse_cards(played) if played else [table.order(list(held[leader]))[0]]
        trick = record.tricks.add(leader=leader)
        trick.plays.add(seat=leader, cards=tokens(cards), attempted=tokens(parse_cards(attempted)))
        lead = table.lead(cards)
        plays = [cards]
        for offset in (1, 2, 3):
            seat = (leader + offset) % 4
            plays.append(list(table.legal_follow(held[seat], lead)))
            trick.plays.add(seat=seat, cards=tokens(plays[-1]))
        for offset, play in enumerate(plays):
            held[(leader + offset) % 4].remove(play)
        leader = (leader + table.winner(lead, plays[1:])) % 4
        t += 1
    fill_claims(record)
    return record


def swap_teams(record: records_pb2.GameRecord) -> records_pb2.GameRecord:
    """The same hand one seat on: every seat ``s`` becomes ``s + 1``, so the teams swap.

    Team 0's players, cards and level become team 1's and the other way round; a verdict on
    the hand must not change (only the seats it names move on by one).
    """
    moved = records_pb2.GameRecord()
    moved.CopyFrom(record)

    def on(seat: int) -> int:
        return (seat + 1) % 4

    del moved.players[:]
    moved.players.extend(record.players[-1:] + record.players[:-1])
    context = moved.context
    context.team0_level, context.team1_level = (
        record.context.team1_level,
        record.context.team0_level,
    )
    if record.context.HasField("dealer"):
        context.dealer = on(record.context.dealer)
    if record.HasField("draw_order"):
        moved.draw_order.first_drawer = on(record.draw_order.first_drawer)
    else:
        hands = list(record.dealt_hands.hands)
        del moved.dealt_hands.hands[:]
        moved.dealt_hands.hands.extend(hands[-1:] + hands[:-1])
    for bid in moved.bids:
        bid.seat = on(bid.seat)
    for exchange in moved.kitty_exchanges:
        exchange.seat = on(exchange.seat)
    for trick in moved.tricks:
        trick.leader = on(trick.leader)
        for play in trick.plays:
            play.seat = on(play.seat)
        if trick.claim.HasField("winner"):
            trick.claim.winner = on(trick.claim.winner)
    if moved.claim.HasField("next_dealer"):
        moved.claim.next_dealer = on(moved.claim.next_dealer)
    return moved
