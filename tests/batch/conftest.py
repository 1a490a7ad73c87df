"""A small corpus for the batch tests: pb, JSON and text files, planted faults, one bad file."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from chaodipi import importers
from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.v1 import records_pb2

CLEAN_HANDS = 14
PLANTED = (2, 5, 9, 12)


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of 16 hands and one match in four readable files, and one malformed file."""
    folder = tmp_path_factory.mktemp("corpus")
    rng = random.Random(3)
    hands = [generate_hand(("classic", "anhui")[s % 2], s) for s in range(CLEAN_HANDS + 2)]
    for i in PLANTED:
        hands[i] = plant_any(hands[i], rng)[0]
    files = [records_pb2.RecordFile(game=h) for h in hands]
    importers.write(files[:8], folder / "day1.pb", "pb")
    importers.write(files[8:12], folder / "day1.json", "json")
    (folder / "later").mkdir()
    importers.write(files[12:], folder / "later" / "day2.pb", "pb")
    match = records_pb2.RecordFile(match=generate_match("classic", 5, max_hands=3))
    importers.write([match], folder / "later" / "match.txt", "text")
    (folder / "broken.json").write_text('{"record_id": ', encoding="utf-8")
    return folder
