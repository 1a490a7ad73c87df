"""A record read from its bytes: the deck read as its tokens say, the shared plays as read."""

from __future__ import annotations

import copy
import random

from google.protobuf.message import DecodeError

from chaodipi.auditor import audit_game
from chaodipi.auditor.analysis import analyse_game
from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand
from chaodipi.auditor.reading import _PLAYS_BY_CODE, _deck_from_wire, _play_from_wire, read_game
from chaodipi.auditor.wire import TOKEN_KINDS
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


def _deck_as_tokens_say(data: bytes, first_drawer: int) -> list[int] | None:
    """A draw order's deck as its tokens say, when all are canonical, read by the parser."""
    try:
        order = records_pb2.DrawOrder.FromString(data)
    except DecodeError:
        return None
    if order.first_drawer != first_drawer or any(t not in TOKEN_KINDS for t in order.deck):
        return None
    return [TOKEN_KINDS[t] for t in order.deck]


def test_a_deck_read_from_its_columns_is_what_its_tokens_say_or_left_to_the_full_reader() -> None:
    record = generate_hand("classic", seed=3)
    first = record.draw_order.first_drawer
    data = record.draw_order.SerializeToString()
    dealt = _deck_as_tokens_say(data, first)
    assert dealt is not None and _deck_from_wire(data, first, 200) == dealt
    # Every byte changed to a tag, the length, a joker's letters, a rank, a lower-case
    # letter or none: the fast read gives the deck those bytes encode, or leaves it.
    for i in range(len(data)):
        for byte in b"\x0a\x02\x03LBJA2s\x00":
            changed = data[:i] + bytes((byte,)) + data[i + 1 :]
            fast = _deck_from_wire(changed, first, 200)
            assert fast is None or fast == _deck_as_tokens_say(changed, first), (i, byte)
    for joker, other in (("LJ", "LA"), ("BJ", "B2"), ("LJ", "BJ")):
        order = records_pb2.DrawOrder(deck=[joker, "SA", other], first_drawer=first)
        changed = order.SerializeToString()
        assert _deck_from_wire(changed, first, 200) == _deck_as_tokens_say(changed, first)
