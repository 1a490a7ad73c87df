"""Hypothesis strategies for well-typed random records (any field, any presence)."""

from __future__ import annotations

from hypothesis import strategies as st

from chaodipi.engine.cards import KINDS, RANK_LETTERS, card_token
from chaodipi.v1 import records_pb2

cards = st.lists(st.sampled_from([card_token(k) for k in range(KINDS)]), max_size=6)
ranks = st.sampled_from(["", *RANK_LETTERS])
ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)
seats = st.integers(min_value=-2, max_value=5)
texts = st.text(max_size=12)
suits = st.sampled_from(list(records_pb2.Suit.values()))


def _maybe(draw: st.DrawFn, strategy: st.SearchStrategy[object]) -> object | None:
    return draw(st.none() | strategy)


@st.composite
def players(draw: st.DrawFn) -> list[records_pb2.Player]:
    return [
        records_pb2.Player(id=draw(texts), display_name=draw(texts))
        for _ in range(draw(st.integers(0, 4)))
    ]


@st.composite
def tricks(draw: st.DrawFn) -> records_pb2.Trick:
    trick = records_pb2.Trick(leader=draw(seats))
    for k in range(draw(st.integers(0, 4))):
        seat = draw(st.sampled_from([(trick.leader + k) % 4, draw(seats)]))
        trick.plays.add(seat=seat, cards=draw(cards), attempted=draw(cards))
    for _ in range(draw(st.integers(0, 2))):
        trick.declared_split.add(cards=draw(cards))
    if draw(st.booleans()):
        trick.claim.SetInParent()
        for name in ("winner", "points", "penalty"):
            value = _maybe(draw, ints)
            if value is not None:
                setattr(trick.claim, name, value)
    return trick


@st.composite
def games(draw: st.DrawFn) -> records_pb2.GameRecord:
    game = records_pb2.GameRecord(
        record_id=draw(texts),
        ruleset=draw(texts),
        ruleset_overrides_json=draw(texts),
        players=draw(players()),
        played_at=draw(texts),
        venue=draw(texts),
        metadata=draw(st.dictionaries(texts, texts, max_size=2)),
    )
    if draw(st.booleans()):
        ctx = game.context
        ctx.SetInParent()
        ctx.hand_number, ctx.first_hand = draw(ints), draw(st.booleans())
        ctx.team0_level, ctx.team1_level = draw(ranks), draw(ranks)
        if draw(st.booleans()):
            ctx.dealer = draw(seats)
    deal = draw(st.sampled_from(["none", "draw", "dealt"]))
    if deal == "draw":
        game.draw_order.SetInParent()
        game.draw_order.deck.extend(draw(cards))
        game.draw_order.first_drawer = draw(seats)
    elif deal == "dealt":
        game.dealt_hands.SetInParent()
        for _ in range(draw(st.integers(0, 4))):
            game.dealt_hands.hands.add(cards=draw(cards))
        game.dealt_hands.kitty.extend(draw(cards))
    for _ in range(draw(st.integers(0, 3))):
        bid = game.bids.add(
            seat=draw(seats),
            kind=draw(st.sampled_from(list(records_pb2.BidKind.values()))),
            cards=draw(cards),
        )
        if draw(st.booleans()):
            bid.trump_chosen = draw(suits)
        if draw(st.booleans()):
            bid.drawn_count = draw(ints)
    for _ in range(draw(st.integers(0, 2))):
        game.kitty_exchanges.add(seat=draw(seats), picked_up=draw(cards), buried=draw(cards))
    game.tricks.extend(draw(st.lists(tricks(), max_size=3)))
    if draw(st.booleans()):
        claim = game.claim
        claim.SetInParent()
        for name in (
            "kitty_multiplier",
            "kitty_bonus",
            "defenders_points",
            "next_dealer",
            "stake_units",
        ):
            value = _maybe(draw, ints)
            if value is not None:
                setattr(claim, name, value)
        if draw(st.booleans()):
            claim.level_result.SetInParent()
            claim.level_result.outcome = draw(st.sampled_from(list(records_pb2.Outcome.values())))
            claim.level_result.levels = draw(ints)
            claim.level_result.dealer_team_level_after = draw(ranks)
            claim.level_result.defender_team_level_after = draw(ranks)
        if draw(st.booleans()):
            claim.trump.SetInParent()
            claim.trump.level, claim.trump.suit = draw(ranks), draw(suits)
    return game


@st.composite
def matches(draw: st.DrawFn) -> records_pb2.MatchRecord:
    match = records_pb2.MatchRecord(
        match_id=draw(texts),
        ruleset=draw(texts),
        ruleset_overrides_json=draw(texts),
        players=draw(players()),
        hands=draw(st.lists(games(), max_size=2)),
    )
    if draw(st.booleans()):
        match.claimed_result.SetInParent()
        if draw(st.booleans()):
            match.claimed_result.winning_team = draw(ints)
        match.claimed_result.team0_final_level = draw(ranks)
        match.claimed_result.team1_final_level = draw(ranks)
    return match


record_files = st.one_of(
    games().map(lambda g: records_pb2.RecordFile(game=g)),
    matches().map(lambda m: records_pb2.RecordFile(match=m)),
)
