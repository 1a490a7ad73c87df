"""Plays read from a record's bytes: the shared ones stay as they were built."""

from __future__ import annotations

import copy
import random

from chaodipi.auditor import audit_game
from chaodipi.auditor.analysis import analyse_game
from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand
from chaodipi.auditor.reading import _PLAYS_BY_CODE, read_game


def _snapshot() -> dict[bytes, tuple[int, list[int], list[int]]]:
    return {code: (p.seat, list(p.cards), list(p.attempted)) for code, p in _PLAYS_BY_CODE.items()}


def test_a_single_or_pair_read_is_the_one_shared_play_for_its_encoding() -> None:
    read = read_game(generate_hand("classic", seed=4))
    assert not isinstance(read, list)
    plays = [play for trick in read.tricks for play in trick.plays]
    shared = [play for play in plays if any(play is p for p in _PLAYS_BY_CODE.values())]
    assert len(shared) > len(plays) // 2  # most plays are a single card or a pair
    again = read_game(generate_hand("classic", seed=5))
    assert not isinstance(again, list)
    assert {id(p) for t in again.tricks for p in t.plays} & {id(p) for p in shared}


def test_audits_analyses_and_faulted_records_leave_the_shared_plays_as_built() -> None:
    before = _snapshot()
    rng = random.Random(7)
    for ruleset in ("classic", "shuangsheng", "anhui", "changshu"):
        for seed in range(6):
            record = generate_hand(ruleset, seed=seed)
            audit_game(record)
            audit_game(plant_any(copy.deepcopy(record), rng)[0])
        analyse_game(generate_hand(ruleset, seed=0), window=2)
    assert _snapshot() == before
