"""One test per error kind: each names the file, the line or JSON path, and what was expected."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest

from chaodipi.importers import ImportFailed, load_bytes
from chaodipi.importers.notation import read_text

FIXTURES = Path(__file__).parent.parent / "fixtures"
GOOD = '[Game "ok"]\nhand 0: SA\nkitty: -\n'


def _one_error(text: str) -> str:
    result = read_text(text, "t.txt")
    assert len(result.errors) == 1, result.errors
    return str(result.errors[0])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[Game "g"]\nhand 0: SA SX\n',
            "t.txt: line 2: hand 0: bad card token 'SX': expected a card",
        ),
        (
            '[Game "g"]\n[Colour "red"]\n',
            "t.txt: line 2: unknown game header [Colour]: expected one of",
        ),
        (
            '[Game "g"\n',
            't.txt: line 1: malformed header \'[Game "g"\': expected [Tag "value" ...]',
        ),
        (
            '[Game "g"]\n[Levels "2"]\n',
            "t.txt: line 2: [Levels] takes 2 values (team 0's level, team 1's level): found 1",
        ),
        (
            '[Game "g"]\n[Venue "a"]\n[Venue "b"]\n',
            "t.txt: line 3: [Venue] given twice (first on line 2): expected it once",
        ),
        (
            '[Game "g"]\nhand 0: SA\n[Venue "b"]\n',
            "t.txt: line 3: header [Venue] after the hand's moves: expected headers first",
        ),
        (
            "hand 0: SA\n",
            "t.txt: line 1: move line 'hand' outside a hand: expected a [Game] header",
        ),
        (
            '[Game "g"]\nplay 0: SA\n',
            "t.txt: line 2: unknown line 'play': expected a [Header] or "
            "one of draw, hand, kitty, bid, bury, trick, claim",
        ),
        (
            '[Game "g"]\nbid one declare: S2\n',
            "t.txt: line 2: malformed bid line: expected "
            "`bid <seat> <kind>: <cards> [trump=<suit>] [drawn=<count>]`",
        ),
        ('[Game "g"]\ntrick 2 @0: SA\n', "t.txt: line 2: trick 2: expected trick 1 next"),
        ('[Game "g"]\nhand 1: SA\n', "t.txt: line 2: hand 1: expected hand 0 next"),
        (
            '[Game "g"]\ndraw 0: SA\nkitty: SK\n',
            "t.txt: line 3: the deal is already given as draw "
            "order: expected either a draw line or hand and kitty lines, not both",
        ),
        (
            '[Game "g"]\nbid 0 shout: S2\n',
            "t.txt: line 2: bid 1 kind: expected one of -, declare, "
            "lock, overcall, chaodi, flip, found 'shout'",
        ),
        (
            '[Game "g"]\ntrick 1 @0: SA ; claim winner=x\n',
            "t.txt: line 2: trick 1 claim winner: expected a whole number, found 'x'",
        ),
        (
            '[Game "g"]\nclaim score=3\n',
            "t.txt: line 2: claim: unexpected 'score=3': expected fields points=...",
        ),
        (
            '[Game "g"]\ntrick 1 @0: SA | | S3\n',
            "t.txt: line 2: trick 1 play 2: expected cards (write '-' for a play of no cards)",
        ),
        ('[Game "g"]\n[Levels "2" "Z"]\n', "t.txt: line 2: bad rank 'Z': expected a rank token"),
        ("[EndMatch]\n", "t.txt: line 1: [EndMatch] without an open [Match]"),
        (
            '[Match "m"]\n[Game "g"]\n',
            "t.txt: line 2: match 'm' (line 1) is not closed: expected "
            "[EndMatch] before the end of the file",
        ),
    ],
)
def test_notation_error(text: str, expected: str) -> None:
    assert _one_error(text).startswith(expected)


def test_lenient_mode_skips_only_the_bad_record() -> None:
    text = (
        f'{GOOD}[Game "bad"]\ntrick 1 @0: SX\ntrick 2 @0: SA\n{GOOD}[Match "m"]\n'
        f'[Game "h"]\nhand 0: QQ\n[Game "h2"]\n[EndMatch]\n{GOOD}'
    )
    result = read_text(text, "t.txt")
    assert [r.game.record_id for r in result.records] == ["ok", "ok", "ok"]
    assert [p.location for p in result.errors] == ["line 5", "line 12"]


def test_strict_mode_raises_the_first_problem() -> None:
    with pytest.raises(ImportFailed) as failed:
        read_text(f'[Game "bad"]\nhand 0: SX\n{GOOD}', "t.txt", strict=True)
    assert failed.value.problem.location == "line 2"
    assert failed.value.problem.file == "t.txt"


def test_pb_empty_file() -> None:
    assert str(load_bytes(b"", "e.pb").errors[0]) == (
        "e.pb: byte 0: the file is empty: expected protobuf records"
    )


def test_pb_garbage() -> None:
    problem = load_bytes(b"\xff\xff\xff", "g.pb").errors[0]
    assert problem.location == "byte 0"
    assert problem.message.startswith(
        "expected a protobuf GameRecord, MatchRecord or RecordFile message, or a "
        "length-delimited stream of RecordFile messages (as a stream: byte 0:"
    )


def test_pb_bad_card_token_names_the_field() -> None:
    from chaodipi.importers.protobin import write_pb
    from chaodipi.v1 import records_pb2

    game = records_pb2.GameRecord(record_id="x")
    game.tricks.add().plays.add(cards=["SA", "S1"])
    problem = load_bytes(write_pb([records_pb2.RecordFile(game=game)]), "s.pb").errors[0]
    assert problem.location == "record 1 (byte 0): game.tricks[0].plays[0].cards[1]"
    assert problem.message.startswith("bad card token 'S1': expected a card token")


@pytest.mark.parametrize(
    ("text", "location", "message"),
    [
        (
            '{"recordId": "x", "tricks": [{"plays": [{"seet": 1}]}]}',
            "$.tricks[0].plays[0].seet",
            "unknown field of Play: expected one of seat, cards, attempted",
        ),
        ('{"recordId": 3}', "$.recordId", "expected a string, found a number"),
        (
            '{"bids": [{"kind": "BID_KIND_SHOUT"}]}',
            "$.bids[0].kind",
            "expected one of BID_KIND_UNSPECIFIED, BID_KIND_DECLARE",
        ),
        (
            '{"drawOrder": {"deck": ["SA", "XX"]}}',
            "$.drawOrder.deck[1]",
            "bad card token 'XX': expected a card token",
        ),
        (
            '{"game": {"venue": "a"}, "match": {}}',
            "$.match",
            "expected only one of the record fields, found both game and match",
        ),
        (
            '{"recordId": "x",\n "venue": }',
            "line 2 column 11",
            "not valid JSON (Expecting value): expected one JSON value or JSON Lines",
        ),
        (
            '{"recordId": "a"}\n{"recordId": "b", "tricks": 4}\n',
            "line 2: $.tricks",
            "expected an array, found a number",
        ),
    ],
)
def test_json_error(text: str, location: str, message: str) -> None:
    result = load_bytes(text.encode(), "r.json", "json")
    problem = result.errors[0]
    assert (problem.file, problem.location) == ("r.json", location)
    assert problem.message.startswith(message)


def _eighty() -> dict[str, object]:
    data: dict[str, object] = json.loads((FIXTURES / "eighty/deal-25-tricks.json").read_text())
    return data


def _eighty_error(data: object) -> str:
    result = load_bytes(json.dumps(data).encode(), "d.json", "eighty")
    assert not result.records
    return str(result.errors[0])


def test_eighty_bad_card_id_fixture() -> None:
    result = load_bytes((FIXTURES / "eighty/bad-card.json").read_bytes(), "bad-card.json")
    assert [str(p) for p in result.errors] == [
        "bad-card.json: $.events[101].cards[0].id: expected a number 0-107, found 108"
    ]


def test_eighty_card_object_disagrees_with_id() -> None:
    data = _eighty()
    events = data["events"]
    assert isinstance(events, list)
    play = next(i for i, e in enumerate(events) if e["type"] == "play")
    events[play]["cards"][0]["rank"] = 3
    assert f"d.json: $.events[{play}].cards[0]: suit " in _eighty_error(data)
    assert "does not match card id" in _eighty_error(data)


def test_eighty_legacy_v1_array() -> None:
    assert _eighty_error([{"seq": 0, "type": "deal_started"}]) == (
        "d.json: $: a legacy version 1 replay (public events only) cannot be replayed: expected "
        "a version 2 'eighty-completed-deal' object with the deal"
    )


def test_eighty_draw_to_the_wrong_seat() -> None:
    data = _eighty()
    deal = data["deal"]
    assert isinstance(deal, dict)
    deal["draws"][5]["seat"] = (deal["draws"][5]["seat"] + 1) % 4
    assert _eighty_error(data).startswith("d.json: $.deal.draws[5].seat: expected seat ")


def test_eighty_bad_envelope() -> None:
    assert _eighty_error({"encoding": "gzip+base64", "data": "!!"}).startswith(
        "d.json: $.data: expected base64 of gzip-compressed JSON"
    )


def test_eighty_envelope_of_a_broken_replay_names_the_inner_path() -> None:
    data = _eighty()
    data["dealer"] = 7
    packed = base64.b64encode(gzip.compress(json.dumps(data).encode())).decode()
    assert _eighty_error({"encoding": "gzip+base64", "data": packed}) == (
        "d.json: $.data.dealer: expected a number 0-3, found 7"
    )


def test_botzone_bad_card_without_the_judgers_verdict_is_rejected() -> None:
    # bad-card.json ends in the judger's error finish, which reads as far as it goes; the
    # same bad id with no verdict after it is a bad record.
    data = json.loads((FIXTURES / "botzone/bad-card.json").read_text())
    data["log"].pop()
    result = load_bytes(json.dumps(data).encode(), "bad-card.json", "botzone")
    assert [str(p) for p in result.errors] == [
        'bad-card.json: $.log[261]["3"].response[0]: expected a number 0-107, found 108'
    ]


def _botzone() -> dict[str, list[dict[str, object]]]:
    data: dict[str, list[dict[str, object]]] = json.loads(
        (FIXTURES / "botzone/full-deal.json").read_text()
    )
    return data


def test_botzone_answer_from_the_wrong_seat() -> None:
    data = _botzone()
    data["log"][3] = {"2": {"response": []}}
    result = load_bytes(json.dumps(data).encode(), "b.json", "botzone")
    assert str(result.errors[0]) == "b.json: $.log[3]: expected the answer of seat 1, found seat 2"


def test_botzone_bid_of_three_cards() -> None:
    data = _botzone()
    data["log"][1] = {"0": {"response": [1, 2, 3]}}
    result = load_bytes(json.dumps(data).encode(), "b.json", "botzone")
    assert str(result.errors[0]) == (
        'b.json: $.log[1]["0"].response: expected [] (pass), one card (a call) or a pair '
        "(a snatch), found 3 cards"
    )


def test_botzone_missing_initdata_strict() -> None:
    with pytest.raises(ImportFailed) as failed:
        load_bytes(b'{"log": []}', "b.json", "botzone", strict=True)
    assert str(failed.value) == "b.json: $.initdata: missing: expected the initdata"
