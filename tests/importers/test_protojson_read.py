"""Protobuf JSON records are read in one walk (``protojson._read``), checked and set field by
field: what it reads is what ``json_format.ParseDict`` reads, and what it refuses it names by
JSON path."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from google.protobuf import json_format

from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.engine.presets import BUILTIN
from chaodipi.importers.problems import RecordError
from chaodipi.importers.protojson import _MATCH_ONLY, record_from_json
from chaodipi.v1 import records_pb2
from tests.fuzz.mutators import mutate_json


def _documents(ruleset: str) -> list[dict[str, Any]]:
    hand = generate_hand(ruleset, 3)
    hand.metadata["venue note"] = "茶馆 \u2028 tab\t"
    hand.tricks[0].claim.points = 0  # an optional field set to its default: kept
    match = generate_match(ruleset, 4)
    documents = []
    for message in (hand, match, records_pb2.RecordFile(game=hand)):
        for proto_names in (False, True):
            documents.append(
                json_format.MessageToDict(message, preserving_proto_field_name=proto_names)
            )
    return documents


def _parse_dict(document: dict[str, Any]) -> records_pb2.RecordFile:
    """``json_format.ParseDict`` of a document as the type ``record_from_json`` reads it as."""
    document = copy.deepcopy(document)
    if "game" in document or "match" in document:
        return json_format.ParseDict(document, records_pb2.RecordFile())
    if _MATCH_ONLY & document.keys():
        return records_pb2.RecordFile(
            match=json_format.ParseDict(document, records_pb2.MatchRecord())
        )
    return records_pb2.RecordFile(game=json_format.ParseDict(document, records_pb2.GameRecord()))


@pytest.mark.parametrize("ruleset", sorted(BUILTIN))
def test_records_read_as_parse_dict_reads_them(ruleset: str) -> None:
    for document in _documents(ruleset):
        record = record_from_json(document, "$")
        assert record == _parse_dict(document)
        if record.HasField("game"):
            assert record.game.tricks[0].claim.HasField("points")  # presence as ParseDict sets


@pytest.mark.parametrize("ruleset", sorted(BUILTIN))
def test_what_is_read_from_a_damaged_document_is_what_parse_dict_reads(ruleset: str) -> None:
    # The reader is the stricter: whatever it accepts ParseDict accepts, as the same record.
    rng = random.Random(ruleset)
    accepted = refused = 0
    for document in _documents(ruleset):
        for _ in range(60):
            damaged = copy.deepcopy(document)
            for _ in range(rng.randint(1, 3)):
                damaged = mutate_json(damaged, random.Random(rng.getrandbits(32)))
            try:
                record = record_from_json(damaged, "$")
            except RecordError as problem:
                refused += 1
                assert str(problem).startswith("$")  # a JSON path, then what is expected
                continue
            accepted += 1
            assert record == _parse_dict(damaged)
    assert accepted and refused  # both sides of the property were exercised


@pytest.mark.parametrize(
    ("document", "where", "expected"),
    [
        ({"venue": "\ud800"}, "$.venue", "expected text, found a string with an unpaired"),
        ({"metadata": {"k": 1}}, "$.metadata.k", "expected a string, found a number"),
        ({"drawOrder": {"deck": ["SA", "\udfff"]}}, "$.drawOrder.deck[1]", "expected text"),
        ({"drawOrder": {"deck": ["SA", 5]}}, "$.drawOrder.deck[1]", "expected a string, found"),
        ({"recordId": "a", "record_id": "b"}, "$.record_id", "expected recordId once"),
        ({"context": {"dealer": "2"}}, None, None),  # digits for a number: read
        ({"context": {"dealer": 2.0}}, None, None),  # a whole float: read
        ({"context": {"dealer": 2.5}}, "$.context.dealer", "expected a whole number"),
        ({"context": {"dealer": 2**31}}, "$.context.dealer", "expected a 32-bit whole number"),
        ({"bids": [{"kind": "BID_KIND_NONE"}]}, "$.bids[0].kind", "expected one of"),
        ({"bids": [{"kind": 2**40}]}, "$.bids[0].kind", "expected an enum name or a 32-bit"),
        ({"tricks": [None]}, "$.tricks[0]", "expected an object (Trick), found null"),
        ({"tricks": {}}, "$.tricks", "expected an array"),
        ({"claim": {}, "venue": None}, None, None),  # {} sets a message, null leaves a field
    ],
)
def test_a_field_that_does_not_fit_is_named_by_its_path(
    document: dict[str, Any], where: str | None, expected: str | None
) -> None:
    if where is None:
        record = record_from_json(document, "$")
        assert record == _parse_dict(document)
        return
    with pytest.raises(RecordError) as raised:
        record_from_json(document, "$")
    assert str(raised.value).startswith(f"{where}: {expected}")
