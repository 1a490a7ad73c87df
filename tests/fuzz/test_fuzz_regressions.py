"""One test per crash or stall the fuzzing found (docs/reliability.md, "Bugs found")."""

from __future__ import annotations

import base64
import copy
import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from chaodipi.auditor import audit_game, audit_match
from chaodipi.engine.presets import ruleset_from_mapping
from chaodipi.engine.ruleset import RulesetError
from chaodipi.importers import ImportFailed, load_bytes
from chaodipi.v1 import records_pb2
from tests.auditor.conftest import hand, match
from tests.fuzz.targets import check_import

FIXTURES = Path(__file__).parent.parent / "fixtures"


@cache
def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def _doc(name: str) -> Any:
    return json.loads(_fixture(name))


def _problems(data: bytes | str, fmt: str, name: str = "f.json") -> list[tuple[str, str]]:
    raw = data.encode() if isinstance(data, str) else data
    result = check_import(raw, name, fmt, strict=False)
    assert result is not None
    with pytest.raises(ImportFailed):
        load_bytes(raw, name, fmt, strict=True)
    return [(p.location, p.message) for p in result.errors]


def _rejections(record: records_pb2.GameRecord) -> list[str]:
    return [v.field for v in audit_game(record).rejections]


# -- the audit ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [6, 99, -5, 2**31 - 1])
def test_bid_kind_outside_the_enum_is_a_rejection(kind: int) -> None:
    record = hand("classic", 0, first_hand=False)
    record.bids[0].kind = kind  # type: ignore[assignment]
    report = audit_game(record)
    assert [(v.field, v.description) for v in report.rejections] == [
        ("bids[0].kind", f"bid kind {kind} is not one of 1-5 (BidKind)")
    ]


@pytest.mark.parametrize(
    ("overrides", "where"),
    [
        ('{"reconstructed": 5}', "ruleset.reconstructed"),
        ('{"level": {"must_play": 2.5}}', "ruleset.level.must_play"),
        ('{"level": {"must_play": "JA"}}', "ruleset.level.must_play"),
        ('{"hand_size": "25"}', "ruleset.hand_size"),
        ('{"decks": 2.0}', "ruleset.decks"),
        ('{"id": 7}', "ruleset.id"),
        ('{"kitty": {"pair": "6"}}', "ruleset.kitty.pair"),
        ('{"throw": {"penalty_per_card": 10000000000}}', "ruleset.throw.penalty_per_card"),
        ('{"order": {"tractor_links": [[1, 2, 3]]}}', "ruleset.order.tractor_links[0]"),
        ('{"bidding": {"max_overcalls": "3"}}', "ruleset.bidding.max_overcalls"),
        ('{"bidding": {"ladder": ["1:*", 5]}}', "ruleset.bidding.ladder[1]"),
        ('{"bidding": {"lock": "yes"}}', "ruleset.bidding.lock"),
        ('{"level": {"first_level": 3}}', "ruleset.level.first_level"),
        (
            '{"level": {"bands": [{"lo": 0, "hi": null, "outcome": "swap", "levels": "x"}]}}',
            "ruleset.level.bands[0].levels",
        ),
    ],
)
def test_overrides_of_the_wrong_type_are_a_rejection(overrides: str, where: str) -> None:
    record = hand("classic", 1)
    record.ruleset_overrides_json = overrides
    report = audit_game(record)
    assert [v.field for v in report.rejections] == ["ruleset_overrides_json"]
    assert report.rejections[0].description.startswith(f"{where}: expected ")
    with pytest.raises(RulesetError, match=where.replace("[", r"\[").replace("]", r"\]")):
        ruleset_from_mapping({"base": "classic", **json.loads(overrides)})


@pytest.mark.parametrize(
    ("overrides", "where"),
    [
        ('{"throw": {"penalty_per_card": -1}}', "ruleset.throw.penalty_per_card"),
        ('{"throw": {"penalty_per_card": 1}}', "ruleset.throw.penalty_per_card"),
        (
            '{"level": {"bands": [{"lo": 0, "hi": 40, "outcome": "dealer_up", "levels": -1}, '
            '{"lo": 45, "hi": null, "outcome": "swap"}]}}',
            "ruleset.level.bands[0].levels",
        ),
        (
            '{"level": {"bands": [{"lo": 0, "hi": null, "outcome": "defenders_up", "anchor": 80, '
            '"direction": -1, "step": 10}]}}',
            "ruleset.level.bands[0].levels",
        ),
    ],
)
def test_overrides_that_break_the_score_are_a_rejection(overrides: str, where: str) -> None:
    record = hand("classic", 1)  # penalties 1 a card: 57 points fell between two bands
    record.ruleset_overrides_json = overrides
    report = audit_game(record)
    assert [v.field for v in report.rejections] == ["ruleset_overrides_json"]
    assert report.rejections[0].description.startswith(f"{where}: ")


def test_match_points_over_bands_that_name_no_side_are_a_rejection() -> None:
    overrides = '{"level": {"match_points": true}}'  # classic's 80-95 band swaps the deal
    record = hand("classic", 1)
    record.ruleset_overrides_json = overrides
    match_record = match("classic", 1)
    match_record.ruleset_overrides_json = overrides
    expected = [
        (
            "ruleset_overrides_json",
            "ruleset.level.bands[4].outcome: swap gives no side match points "
            "(with level.match_points, each band is dealer_up or defenders_up)",
        )
    ]
    assert [(v.field, v.description) for v in audit_game(record).rejections] == expected
    match_report = audit_match(match_record)
    assert [(v.field, v.description) for v in match_report.rejections] == expected


@pytest.mark.parametrize("overrides", ["[" * 5000, '{"a":' * 3000, "1" * 5000])
def test_overrides_too_deep_or_too_long_a_number_are_a_rejection(overrides: str) -> None:
    record = hand("anhui", 1)
    record.ruleset_overrides_json = overrides
    match_record = match("anhui", 0)
    match_record.ruleset_overrides_json = overrides
    assert _rejections(record) == ["ruleset_overrides_json"]
    assert [v.field for v in audit_match(match_record).rejections] == ["ruleset_overrides_json"]


def test_failed_throw_with_nothing_played_is_audited() -> None:
    record = hand("classic", 5, first_hand=False)
    lead = record.tricks[9].plays[0]
    assert list(lead.attempted) and len(lead.cards) == 1  # a failed throw, one card forced
    del lead.cards[:]
    findings = [f.code for f in audit_game(record).findings if f.position.trick == 9]
    assert findings[:4] == ["THROW_ENFORCED_WRONGLY", *["WRONG_CARD_COUNT"] * 3]


def _blown_up(what: str) -> tuple[records_pb2.GameRecord, str]:
    record = hand("classic", 2)
    if what == "tricks":
        for i in range(10_000 - len(record.tricks)):
            record.tricks.add().CopyFrom(record.tricks[i])
        return record, "tricks"
    if what == "plays":
        record.tricks[3].plays.extend(
            records_pb2.Play(seat=i % 4, cards=["SA"]) for i in range(5_000)
        )
        return record, "tricks[3].plays"
    if what == "cards":
        record.tricks[5].plays[2].cards.extend(["H7"] * 5_000)
        return record, "tricks[5].plays[2].cards"
    if what == "bids":
        for _ in range(10_000):
            record.bids.add().CopyFrom(record.bids[0])
        return record, "bids"
    if what == "exchanges":
        for _ in range(5_000):
            record.kitty_exchanges.add().CopyFrom(record.kitty_exchanges[0])
        return record, "kitty_exchanges"
    for _ in range(5_000):
        record.tricks[0].declared_split.add(cards=["SA"])
    return record, "tricks[0].declared_split"


@pytest.mark.parametrize("what", ["tricks", "plays", "cards", "bids", "exchanges", "split"])
def test_huge_repeated_field_is_rejected(what: str) -> None:
    # Rejected when read, so never replayed (the replay of such records took seconds to
    # minutes: docs/reliability.md); speed itself is measured in tests/fuzz/campaign.py, not here.
    record, field = _blown_up(what)
    report = audit_game(record)
    assert [v.field for v in report.rejections] == [field]
    assert "at most" in report.rejections[0].description


def test_match_of_thousands_of_hands_is_rejected() -> None:
    record = match("classic", 1)
    for _ in range(2_000):
        record.hands.add().CopyFrom(record.hands[0])
    report = audit_match(record)
    assert [v.field for v in report.rejections] == ["hands"]
    assert not report.hands


# -- the importers ------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["auto", "json", "eighty", "botzone"])
@pytest.mark.parametrize(
    "text", ["[" * 5000, '{"a":' * 3000, "1" * 5000, '{"x": 1' + "0" * 4400 + "}"]
)
def test_json_too_deep_or_too_long_a_number_is_a_problem(fmt: str, text: str) -> None:
    (problem,) = _problems(text, fmt)
    assert problem[0] == "line 1 column 1"
    assert "expected" in problem[1]


def test_protojson_digit_string_int_cannot_read_is_a_problem() -> None:
    assert _problems('{"context": {"handNumber": "²"}}', "json") == [
        ("$.context.handNumber", "expected a whole number, found a string")
    ]


@pytest.mark.parametrize("number", [2**32 + 1, 2**40, -(2**33)])
def test_protojson_enum_number_beyond_32_bits_is_a_problem(number: int) -> None:
    # json_format kept the low 32 bits: 2**32 + 1 was read as BID_KIND_DECLARE.
    assert _problems(f'{{"bids": [{{"kind": {number}}}]}}', "json") == [
        ("$.bids[0].kind", f"expected an enum name or a 32-bit number, found {number}")
    ]


@pytest.mark.parametrize("completed_at", [10**20, -(10**20), 2**40])
def test_eighty_completed_at_out_of_range_is_a_problem(completed_at: int) -> None:
    row = {"replay_json": _fixture("eighty/deal-25-tricks.json"), "completed_at": completed_at}
    assert _problems(json.dumps(row), "eighty") == [
        ("$.completed_at", f"expected a number 0-253402300799, found {completed_at}")
    ]


@pytest.mark.parametrize(
    ("event_type", "key", "location"),
    [
        ("trick", "points", "$.events[{i}].points"),
        ("round_scored", "total", "$.events[{i}].score.total"),
        ("deal_started", "round", "$.events[{i}].round"),
    ],
)
def test_eighty_number_beyond_32_bits_is_a_problem(
    event_type: str, key: str, location: str
) -> None:
    replay = _doc("eighty/deal-25-tricks.json")
    i, event = next((i, e) for i, e in enumerate(replay["events"]) if e["type"] == event_type)
    (event["score"] if event_type == "round_scored" else event)[key] = 2**40
    ((where, message),) = _problems(json.dumps(replay), "eighty")
    assert where == location.format(i=i)
    assert message.startswith("expected a number ") and message.endswith(f"found {2**40}")


@pytest.mark.parametrize(("suit", "found"), [({}, "an object"), ([], "an array"), (3, "a number")])
def test_eighty_trump_suit_that_is_no_string_is_a_problem(suit: Any, found: str) -> None:
    replay = _doc("eighty/deal-25-tricks.json")
    replay["trump"]["suit"] = suit
    assert _problems(json.dumps(replay), "eighty") == [
        ("$.trump.suit", f"expected S, H, D, C or null, found {found}")
    ]


def test_envelope_with_corrupt_gzip_is_a_problem() -> None:
    data = bytearray(gzip.compress(_fixture("eighty/deal-25-tricks.json").encode(), mtime=0))
    data[10] ^= 0xFF  # the first byte of the deflate stream: zlib.error, not BadGzipFile
    envelope = {"encoding": "gzip+base64", "data": base64.b64encode(bytes(data)).decode()}
    ((where, message),) = _problems(json.dumps(envelope), "eighty")
    assert where == "$.data"
    assert message.startswith("expected base64 of gzip-compressed JSON")


def test_envelope_that_inflates_beyond_the_limit_is_refused() -> None:
    bomb = gzip.compress(b"[" + b" " * (40 << 20) + b"]", mtime=0)
    envelope = {"encoding": "gzip+base64", "data": base64.b64encode(bomb).decode()}
    assert _problems(json.dumps(envelope), "botzone") == [
        (
            "$.data",
            "expected at most 16777216 bytes of JSON inside the envelope: it inflates to more",
        )
    ]


def _botzone_requests(log: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        request
        for item in log["log"][::2]
        for request in item["output"].get("content", {}).values()
        if isinstance(request, dict)
    ]


def test_botzone_seat_that_is_no_number_is_a_problem() -> None:
    log = _doc("botzone/full-deal.json")
    log["log"][0]["output"]["content"] = {"x": log["log"][0]["output"]["content"]["0"]}
    log["log"][1] = {"x": log["log"][1]["0"]}
    assert _problems(json.dumps(log), "botzone") == [
        ("$.log[0].output.content", "expected a seat 0-3 as the key, found 'x'")
    ]


@pytest.mark.parametrize("banking", [[1], "s", {"major": []}, {"major": {}}])
def test_botzone_banking_of_the_wrong_type_is_a_problem(banking: Any) -> None:
    log = _doc("botzone/full-deal.json")
    for request in _botzone_requests(log):
        request["global"]["banking"] = copy.deepcopy(banking)
    ((where, message),) = _problems(json.dumps(log), "botzone")
    assert where.endswith(
        ".global.banking" if not isinstance(banking, dict) else ".global.banking.major"
    )
    assert message.startswith("expected ")


def test_botzone_score_beyond_32_bits_is_a_problem() -> None:
    log = _doc("botzone/full-deal.json")
    for request in _botzone_requests(log):
        request["global"]["total_score"] = 2**40
    ((where, message),) = _problems(json.dumps(log), "botzone")
    assert where.endswith(".global.total_score")
    assert message.endswith(f"found {2**40}")
