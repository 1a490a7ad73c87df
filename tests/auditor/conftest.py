"""Shared generated records for the auditor tests (generation is deterministic, so cache it)."""

from __future__ import annotations

from functools import cache

from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.v1 import records_pb2

RULESETS = ("classic", "shuangsheng", "anhui", "changshu")


@cache
def _hand_bytes(ruleset: str, seed: int, first_hand: bool) -> bytes:
    dealer = None if first_hand else seed % 4
    return generate_hand(ruleset, seed, first_hand=first_hand, dealer=dealer).SerializeToString()


def hand(ruleset: str, seed: int, *, first_hand: bool = True) -> records_pb2.GameRecord:
    """A fresh copy of a generated hand (tests may change it)."""
    return records_pb2.GameRecord.FromString(_hand_bytes(ruleset, seed, first_hand))


@cache
def _match_bytes(ruleset: str, seed: int) -> bytes:
    return generate_match(ruleset, seed, max_hands=5).SerializeToString()


def match(ruleset: str, seed: int) -> records_pb2.MatchRecord:
    """A fresh copy of a generated match."""
    return records_pb2.MatchRecord.FromString(_match_bytes(ruleset, seed))
