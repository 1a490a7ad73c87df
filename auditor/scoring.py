"""Scoring the hand once played out: kitty, defenders' points, level change, next dealer.

The defenders' points (R-SCORE) are their tricks' points and the throw penalties, counted
trick by trick, plus the kitty (R-KITTY) when a defender wins the last trick; the level
table reads them (R-LEVEL) and the ruleset names the next dealer (R-MATCH-DEALER). A table
of match points (``LevelRule.match_points``, Botzone's) moves no level: the side that scores
and its points are checked against the claimed result instead.
"""

from __future__ import annotations

from chaodipi.auditor.claims import check_hand_claim
from chaodipi.auditor.findings import count_cards
from chaodipi.auditor.state import HandState
from chaodipi.auditor.wire import fill_level
from chaodipi.engine import (
    KINDS,
    Unit,
    clears_must_play,
    kitty_bonus,
    kitty_multiplier,
    last_trick_bonus,
    level_result,
    match_points,
    next_dealer,
    points_of,
)
from chaodipi.v1 import audit_pb2, records_pb2

SCORING = audit_pb2.PHASE_SCORING


def score_hand(replay: HandState) -> None:
    """Compute the score, level result and next dealer, then check the table's claims."""
    rs, computed = replay.ruleset, replay.computed
    # Cards left: a hand played out counts 0 of every kind. ``count(0)`` compares each count
    # with 0 at C speed (the same object), cheaper than any() testing each for truth or len()
    # summing them.
    leftover = [(s, len(h)) for s, h in enumerate(replay.hands) if h.counts.count(0) != KINDS]
    tricks = replay.read.tricks
    if leftover or not tricks:
        held = ", ".join(f"seat {s} has {count_cards(n)} left" for s, n in leftover)
        why = f"{replay.read.incomplete}; " if replay.read.incomplete else ""
        replay.findings.record(
            "RECORD_INCOMPLETE",
            f"{why}the hand is not played out ({held or 'no trick was played'}); kitty, score "
            "and level are not checked",
            SCORING,
        )
        replay.snapshot(SCORING)
        return
    last = computed.tricks[-1]
    computed.kitty_points = points_of(replay.kitty)
    # Only a throw's trick has a penalty: the throws' results hold them all.
    computed.penalties_total = sum(penalty for penalty, _ in replay.throw_results.values())
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
    if rs.level.match_points:
        _check_match_points(replay)
        check_hand_claim(replay)
        replay.snapshot(SCORING)
        return
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


_CLAIMED_SIDE = {
    records_pb2.OUTCOME_DEALER_UP: "dealer",
    records_pb2.OUTCOME_DEFENDERS_UP: "defenders",
}


def _check_match_points(replay: HandState) -> None:
    """Match points for the deal (no level moves): a note, and LEVEL_MISMATCH for a wrong claim.

    A claimed ``level_result`` reads as the claimed points: ``dealer_up`` n, the dealer's
    side scores n; ``defenders_up`` n, the defenders do.
    """
    points = replay.defenders_points
    side, n = match_points(replay.ruleset, points)
    dealer_team = replay.dealer % 2

    def who(team_side: str) -> str:
        team = dealer_team if team_side == "dealer" else 1 - dealer_team
        name = "the dealer's side" if team_side == "dealer" else "the defenders"
        return f"{name} (seats {team} and {team + 2})"

    replay.notes.append(
        f"{replay.ruleset.id}'s table gives match points for the deal, not levels: "
        f"{who(side)} score {n} each, the other side 0; no level moves"
    )
    claim = replay.read.claim
    if claim is None or not claim.HasField("level_result"):
        return
    got = claim.level_result
    claimed = _CLAIMED_SIDE.get(got.outcome)
    if (claimed, got.levels) == (side, n):
        return
    said = f"{who(claimed)} {got.levels}" if claimed else "no match points"
    replay.findings.record(
        "LEVEL_MISMATCH",
        f"the defenders' {points} points give {who(side)} {n} match points each; "
        f"{said} were claimed",
        SCORING,
        expected=f"{side} {n}",
        recorded=f"{claimed} {got.levels}" if claimed else "none",
    )
