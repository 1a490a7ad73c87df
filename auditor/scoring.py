"""Scoring the hand once played out: kitty, defenders' points, level change, next dealer.

The defenders' points (R-SCORE) are their tricks' points and the throw penalties, counted
trick by trick, plus the kitty (R-KITTY) when a defender wins the last trick; the level
table reads them (R-LEVEL) and the ruleset names the next dealer (R-MATCH-DEALER).
"""

from __future__ import annotations

from chaodipi.auditor.claims import check_hand_claim
from chaodipi.auditor.findings import count_cards
from chaodipi.auditor.state import HandState
from chaodipi.auditor.wire import fill_level
from chaodipi.engine import (
    Unit,
    clears_must_play,
    kitty_bonus,
    kitty_multiplier,
    last_trick_bonus,
    level_result,
    next_dealer,
    points_of,
)
from chaodipi.v1 import audit_pb2

SCORING = audit_pb2.PHASE_SCORING


def score_hand(replay: HandState) -> None:
    """Compute the score, level result and next dealer, then check the table's claims."""
    rs, computed = replay.ruleset, replay.computed
    leftover = [(s, len(h)) for s, h in enumerate(replay.hands) if len(h)]
    tricks = replay.read.tricks
    if leftover or not tricks:
        held = ", ".join(f"seat {s} has {count_cards(n)} left" for s, n in leftover)
        replay.findings.record(
            "RECORD_INCOMPLETE",
            f"the hand is not played out ({held or 'no trick was played'}); kitty, score "
            "and level are not checked",
            SCORING,
        )
        replay.snapshot(SCORING)
        return
    last = computed.tricks[-1]
    computed.kitty_points = points_of(replay.kitty)
    computed.penalties_total = sum(r.penalty for r in computed.tricks)
    if last.winner % 2 != replay.dealer % 2:
        units = replay.last_lead.units if replay.last_lead is not None else ()
        if not units:
            first = tricks[-1].plays[0].cards[:1]
            units = (Unit(1, tuple(first)),)
            replay.notes.append("the last lead had no legal shape: the kitty counts it a single")
        multiplier = kitty_multiplier(rs, units)
        computed.kitty_multiplier = multiplier
        computed.kitty_bonus = kitty_bonus(rs, replay.kitty, multiplier)
        extra = last_trick_bonus(rs, [k for p in tricks[-1].plays for k in p.cards])
        replay.defenders_points += computed.kitty_bonus + extra
    computed.defenders_points = replay.defenders_points
    levels = replay.read.team_levels
    dealer_team = replay.dealer % 2
    cleared = replay.cleared
    level = level_result(
        rs,
        replay.defenders_points,
        levels[dealer_team],
        levels[1 - dealer_team],
        dealer_team_cleared=cleared[dealer_team],
        defender_team_cleared=cleared[1 - dealer_team],
    )
    if clears_must_play(rs, levels[dealer_team], level):
        cleared[dealer_team].add(levels[dealer_team])
    fill_level(computed.level_result, level)
    if level.match_winner is None:
        # A hand that ends the match names no next dealer: the next match's first hand bids.
        nxt = next_dealer(rs, replay.dealer, level)
        if nxt is not None:
            computed.next_dealer = nxt
        computed.next_dealer_team = dealer_team if level.next_deal == "dealer" else 1 - dealer_team
    check_hand_claim(replay)
    replay.snapshot(SCORING)
