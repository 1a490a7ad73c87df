"""Generated sample games for an empty database (``chaodipi up``, the dashboard's first page),
stored through the service's ingest path.

One hand in five carries a planted fault; the first faulty hands get faults whose
evidence the replay page shows on the cards (a revoke with its legal alternative, a throw
beaten by a held card), so a new user sees every kind of highlight at once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from chaodipi.auditor.faults import plant, plant_any
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.engine.presets import BUILTIN
from chaodipi.service.ingest import ingest_records
from chaodipi.service.readmodel import ReadModel
from chaodipi.v1 import records_pb2

SHOWCASE = (
    "FOLLOW_REVOKE",
    "THROW_NOT_ENFORCED",
    "FOLLOW_SHAPE",
    "SCORE_MISMATCH",
    "TRICK_WINNER_MISMATCH",
    "LEAD_MIXED_SUITS",
)
"""Codes planted first, in this order, where the hand offers a place for them."""

FAULT_EVERY = 5
"""Every fifth hand carries a planted fault (rulesets rotate, so faults span all of them)."""
START = datetime(2026, 10, 1, 19, 0, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class SampleResult:
    """What ``load_samples`` did: records stored, and how many hands carry a planted fault."""

    stored: int
    planted: int
    skipped: bool


def sample_records(
    hands: int = 24, matches: int = 2, seed: int = 1
) -> tuple[list[records_pb2.RecordFile], int]:
    """Generated hands of every built-in ruleset (some with a planted fault) and matches, played
    over the past weeks; returns the records and how many carry a fault."""
    rng = random.Random(seed)
    records: list[records_pb2.RecordFile] = []
    showcase = list(SHOWCASE)
    planted = 0
    for i in range(hands):
        hand = generate_hand(BUILTIN[i % len(BUILTIN)], seed * 1000 + i)
        if i % FAULT_EVERY == 0:
            chosen = next(
                (found for code in showcase if (found := plant(hand, code, rng)) is not None), None
            )
            if chosen is not None:
                showcase.remove(chosen[1].code)
            hand = (chosen or plant_any(hand, rng))[0]
            planted += 1
        hand.played_at = (START + timedelta(hours=i * 29)).isoformat()
        records.append(records_pb2.RecordFile(game=hand))
    for m in range(matches):
        match = generate_match(BUILTIN[m % len(BUILTIN)], seed * 1000 + 500 + m, max_hands=5)
        begun = START + timedelta(days=3 + m * 9, hours=20)
        for n, hand in enumerate(match.hands):
            hand.played_at = (begun + timedelta(minutes=25 * n)).isoformat()
        records.append(records_pb2.RecordFile(match=match))
    return records, planted


def load_samples(
    model: ReadModel, *, hands: int = 24, matches: int = 2, seed: int = 1
) -> SampleResult:
    """Audit and store sample games for the model's tenant, only if it has no games yet."""
    if model.games(page_size=1).total:
        return SampleResult(0, 0, skipped=True)
    records, planted = sample_records(hands, matches, seed)
    summaries = ingest_records(model.sessions, model.tenant_id, records)
    stored = sum(1 for s in summaries if s.status == s.STATUS_STORED)
    return SampleResult(stored, planted, skipped=False)
