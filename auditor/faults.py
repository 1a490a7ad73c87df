"""Planting labelled faults into copies of clean records, one finding code at a time.

``plant(record, code, rng)`` returns a faulty copy and the ``Planted`` label (the
code and where the auditor must find it), or None when the record offers no place
for that fault (e.g. no failed throw to let stand). The original is never changed.
Later findings that follow from the fault (a card played twice, say) are expected
too; the label names the one the fault itself must raise.

>>> from chaodipi.auditor.generate import generate_hand
>>> import random
>>> faulty, label = plant(generate_hand("classic", seed=3), "SCORE_MISMATCH", random.Random(0))
>>> label.code, label.phase == audit_pb2.PHASE_SCORING
('SCORE_MISMATCH', True)
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from chaodipi.auditor.wire import SUITS_BY_PROTO, TOKEN_KINDS
from chaodipi.engine import KINDS, Table, TrumpFallback, card_token, get_ruleset
from chaodipi.engine.order import TrumpContext
from chaodipi.engine.units import canonical_split
from chaodipi.v1 import audit_pb2, records_pb2

Record = records_pb2.GameRecord


@dataclass(frozen=True, slots=True)
class Planted:
    """A planted fault: its code and the position the auditor must report it at."""

    code: str
    phase: int
    trick: int | None = None
    play: int | None = None
    seat: int | None = None
    bid_index: int | None = None
    exchange_index: int | None = None

    def matches(self, finding: audit_pb2.Finding) -> bool:
        """Does a finding report this fault (same code and position)?"""
        pos = finding.position
        if finding.code != self.code or pos.phase != self.phase:
            return False
        for name in ("trick", "play", "seat", "bid_index", "exchange_index"):
            want = getattr(self, name)
            if want is not None and (not pos.HasField(name) or getattr(pos, name) != want):
                return False
        return True


def _kinds(tokens: Iterable[str]) -> list[int]:
    return [TOKEN_KINDS[t] for t in tokens]


def _hands_before(record: Record, trick: int) -> list[Counter[int]]:
    """Each seat's cards just before ``trick`` (from the draw order and kitty exchanges)."""
    rs = get_ruleset(record.ruleset)
    deck = _kinds(record.draw_order.deck)
    first = record.draw_order.first_drawer
    hands: list[Counter[int]] = [Counter() for _ in range(4)]
    for i, kind in enumerate(deck[: 4 * rs.hand_size]):
        hands[(first + i) % 4][kind] += 1
    for ex in record.kitty_exchanges:
        hands[ex.seat].update(_kinds(ex.picked_up))
        hands[ex.seat].subtract(_kinds(ex.buried))
    for t in record.tricks[:trick]:
        for play in t.plays:
            hands[play.seat].subtract(_kinds(play.cards))
    return hands


def _context(record: Record) -> TrumpContext:
    trump = record.claim.trump
    return Table(get_ruleset(record.ruleset), trump.level, SUITS_BY_PROTO.get(trump.suit)).context


def _later_play(
    record: Record, seat: int, after: int, want: Callable[[int], bool]
) -> tuple[int, int, int] | None:
    """(trick, play, card index) of a later card of ``seat`` that satisfies ``want``."""
    for t in range(after + 1, len(record.tricks)):
        for p, play in enumerate(record.tricks[t].plays):
            if play.seat != seat:
                continue
            for i, token in enumerate(play.cards):
                if want(TOKEN_KINDS[token]):
                    return t, p, i
    return None


def _off_suit(ctx: TrumpContext, led: int) -> Callable[[int], bool]:
    """A test for cards outside the led effective suit."""
    return lambda k: ctx.suit[k] != led


def _swap(record: Record, a: tuple[int, int, int], b: tuple[int, int, int]) -> None:
    first = record.tricks[a[0]].plays[a[1]].cards
    second = record.tricks[b[0]].plays[b[1]].cards
    first[a[2]], second[b[2]] = second[b[2]], first[a[2]]


def _deal_invalid(r: Record, rng: random.Random) -> Planted | None:
    deck = r.draw_order.deck
    i = rng.randrange(len(deck) - get_ruleset(r.ruleset).kitty_size)
    deck[i] = next(
        card_token(k) for k in rng.sample(range(KINDS), KINDS) if card_token(k) != deck[i]
    )
    return Planted("DEAL_INVALID", audit_pb2.PHASE_DEAL)


def _card_not_in_hand(r: Record, rng: random.Random) -> Planted | None:
    t = rng.randrange(len(r.tricks))
    p = rng.randrange(1, 4)
    play = r.tricks[t].plays[p]
    held = _hands_before(r, t)[play.seat]
    absent = [k for k in range(KINDS) if held[k] <= 0]
    play.cards[0] = card_token(rng.choice(absent))
    return Planted("CARD_NOT_IN_HAND", audit_pb2.PHASE_PLAY, t, p, play.seat)


def _out_of_turn(r: Record, rng: random.Random) -> Planted | None:
    t = rng.randrange(len(r.tricks))
    plays = r.tricks[t].plays
    one, two = records_pb2.Play(), records_pb2.Play()
    one.CopyFrom(plays[1])
    two.CopyFrom(plays[2])
    plays[1].CopyFrom(two)
    plays[2].CopyFrom(one)
    return Planted("OUT_OF_TURN", audit_pb2.PHASE_PLAY, t, 1, plays[1].seat)


def _wrong_card_count(r: Record, rng: random.Random) -> Planted | None:
    t = rng.randrange(len(r.tricks))
    p = rng.randrange(1, 4)
    play = r.tricks[t].plays[p]
    del play.cards[-1]
    return Planted("WRONG_CARD_COUNT", audit_pb2.PHASE_PLAY, t, p, play.seat)


def _bid_illegal(r: Record, rng: random.Random) -> Planted | None:
    # Jokers never declare (常主不可进行报主), and a second declaration is never allowed.
    seat = rng.randrange(4)
    earlier = list(r.bids)
    del r.bids[:]
    r.bids.add(seat=seat, kind=records_pb2.BID_KIND_DECLARE, cards=["BJ"])
    r.bids.extend(earlier)
    return Planted("BID_ILLEGAL", audit_pb2.PHASE_BIDDING, seat=seat, bid_index=0)


def _kitty_invalid(r: Record, rng: random.Random) -> Planted | None:
    if not r.kitty_exchanges:
        return None
    picked = r.kitty_exchanges[0].picked_up
    i = rng.randrange(len(picked))
    picked[i] = "BJ" if picked[i] != "BJ" else "LJ"
    return Planted("KITTY_INVALID", audit_pb2.PHASE_KITTY, exchange_index=0)


def _lead_mixed_suits(r: Record, rng: random.Random) -> Planted | None:
    ctx = _context(r)
    for t in rng.sample(range(len(r.tricks)), len(r.tricks)):
        lead = r.tricks[t].plays[0]
        if len(lead.cards) < 2 or lead.attempted:
            continue
        led = ctx.suit[TOKEN_KINDS[lead.cards[0]]]
        later = _later_play(r, lead.seat, t, _off_suit(ctx, led))
        if later is not None:
            _swap(r, (t, 0, len(lead.cards) - 1), later)
            return Planted("LEAD_MIXED_SUITS", audit_pb2.PHASE_PLAY, t, 0, lead.seat)
    return None


def _throw_not_allowed(r: Record, rng: random.Random) -> Planted | None:
    # The same record under a variant without throws: its first throw is then illegal.
    ctx = _context(r)
    for t, trick in enumerate(r.tricks):
        lead = trick.plays[0]
        if len(canonical_split(ctx, _kinds(lead.attempted or lead.cards))) > 1:
            overrides = json.loads(r.ruleset_overrides_json or "{}")
            overrides.setdefault("throw", {})["allowed"] = False
            r.ruleset_overrides_json = json.dumps(overrides, sort_keys=True)
            return Planted("THROW_NOT_ALLOWED", audit_pb2.PHASE_PLAY, t, 0, lead.seat)
    return None


def _failed_throws(r: Record) -> list[int]:
    return [t for t, trick in enumerate(r.tricks) if trick.plays[0].attempted]


def _throw_not_enforced(r: Record, rng: random.Random) -> Planted | None:
    failed = _failed_throws(r)
    if not failed:
        return None
    t = rng.choice(failed)
    lead = r.tricks[t].plays[0]
    lead.cards[:] = list(lead.attempted)
    del lead.attempted[:]
    return Planted("THROW_NOT_ENFORCED", audit_pb2.PHASE_PLAY, t, 0, lead.seat)


def _throw_enforced_wrongly(r: Record, rng: random.Random) -> Planted | None:
    ctx = _context(r)
    for t in _failed_throws(r):
        lead = r.tricks[t].plays[0]
        forced = sorted(lead.cards)
        units = canonical_split(ctx, _kinds(lead.attempted))
        others = [u for u in units if sorted(card_token(k) for k in u.cards()) != forced]
        same_size = [u for u in others if u.size == len(forced)]
        if same_size:
            lead.cards[:] = [card_token(k) for k in rng.choice(same_size).cards()]
            return Planted("THROW_ENFORCED_WRONGLY", audit_pb2.PHASE_PLAY, t, 0, lead.seat)
    return None


def _follow_revoke(r: Record, rng: random.Random) -> Planted | None:
    ctx = _context(r)
    for t in rng.sample(range(len(r.tricks)), len(r.tricks)):
        trick = r.tricks[t]
        led = ctx.suit[TOKEN_KINDS[trick.plays[0].cards[0]]]
        for p in (1, 2, 3):
            play = trick.plays[p]
            on_suit = [i for i, c in enumerate(play.cards) if ctx.suit[TOKEN_KINDS[c]] == led]
            if not on_suit:
                continue
            later = _later_play(r, play.seat, t, _off_suit(ctx, led))
            if later is not None:
                _swap(r, (t, p, on_suit[0]), later)
                return Planted("FOLLOW_REVOKE", audit_pb2.PHASE_PLAY, t, p, play.seat)
    return None


def _follow_shape(r: Record, rng: random.Random) -> Planted | None:
    ctx = _context(r)
    for t in rng.sample(range(len(r.tricks)), len(r.tricks)):
        trick = r.tricks[t]
        lead = trick.plays[0]
        if len(lead.cards) != 2 or lead.cards[0] != lead.cards[1]:
            continue
        led = ctx.suit[TOKEN_KINDS[lead.cards[0]]]
        for p in (1, 2, 3):
            play = trick.plays[p]
            if play.cards[0] != play.cards[1] or ctx.suit[TOKEN_KINDS[play.cards[0]]] != led:
                continue
            pair = TOKEN_KINDS[play.cards[0]]
            held = _hands_before(r, t)[play.seat]

            def lone_card(
                k: int, led: int = led, pair: int = pair, held: Counter[int] = held
            ) -> bool:
                # A single of the led suit: swapping it in breaks the pair without a new one.
                return ctx.suit[k] == led and k != pair and held[k] == 1

            later = _later_play(r, play.seat, t, lone_card)
            if later is not None:
                _swap(r, (t, p, 1), later)
                return Planted("FOLLOW_SHAPE", audit_pb2.PHASE_PLAY, t, p, play.seat)
    return None


def _trick_claim(r: Record, rng: random.Random, code: str) -> Planted | None:
    t = rng.randrange(len(r.tricks))
    claim = r.tricks[t].claim
    if code == "TRICK_WINNER_MISMATCH":
        claim.winner = (claim.winner + rng.randrange(1, 4)) % 4
        return Planted(code, audit_pb2.PHASE_PLAY, t, seat=claim.winner)
    if code == "TRICK_POINTS_MISMATCH":
        claim.points += 5
    else:
        claim.penalty += 10
    return Planted(code, audit_pb2.PHASE_PLAY, t)


def _hand_claim(r: Record, rng: random.Random, code: str) -> Planted | None:
    claim = r.claim
    if code == "KITTY_MISMATCH":
        claim.kitty_bonus += 10
    elif code == "SCORE_MISMATCH":
        claim.defenders_points += 5
    elif code == "LEVEL_MISMATCH":
        claim.level_result.levels += 1
    elif code == "TRUMP_MISMATCH":
        claim.trump.suit = (
            records_pb2.SUIT_HEARTS
            if claim.trump.suit != records_pb2.SUIT_HEARTS
            else records_pb2.SUIT_SPADES
        )
        return Planted(code, audit_pb2.PHASE_BIDDING)
    elif claim.HasField("next_dealer"):
        claim.next_dealer = (claim.next_dealer + 1) % 4
    elif not r.context.first_hand and r.context.HasField("dealer"):
        # Dealt by declaration (anhui): the record names the wrong seat of the holding team.
        r.context.dealer = (r.context.dealer + 2) % 4
        return Planted(code, audit_pb2.PHASE_BIDDING)
    else:
        return None
    return Planted(code, audit_pb2.PHASE_SCORING)


def _unsupported(r: Record, rng: random.Random) -> Planted | None:
    rs = get_ruleset(r.ruleset)
    if rs.bidding.fallback_first_hand is TrumpFallback.UNSUPPORTED:
        # Nobody declares in a first hand: the texts are silent on trump (R-BID).
        r.context.first_hand = True
        r.context.ClearField("dealer")
        del r.bids[:]
    else:
        # A later hand without its dealer: the match decided it, the record does not say.
        r.context.first_hand = False
        r.context.ClearField("dealer")
    return Planted("UNSUPPORTED", audit_pb2.PHASE_BIDDING)


PLANTERS: dict[str, Callable[[Record, random.Random], Planted | None]] = {
    "DEAL_INVALID": _deal_invalid,
    "CARD_NOT_IN_HAND": _card_not_in_hand,
    "OUT_OF_TURN": _out_of_turn,
    "WRONG_CARD_COUNT": _wrong_card_count,
    "BID_ILLEGAL": _bid_illegal,
    "KITTY_INVALID": _kitty_invalid,
    "LEAD_MIXED_SUITS": _lead_mixed_suits,
    "THROW_NOT_ALLOWED": _throw_not_allowed,
    "THROW_NOT_ENFORCED": _throw_not_enforced,
    "THROW_ENFORCED_WRONGLY": _throw_enforced_wrongly,
    "FOLLOW_REVOKE": _follow_revoke,
    "FOLLOW_SHAPE": _follow_shape,
    "TRICK_WINNER_MISMATCH": lambda r, g: _trick_claim(r, g, "TRICK_WINNER_MISMATCH"),
    "TRICK_POINTS_MISMATCH": lambda r, g: _trick_claim(r, g, "TRICK_POINTS_MISMATCH"),
    "PENALTY_MISMATCH": lambda r, g: _trick_claim(r, g, "PENALTY_MISMATCH"),
    "KITTY_MISMATCH": lambda r, g: _hand_claim(r, g, "KITTY_MISMATCH"),
    "SCORE_MISMATCH": lambda r, g: _hand_claim(r, g, "SCORE_MISMATCH"),
    "LEVEL_MISMATCH": lambda r, g: _hand_claim(r, g, "LEVEL_MISMATCH"),
    "DEALER_MISMATCH": lambda r, g: _hand_claim(r, g, "DEALER_MISMATCH"),
    "TRUMP_MISMATCH": lambda r, g: _hand_claim(r, g, "TRUMP_MISMATCH"),
    "UNSUPPORTED": _unsupported,
}


def plant(record: Record, code: str, rng: random.Random) -> tuple[Record, Planted] | None:
    """A copy of ``record`` with one fault of ``code`` planted, and its label; None if no place."""
    copy = Record()
    copy.CopyFrom(record)
    label = PLANTERS[code](copy, rng)
    if label is None:
        return None
    copy.metadata["planted_fault"] = code
    return copy, label


def plant_any(record: Record, rng: random.Random) -> tuple[Record, Planted]:
    """A copy with one fault of a random code that fits the record."""
    for code in rng.sample(sorted(PLANTERS), len(PLANTERS)):
        planted = plant(record, code, rng)
        if planted is not None:
            return planted
    raise ValueError("no fault fits this record")
