"""A record read from its bytes: the deck read as its tokens say, the shared plays as read."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

from google.protobuf.message import DecodeError

from chaodipi.auditor import audit_game
from chaodipi.auditor.analysis import analyse_game
from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand
from chaodipi.auditor.reading import (
    _PLAYS_BY_CODE,
    _bid_from_wire,
    _deck_from_wire,
    _exchange_from_wire,
    _play_from_wire,
    read_bid,
    read_exchange,
    read_game,
)
from chaodipi.auditor.wire import TOKEN_KINDS
from chaodipi.engine.presets import BUILTIN, PRESETS
from chaodipi.v1 import records_pb2


def _misread() -> list[bytes]:
    """The encodings whose shared play no longer holds what the encoding reads as."""
    wrong = []
    for code, shared in list(_PLAYS_BY_CODE.items()):
        fresh = _play_from_wire(code, False, 2)
        assert fresh is not None
        if (shared.seat, shared.cards, shared.attempted) != (fresh.seat, fresh.cards, []):
            wrong.append(code)
    return wrong


def test_a_single_or_pair_read_is_the_one_shared_play_for_its_encoding() -> None:
    read = read_game(generate_hand("classic", seed=4))
    assert not isinstance(read, list)
    plays = [play for trick in read.tricks for play in trick.plays]
    shared = [play for play in plays if any(play is p for p in _PLAYS_BY_CODE.values())]
    assert len(shared) > len(plays) // 2  # most plays are a single card or a pair
    again = read_game(generate_hand("classic", seed=5))
    assert not isinstance(again, list)
    assert {id(p) for t in again.tricks for p in t.plays} & {id(p) for p in shared}


def test_two_cards_of_two_kinds_are_shared_once_read() -> None:
    read = read_game(generate_hand("classic", seed=6))
    assert not isinstance(read, list)
    mixed = [
        p for t in read.tricks for p in t.plays if len(p.cards) == 2 and len(set(p.cards)) == 2
    ]
    assert mixed  # a follow to a pair from a hand without one
    again = read_game(generate_hand("classic", seed=6))
    assert not isinstance(again, list)
    shared = {id(p) for t in again.tricks for p in t.plays}
    assert all(id(p) in shared for p in mixed)


def test_audits_analyses_and_faulted_records_leave_the_shared_plays_as_read() -> None:
    rng = random.Random(7)
    for ruleset in ("classic", "shuangsheng", "anhui", "changshu"):
        for seed in range(6):
            record = generate_hand(ruleset, seed=seed)
            audit_game(record)
            audit_game(plant_any(copy.deepcopy(record), rng)[0])
        analyse_game(generate_hand(ruleset, seed=0), window=2)
    assert _misread() == []


def _deck_as_tokens_say(data: bytes) -> tuple[list[int], int] | None:
    """A draw order's deck and first drawer as the parser reads them, when every token is
    canonical."""
    try:
        order = records_pb2.DrawOrder.FromString(data)
    except DecodeError:
        return None
    if any(t not in TOKEN_KINDS for t in order.deck):
        return None
    return [TOKEN_KINDS[t] for t in order.deck], order.first_drawer


def test_a_deck_read_from_its_columns_is_what_its_tokens_say_or_left_to_the_full_reader() -> None:
    for seed in (2, 3):  # first drawers 3 and 0: a deck with and without its tail
        data = generate_hand("classic", seed=seed).draw_order.SerializeToString()
        dealt = _deck_as_tokens_say(data)
        assert dealt is not None and _deck_from_wire(data, 200) == dealt
        # Every byte changed to a tag (the deck's, the first drawer's), the length, a joker's
        # letters, a rank, a lower-case letter or none: the fast read gives the deck and first
        # drawer those bytes encode, or leaves them to the full reader.
        for i in range(len(data)):
            for byte in b"\x0a\x10\x02\x03LBJA2s\x00\x80":
                changed = data[:i] + bytes((byte,)) + data[i + 1 :]
                fast = _deck_from_wire(changed, 200)
                assert fast is None or fast == _deck_as_tokens_say(changed), (i, byte)
        for tail in (b"", b"\x10", b"\x10\x05", b"\x10\x80\x01", b"\x10\x03\x10\x01"):
            fast = _deck_from_wire(data + tail, 200)
            assert fast is None or fast == _deck_as_tokens_say(data + tail), tail
    for joker, other in (("LJ", "LA"), ("BJ", "B2"), ("LJ", "BJ")):
        order = records_pb2.DrawOrder(deck=[joker, "SA", other], first_drawer=2)
        changed = order.SerializeToString()
        assert _deck_from_wire(changed, 200) == _deck_as_tokens_say(changed)


_Event = records_pb2.BidEvent | records_pb2.KittyExchange


def _event_as_parsed(ruleset: str, data: bytes, kind: type[_Event]) -> object:
    """A bid's or an exchange's bytes as their parse reads them field by field; None when they
    do not parse, hold a field unknown to the reader or a field it finds malformed."""
    try:
        message = kind.FromString(data)
    except DecodeError:
        return None
    size = message.ByteSize()
    message.DiscardUnknownFields()
    if message.ByteSize() != size:
        return None
    rules = PRESETS[ruleset]
    read = (
        read_bid(rules, message)
        if isinstance(message, records_pb2.BidEvent)
        else read_exchange(rules, message)
    )
    return None if isinstance(read, list) else read


def test_bids_and_exchanges_read_from_their_bytes_are_what_their_parse_reads() -> None:
    for ruleset in BUILTIN:
        record = generate_hand(ruleset, seed=4)
        events: list[tuple[_Event, Callable[[bytes, int], object], int]] = [
            (bid, _bid_from_wire, len(bid.cards)) for bid in record.bids
        ]
        events += [
            (ex, _exchange_from_wire, max(len(ex.picked_up), len(ex.buried)))
            for ex in record.kitty_exchanges
        ]
        for message, from_wire, cards in events:
            data = message.SerializeToString()
            kind = type(message)
            read = from_wire(data, 33)
            assert read is not None and read == _event_as_parsed(ruleset, data, kind)
            assert from_wire(data, cards - 1) is None  # over the limit: the full reader says so
            # Every byte changed to a tag of either message, a length, a seat, a letter, a
            # lower-case letter or a long varint's first byte, and fields appended: the fast
            # read gives what the bytes parse as, or leaves them to the full reader.
            for i in range(len(data)):
                for byte in b"\x08\x10\x12\x1a\x20\x28\x02\x03\x05SJBs\x00\x80":
                    changed = data[:i] + bytes((byte,)) + data[i + 1 :]
                    fast = from_wire(changed, 33)
                    assert fast is None or fast == _event_as_parsed(ruleset, changed, kind)
            for tail in (
                b"\x08\x01",
                b"\x10\x02",
                b"\x20\x05",
                b"\x28\x80\x01",
                b"\x28\x81",
                b"\x28\x81\x81\x01",
                b"\x78\x01",
            ):
                fast = from_wire(data + tail, 33)
                assert fast is None or fast == _event_as_parsed(ruleset, data + tail, kind)


def test_a_bid_or_exchange_whose_bytes_do_not_parse_is_named() -> None:
    record = generate_hand("classic", seed=10)
    without = records_pb2.GameRecord.FromString(record.SerializeToString())
    del without.bids[:]
    del without.kitty_exchanges[:]
    # Each cut short, or a card's token not UTF-8: a record's field, where its parse fails.
    for field, name, tag, card in (
        ("bids", "BidEvent", b"\x42", b"\x1a"),
        ("kitty_exchanges", "KittyExchange", b"\x4a", b"\x12"),
    ):
        for event in (b"\x08", card + b"\x05S2", card + b"\x02\xffS"):
            data = without.SerializeToString() + tag + bytes((len(event),)) + event
            report = audit_game(data)
            assert [(r.field, r.description) for r in report.rejections] == [
                (f"{field}[0]", f"not a {name}: its bytes do not parse")
            ], event


def _audit_of_parse(data: bytes) -> records_pb2.GameRecord | None:
    try:
        return records_pb2.GameRecord.FromString(data)
    except DecodeError:
        return None


def test_a_record_audited_from_its_bytes_is_audited_as_its_parse() -> None:
    rng = random.Random(11)
    for ruleset in ("classic", "shuangsheng", "anhui", "changshu"):
        for seed in range(4):
            record = generate_hand(ruleset, seed=seed)
            for shown in (record, plant_any(copy.deepcopy(record), rng)[0]):
                data = shown.SerializeToString()
                assert audit_game(data) == audit_game(shown)
                assert audit_game(data, steps=True) == audit_game(shown, steps=True)


def test_bytes_changed_anywhere_are_audited_as_their_parse_or_rejected() -> None:
    """Bytes a caller gives may be any: where the parser reads them, the audit is the parse's;
    where it does not, a report rejects them; never an exception."""
    data = generate_hand("classic", seed=8).SerializeToString()
    rng = random.Random(12)
    for _ in range(400):
        i = rng.randrange(len(data))
        changed = bytearray(data)
        if rng.random() < 0.5:
            changed[i] = rng.randrange(256)
        else:
            del changed[i : i + rng.randrange(1, 4)]
        report = audit_game(bytes(changed))
        parsed = _audit_of_parse(bytes(changed))
        if parsed is None:
            assert report.rejections
        else:
            assert report == audit_game(parsed)


def test_a_draw_order_given_twice_or_beside_dealt_hands_is_read_as_the_parser_merges_it() -> None:
    record = generate_hand("classic", seed=9)
    order = record.draw_order
    first_half = records_pb2.GameRecord(
        draw_order=records_pb2.DrawOrder(deck=order.deck[:50], first_drawer=2)
    )
    second_half = records_pb2.GameRecord(
        draw_order=records_pb2.DrawOrder(deck=order.deck[50:], first_drawer=order.first_drawer)
    )
    rest = copy.deepcopy(record)
    rest.ClearField("draw_order")
    dealt = records_pb2.GameRecord(dealt_hands=records_pb2.DealtHands(kitty=["SA"]))
    for data in (
        # the wire's merge: a deck in two halves is the whole deck, the last drawer given wins
        rest.SerializeToString() + first_half.SerializeToString() + second_half.SerializeToString(),
        # the oneof's last member wins, either way round
        record.SerializeToString() + dealt.SerializeToString(),
        dealt.SerializeToString() + record.SerializeToString(),
    ):
        assert audit_game(data) == audit_game(records_pb2.GameRecord.FromString(data))
    merged = audit_game(
        rest.SerializeToString() + first_half.SerializeToString() + second_half.SerializeToString()
    )
    assert merged == audit_game(record)


def test_a_trick_whose_bytes_do_not_parse_is_named() -> None:
    record = generate_hand("classic", seed=10)
    broken = records_pb2.GameRecord.FromString(record.SerializeToString())
    del broken.tricks[3:]
    play = records_pb2.Play(seat=1, cards=["SA"]).SerializeToString()
    for trick in (
        b"\x08",  # the leader's tag, and nothing after it
        b"\x12",  # a play's tag, and no length
        b"\x12" + bytes((len(play),)) + play + b"\x12",  # a play, then a tag alone
        b"\x12" + bytes((len(play),)) + play + b"\x22",  # a play, then a claim's tag alone
        b"\x12\x04\x12\x09S",  # a play cut short inside its card's token
        # a play's length in two bytes, the second the start of a single card the reader
        # shares (its bytes a key of the shared plays): the length runs past the end
        b"\x12\x85" + play,
    ):
        data = broken.SerializeToString() + b"\x52" + bytes((len(trick),)) + trick
        report = audit_game(data)
        assert [(r.field, r.description) for r in report.rejections] == [
            ("tricks[3]", "not a Trick: its bytes do not parse")
        ], trick
        assert report.record_id == record.record_id


def test_a_play_whose_length_is_written_in_two_bytes_is_read_as_the_parser_reads_it() -> None:
    record = generate_hand("classic", seed=10)
    last = record.tricks[-1]
    rest = records_pb2.GameRecord.FromString(record.SerializeToString())
    del rest.tricks[-1:]
    assert last.leader and last.HasField("claim")
    trick = (
        b"\x08"
        + bytes((last.leader,))
        + b"".join(
            b"\x12" + bytes((len(p) | 0x80, 0)) + p  # each length as an overlong varint
            for p in (play.SerializeToString() for play in last.plays)
        )
        + b"\x22"
        + bytes((last.claim.ByteSize(),))
        + last.claim.SerializeToString()
    )
    data = rest.SerializeToString() + b"\x52" + bytes((len(trick),)) + trick
    assert records_pb2.GameRecord.FromString(data) == record
    assert audit_game(data) == audit_game(record)
