"""A protobuf stream read record by record (``stream_pb``) gives what reading it whole gave:
the same records, problems at the same record and byte, and single messages still read whole."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from google.protobuf.message import DecodeError, Message

from chaodipi import importers
from chaodipi.auditor import audit_encoded_game
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.auditor.wire import encode_varint
from chaodipi.importers.protobin import (
    _CHUNK,
    _RECORD_TAG,
    _clean,
    _frames,
    stream_pb,
    write_pb,
)
from chaodipi.importers.tokens import bad_token, clean_records
from chaodipi.v1 import records_pb2

UNKNOWN = b"\x78\x01"  # field 15, a varint: no message of a record has field 15
_TRICK_CLAIM_TAG = bytes([records_pb2.Trick.CLAIM_FIELD_NUMBER << 3 | 2])
_GAME_TRICK_TAG = bytes([records_pb2.GameRecord.TRICKS_FIELD_NUMBER << 3 | 2])


def _records(count: int) -> list[records_pb2.RecordFile]:
    return [records_pb2.RecordFile(game=generate_hand("classic", seed)) for seed in range(count)]


def _with_unknown(message: Message) -> None:
    """Give a message, deep in a record, an unknown field."""
    message.MergeFromString(UNKNOWN)


@pytest.mark.parametrize("depth", ["play", "claim"])
def test_a_record_with_an_unknown_field_in_the_middle_is_reported_and_the_rest_given(
    depth: str,
) -> None:
    records = _records(5)
    trick = records[2].game.tricks[3]
    _with_unknown(trick.plays[1] if depth == "play" else trick.claim)
    data = write_pb(records)
    stream = stream_pb(data, "s.pb")
    assert stream.expected == 5
    given = list(stream)
    assert [r.game.record_id for r in given] == [records[i].game.record_id for i in (0, 1, 3, 4)]
    assert stream.expected == 4
    start = len(write_pb(records[:2]))  # the frames before it
    assert [str(p) for p in stream.result.errors] == [
        f"s.pb: record 3 (byte {start}): expected a RecordFile message holding a game or a match"
    ]
    assert stream.result.notes == ["s.pb: read as a length-delimited stream of 5 messages"]
    whole = importers.load_bytes(data, "s.pb")
    assert whole.errors == stream.result.errors and whole.notes == stream.result.notes
    assert whole.records == given


def test_a_record_with_a_bad_card_in_the_middle_is_reported_with_its_field() -> None:
    records = _records(4)
    records[1].game.tricks[0].plays[0].cards[0] = "SX"
    data = write_pb(records)
    stream = stream_pb(data, "s.pb")
    assert len(list(stream)) == 3
    start = len(write_pb(records[:1]))
    assert [str(p) for p in stream.result.errors] == [
        f"s.pb: record 2 (byte {start}): game.tricks[0].plays[0].cards[0]: bad card token 'SX': "
        "expected a card token: a suit letter S, H, C or D and a rank 2-9, T, J, Q, K, A "
        "(e.g. 'ST'), or LJ / BJ for the jokers"
    ]
    assert stream.result.notes == [
        "s.pb: read as a length-delimited stream of 4 RecordFile messages"
    ]


def test_an_unknown_field_at_any_depth_is_found_in_a_chunk() -> None:
    records = _records(3)

    def chunk() -> bytes:
        return b"".join(_RECORD_TAG + write_pb([r]) for r in records)

    kind = records_pb2.RecordFile.DESCRIPTOR
    assert clean_records(kind, chunk())
    game = records[1].game
    assert game.tricks[5].HasField("claim") and game.players
    # The record, a leaf (a context, a deck, a play), a type holding leaves (a trick, the
    # hand's claim) and a message holding no token (a trick's claim, a player).
    for message in (
        records[1],
        game,
        game.context,
        game.draw_order,
        game.tricks[5],
        game.tricks[5].plays[2],
        game.tricks[5].claim,
        game.players[0],
        game.claim,
    ):
        message.MergeFromString(UNKNOWN)
        assert not clean_records(kind, chunk())
        message.DiscardUnknownFields()
        assert clean_records(kind, chunk())
    # A known field number with another wire type is unknown too (the seat as a string).
    game.tricks[0].plays[0].MergeFromString(b"\x0a\x01x")
    assert not clean_records(kind, chunk())


def _clean_alone(data: bytes) -> bool:
    """Whether a record's bytes, read alone, hold no unknown field and no bad token, or are
    rejected by its own parse (which the stream reports whatever the chunk's check says)."""
    try:
        record = records_pb2.RecordFile.FromString(data)
    except DecodeError:
        return True
    fresh = records_pb2.RecordFile.FromString(data)
    return _clean(fresh, data) and bad_token(record, "", json_names=False, data=data) is None


def test_a_chunk_called_clean_holds_no_record_that_is_not() -> None:
    # Bytes of one record changed, added or dropped at random: whenever the whole chunk's one
    # parse calls it clean, the changed record is clean alone too (or its own parse rejects it).
    rng = random.Random(5)
    records = [
        records_pb2.RecordFile(game=generate_hand(ruleset, seed))
        for ruleset in ("classic", "changshu")
        for seed in range(2)
    ]
    records.append(records_pb2.RecordFile(match=generate_match("anhui", 2)))
    bodies = [r.SerializeToString() for r in records]
    kind = records_pb2.RecordFile.DESCRIPTOR
    called_clean = 0
    for _ in range(1500):
        changed = list(bodies)
        i = rng.randrange(len(changed))
        data = bytearray(changed[i])
        for _ in range(rng.choice((1, 1, 2, 3))):
            at, roll = rng.randrange(len(data)), rng.random()
            if roll < 0.6:
                data[at] = rng.randrange(256)
            elif roll < 0.8:
                data[at:at] = bytes([rng.randrange(256)])
            else:
                del data[at]
        changed[i] = bytes(data)
        chunk = b"".join(_RECORD_TAG + encode_varint(len(b)) + b for b in changed)
        if clean_records(kind, chunk):
            called_clean += 1
            assert _clean_alone(changed[i]), bytes(data).hex()
    assert called_clean  # some changes leave a record clean (a token for another, a level)


def test_a_single_message_is_still_read_whole() -> None:
    game = generate_hand("classic", 1)
    stream = stream_pb(game.SerializeToString(), "g.pb")
    assert [r.game for r in stream] == [game]
    assert stream.result.notes == ["g.pb: read as one GameRecord message"]


def test_a_stream_of_small_records_is_read_whole_first() -> None:
    """A first record of 15 bytes, read as a tag, is a GameRecord's field 1: the frames are
    all read first, to tell a stream from one message."""
    records = [
        records_pb2.RecordFile(game=records_pb2.GameRecord(record_id=f"g{i}", ruleset="classic"))
        for i in range(3)
    ]
    data = write_pb(records)
    assert data[0] == 15
    stream = stream_pb(data, "s.pb")
    assert stream.records == records and stream.expected == 3
    assert stream.result.notes == [
        "s.pb: read as a length-delimited stream of 3 RecordFile messages"
    ]


def test_stream_gives_what_load_gives(tmp_path: Path) -> None:
    path = tmp_path / "s.pb"
    importers.write(_records(3), path, "pb")
    text = tmp_path / "s.txt"
    importers.write(_records(2), text, "text")
    for file in (path, text):
        loaded = importers.load(file)
        stream = importers.stream(file)
        assert list(stream) == loaded.records
        assert stream.result.errors == loaded.errors and stream.result.notes == loaded.notes


def _read(data: bytes) -> tuple[records_pb2.RecordFile, bool]:
    """A game's encoding as its record, vouched for where the audit's read vouches for it."""
    return records_pb2.RecordFile(game=records_pb2.GameRecord.FromString(data)), (
        audit_encoded_game(data)[1]
    )


def test_entries_give_a_clean_game_as_read_and_the_same_records_and_problems() -> None:
    records = _records(_CHUNK + 2)
    records[2] = records_pb2.RecordFile(match=generate_match("classic", seed=1, max_hands=2))
    records[1].game.venue = "茶馆"  # not ASCII, and valid
    records[_CHUNK].game.tricks[2].plays[0].cards[0] = "ZZ"  # not a card
    data = write_pb(records)
    whole = stream_pb(data, "s.pb")
    expected = list(whole)
    read: list[bytes] = []

    def reading(game: bytes) -> tuple[str, bool]:
        read.append(game)
        return "read", audit_encoded_game(game)[1]

    stream = stream_pb(data, "s.pb")
    entries = list(stream.entries(reading))
    # Every game read, the match given as its message, the odd token's record a problem: its
    # game not vouched for (its trick read field by field) and then checked alone.
    assert entries == ["read"] * 2 + [expected[2]] + ["read"] * (_CHUNK - 2)
    assert len(read) == _CHUNK + 1
    assert stream.result.errors == whole.result.errors  # the odd token's record
    assert len(stream.result.errors) == 1
    assert stream.result.notes == whole.result.notes and stream.expected == whole.expected
    again = stream_pb(data, "s.pb")
    assert list(again.entries(_read)) == expected


@pytest.mark.parametrize(
    ("edit", "problems"),
    [
        ("play", 1),
        ("claim", 1),
        ("deck", 1),
        ("lower-case card", 0),  # a token read as the card it spells: given, once checked
        ("bid token", 1),
        ("bid", 1),
        ("exchange", 1),
        ("exchange token", 1),
        ("context", 1),
    ],
)
def test_a_game_the_read_does_not_vouch_for_is_checked_as_a_record(
    edit: str, problems: int
) -> None:
    records = _records(3)
    game = records[1].game
    if edit == "play":
        _with_unknown(game.tricks[4].plays[1])
    elif edit == "claim":
        _with_unknown(game.tricks[4].claim)
    elif edit == "deck":
        game.draw_order.MergeFromString(UNKNOWN)
    elif edit == "lower-case card":
        game.tricks[4].plays[1].cards[0] = game.tricks[4].plays[1].cards[0].lower()
    elif edit == "bid token":
        game.bids[0].cards[0] = "S1"
    elif edit == "bid":
        _with_unknown(game.bids[0])
    elif edit == "exchange":
        _with_unknown(game.kitty_exchanges[0])
    elif edit == "exchange token":
        game.kitty_exchanges[0].buried[0] = "S1"
    else:
        game.context.MergeFromString(UNKNOWN)
    data = write_pb(records)
    whole = stream_pb(data, "s.pb")
    expected = list(whole)
    stream = stream_pb(data, "s.pb")
    assert list(stream.entries(_read)) == expected
    assert stream.result.errors == whole.result.errors
    assert (len(expected), len(whole.result.errors)) == (3 - problems, problems)
    # Only the context is not read from its bytes: the chunk's check finds its unknown field.
    assert edit == "context" or not audit_encoded_game(game.SerializeToString())[1]


def test_a_clean_game_the_read_does_not_vouch_for_is_given_once_checked() -> None:
    records = _records(3)
    game = records[1].game
    # A claim whose fields are each written twice: valid, and clean, but more bytes than
    # its values encode, so its trick is read field by field and the game not vouched for.
    trick = game.tricks[4]
    claim = trick.claim.SerializeToString()
    doubled = records_pb2.Trick(leader=trick.leader, plays=trick.plays).SerializeToString()
    doubled += _TRICK_CLAIM_TAG + encode_varint(2 * len(claim)) + claim + claim
    head = records_pb2.GameRecord()
    head.CopyFrom(game)
    del head.tricks[4:]
    tail = records_pb2.GameRecord(tricks=game.tricks[5:]).SerializeToString()
    game_bytes = head.SerializeToString() + _GAME_TRICK_TAG + encode_varint(len(doubled))
    game_bytes += doubled + tail
    assert records_pb2.GameRecord.FromString(game_bytes) == game
    assert not audit_encoded_game(game_bytes)[1]
    assert audit_encoded_game(game_bytes)[0] == audit_encoded_game(game.SerializeToString())[0]
    body = b"\x0a" + encode_varint(len(game_bytes)) + game_bytes
    data = write_pb(records[:1]) + encode_varint(len(body)) + body + write_pb(records[2:])
    stream = stream_pb(data, "s.pb")
    assert list(stream.entries(_read)) == records
    assert not stream.result.errors


def test_entries_give_a_game_whose_string_is_not_utf8_as_a_problem() -> None:
    records = _records(4)
    venue = records_pb2.GameRecord(venue="x").SerializeToString()  # tag, length 1, "x"
    records[2].game.venue = "x"
    data = bytearray(write_pb(records))
    at = data.index(venue)
    data[at + 2] = 0xFF  # the venue's one byte: not UTF-8
    # The chunk's check parses strings as strings: it fails, and each record is read alone.
    frames = [body for _, body in _frames(bytes(data))]
    chunk = b"".join(_RECORD_TAG + encode_varint(len(body)) + body for body in frames)
    assert not clean_records(records_pb2.RecordFile.DESCRIPTOR, chunk)
    frames[2] = records[2].SerializeToString()  # with the venue as it was: clean
    chunk = b"".join(_RECORD_TAG + encode_varint(len(body)) + body for body in frames)
    assert clean_records(records_pb2.RecordFile.DESCRIPTOR, chunk)
    stream = stream_pb(bytes(data), "s.pb")
    entries = list(stream.entries(_read))
    assert [entry.game for entry in entries] == [records[i].game for i in (0, 1, 3)]
    assert [(e.location, e.message) for e in stream.result.errors] == [
        (
            f"record 3 (byte {sum(len(r.SerializeToString()) + 2 for r in records[:2])})",
            "expected a RecordFile message holding a game or a match",
        )
    ]
