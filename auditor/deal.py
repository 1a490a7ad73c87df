"""Checking the deal: whole decks of the ruleset, dealt in its hand and kitty sizes."""

from __future__ import annotations

from chaodipi.auditor.state import HandState
from chaodipi.engine import KINDS, Hand, label_cards
from chaodipi.v1 import audit_pb2

DEAL = audit_pb2.PHASE_DEAL


def check_deal(state: HandState) -> None:
    """DEAL_INVALID for a deal that is not whole decks, a hand or a kitty of the wrong size."""
    rs = state.ruleset
    findings = state.findings
    vectors = [hand.counts for hand in state.hands]
    counts = list(map(sum, zip(*vectors, Hand(state.kitty).counts, strict=True)))
    if counts.count(rs.decks) != KINDS:
        extra = [k for k in range(KINDS) for _ in range(max(counts[k] - rs.decks, 0))]
        missing = [k for k in range(KINDS) for _ in range(max(rs.decks - counts[k], 0))]
        parts = []
        if extra:
            parts.append(f"extra {label_cards(extra)}")
        if missing:
            parts.append(f"missing {label_cards(missing)}")
        findings.record(
            "DEAL_INVALID",
            f"the deal is not {rs.decks} whole decks: " + "; ".join(parts),
            DEAL,
            expected=f"{rs.decks} copies of each of the 54 cards",
            recorded=" ".join(parts),
        )
    for seat, hand in enumerate(state.hands):
        size = len(hand)
        if size != rs.hand_size:
            findings.record(
                "DEAL_INVALID",
                f"seat {seat} was dealt {size} cards; {rs.id} deals {rs.hand_size}",
                DEAL,
                seat=seat,
                expected=str(rs.hand_size),
                recorded=str(size),
            )
    if len(state.kitty) != rs.kitty_size:
        findings.record(
            "DEAL_INVALID",
            f"the kitty holds {len(state.kitty)} cards; {rs.id} keeps {rs.kitty_size}",
            DEAL,
            expected=str(rs.kitty_size),
            recorded=str(len(state.kitty)),
        )
