"""Checking the deal: whole decks of the ruleset, dealt in its hand and kitty sizes."""

from __future__ import annotations

from functools import cache
from itertools import chain

from chaodipi.auditor.findings import count_cards
from chaodipi.auditor.state import HandState
from chaodipi.engine import KINDS, label_cards
from chaodipi.engine.cards import full_deck
from chaodipi.v1 import audit_pb2

DEAL = audit_pb2.PHASE_DEAL


LISTED = 8
"""Cards named one by one in a DEAL_INVALID message; more are counted (a deal mostly absent)."""


def _listed(what: str, cards: list[int]) -> str:
    """``extra ♦J``, or ``100 cards missing`` when there are more than ``LISTED``."""
    if not cards:
        return ""
    if len(cards) > LISTED:
        return f"{count_cards(len(cards))} {what}"
    return f"{what} {label_cards(cards)}"


@cache
def _whole_decks(decks: int) -> tuple[int, ...]:
    """Every card of ``decks`` decks, in kind order: a whole deal, sorted."""
    return tuple(full_deck(decks))


def check_deal(state: HandState) -> None:
    """DEAL_INVALID for a deal that is not whole decks, a hand or a kitty of the wrong size.

    It checks the deal as read (``state.read``): it runs before a card moves.
    """
    rs = state.ruleset
    findings = state.findings
    read = state.read
    # Sorted in C, a whole deal is its decks in kind order: cheaper than adding up the hands'
    # counts kind by kind, which only the message on a deal that is not whole decks needs.
    deal = sorted(chain(*read.hands, read.kitty))
    if tuple(deal) != _whole_decks(rs.decks):
        counts = [0] * KINDS
        for kind in deal:
            counts[kind] += 1
        extra = [k for k in range(KINDS) for _ in range(max(counts[k] - rs.decks, 0))]
        missing = [k for k in range(KINDS) for _ in range(max(rs.decks - counts[k], 0))]
        parts = [_listed("extra", extra), _listed("missing", missing)]
        shown = "; ".join(part for part in parts if part)
        deck, dealt = KINDS * rs.decks, sum(counts)
        holds = f" (it holds {dealt} of {deck} cards)" if dealt != deck else ""
        findings.record(
            "DEAL_INVALID",
            f"the deal is not {rs.decks} whole decks{holds}: {shown}",
            DEAL,
            expected=f"{rs.decks} copies of each of the 54 cards",
            recorded=shown,
        )
    for seat, cards in enumerate(read.hands):
        size = len(cards)
        if size != rs.hand_size:
            findings.record(
                "DEAL_INVALID",
                f"seat {seat} was dealt {count_cards(size)}; {rs.id} deals {rs.hand_size}",
                DEAL,
                seat=seat,
                expected=str(rs.hand_size),
                recorded=str(size),
            )
    if len(read.kitty) != rs.kitty_size:
        findings.record(
            "DEAL_INVALID",
            f"the kitty holds {count_cards(len(read.kitty))}; {rs.id} keeps {rs.kitty_size}",
            DEAL,
            expected=str(rs.kitty_size),
            recorded=str(len(read.kitty)),
        )
