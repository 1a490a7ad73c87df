"""Round trips: generated records → text / pb / json → the same records."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_strategies import record_files

from chaodipi.importers import dumps, load_bytes
from chaodipi.importers.notation import format_records, read_text
from chaodipi.v1 import records_pb2


def _same(a: list[records_pb2.RecordFile], b: list[records_pb2.RecordFile]) -> None:
    assert [r.SerializeToString(deterministic=True) for r in a] == [
        r.SerializeToString(deterministic=True) for r in b
    ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(record_files, min_size=1, max_size=3))
def test_text_round_trip(records: list[records_pb2.RecordFile]) -> None:
    result = read_text(format_records(records), "generated.txt", strict=True)
    assert result.errors == []
    _same(result.records, records)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(record_files, min_size=1, max_size=3), st.sampled_from(["pb", "json", "text"]))
def test_every_output_reads_back(records: list[records_pb2.RecordFile], to: str) -> None:
    result = load_bytes(dumps(records, to), f"out.{'txt' if to == 'text' else to}", strict=True)
    _same(result.records, records)


@pytest.mark.parametrize("ruleset", ["classic", "shuangsheng", "anhui", "changshu"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_hands_round_trip(ruleset: str, seed: int) -> None:
    generate = pytest.importorskip("chaodipi.auditor.generate")
    game = generate.generate_hand(ruleset, seed)
    records = [records_pb2.RecordFile(game=game)]
    text = format_records(records)
    _same(read_text(text, "hand.txt", strict=True).records, records)
    assert f'[Ruleset "{ruleset}"]' in text


def test_generated_match_round_trips() -> None:
    generate = pytest.importorskip("chaodipi.auditor.generate")
    records = [records_pb2.RecordFile(match=generate.generate_match("classic", 7, max_hands=3))]
    _same(read_text(format_records(records), "match.txt", strict=True).records, records)
