"""A small corpus for the batch tests: pb, JSON and text files, planted faults, one bad file."""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

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


# Ray waits a fixed 30 s for its raylet to register (ray/_private/node.py); on a loaded CI machine
# that start can take longer, so a start that timed out is tried again rather than failing a test
# that is not about start-up time.
RAY_START_ATTEMPTS = 4


@pytest.fixture(scope="session")
def ray_local() -> Iterator[ModuleType]:
    """One local Ray instance of 2 CPUs, on loopback, shared by the batch tests of a process."""
    if os.environ.get("CI"):
        import ray  # CI installs the ray extra: its absence is a failure there
    else:
        ray = pytest.importorskip("ray")
    for attempt in range(1, RAY_START_ATTEMPTS + 1):
        try:
            ray.init(
                num_cpus=2,
                include_dashboard=False,
                logging_level=logging.WARNING,
                _node_ip_address="127.0.0.1",  # stay on loopback
            )
            break
        except Exception as error:
            ray.shutdown()
            if "timed out during startup" not in str(error) or attempt == RAY_START_ATTEMPTS:
                raise
    yield ray
    ray.shutdown()
