"""The token check: a bad card or rank token in any field that holds one is found, with its path,
in protobuf binary and JSON; good tokens of any case are not; what a record drops on the wire
(a oneof's other member, a merged message's overwritten field) is not held against it."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from google.protobuf import json_format

from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.auditor.wire import encode_varint
from chaodipi.importers import load_bytes
from chaodipi.importers.protobin import write_pb
from chaodipi.importers.tokens import CARD_FIELDS, RANK_FIELDS, bad_token, clean_records
from chaodipi.v1 import records_pb2

Game = records_pb2.GameRecord


def _dealt(game: Game) -> Game:
    """The same hand with dealt hands instead of a draw order."""
    deck = list(game.draw_order.deck)
    hands: list[list[str]] = [[], [], [], []]
    for i, card in enumerate(deck[:-8]):
        hands[(game.draw_order.first_drawer + i) % 4].append(card)
    game.ClearField("draw_order")
    for cards in hands:
        game.dealt_hands.hands.add(cards=cards)
    game.dealt_hands.kitty.extend(deck[-8:])
    return game


def _set_deck(g: Game, t: str) -> None:
    g.draw_order.deck[5] = t


def _set_hand(g: Game, t: str) -> None:
    _dealt(g).dealt_hands.hands[1].cards[3] = t


def _set_kitty(g: Game, t: str) -> None:
    _dealt(g).dealt_hands.kitty[2] = t


def _set_bid(g: Game, t: str) -> None:
    g.bids.add(seat=0, kind=records_pb2.BID_KIND_DECLARE, cards=[t])


def _set_picked_up(g: Game, t: str) -> None:
    g.kitty_exchanges.add(picked_up=[t])


def _set_buried(g: Game, t: str) -> None:
    g.kitty_exchanges.add(buried=["SA", t])


def _set_unit(g: Game, t: str) -> None:
    g.tricks[2].declared_split.add(cards=[t])


def _set_play(g: Game, t: str) -> None:
    g.tricks[7].plays[2].cards[0] = t


def _set_attempted(g: Game, t: str) -> None:
    g.tricks[3].plays[1].attempted.append(t)  # a follow's: the audit never reads it


def _set_team0(g: Game, t: str) -> None:
    g.context.team0_level = t


def _set_team1(g: Game, t: str) -> None:
    g.context.team1_level = t


def _set_trump(g: Game, t: str) -> None:
    g.claim.trump.level = t


def _set_dealer_after(g: Game, t: str) -> None:
    g.claim.level_result.dealer_team_level_after = t


def _set_defender_after(g: Game, t: str) -> None:
    g.claim.level_result.defender_team_level_after = t


# Each field holding a token: how to put one in a hand, and its path in the hand.
CARD_CASES: dict[str, tuple[Callable[[Game, str], None], str]] = {
    "chaodipi.v1.DrawOrder.deck": (_set_deck, "draw_order.deck[5]"),
    "chaodipi.v1.Hand.cards": (_set_hand, "dealt_hands.hands[1].cards[3]"),
    "chaodipi.v1.DealtHands.kitty": (_set_kitty, "dealt_hands.kitty[2]"),
    "chaodipi.v1.BidEvent.cards": (_set_bid, "bids[{bids}].cards[0]"),
    "chaodipi.v1.KittyExchange.picked_up": (_set_picked_up, "kitty_exchanges[{ex}].picked_up[0]"),
    "chaodipi.v1.KittyExchange.buried": (_set_buried, "kitty_exchanges[{ex}].buried[1]"),
    "chaodipi.v1.Unit.cards": (_set_unit, "tricks[2].declared_split[0].cards[0]"),
    "chaodipi.v1.Play.cards": (_set_play, "tricks[7].plays[2].cards[0]"),
    "chaodipi.v1.Play.attempted": (_set_attempted, "tricks[3].plays[1].attempted[0]"),
}
RANK_CASES: dict[str, tuple[Callable[[Game, str], None], str]] = {
    "chaodipi.v1.HandContext.team0_level": (_set_team0, "context.team0_level"),
    "chaodipi.v1.HandContext.team1_level": (_set_team1, "context.team1_level"),
    "chaodipi.v1.Trump.level": (_set_trump, "claim.trump.level"),
    "chaodipi.v1.LevelResult.dealer_team_level_after": (
        _set_dealer_after,
        "claim.level_result.dealer_team_level_after",
    ),
    "chaodipi.v1.LevelResult.defender_team_level_after": (
        _set_defender_after,
        "claim.level_result.defender_team_level_after",
    ),
}


def _hand(field: str, token: str) -> tuple[Game, str]:
    game = generate_hand("classic", 3)
    bids, exchanges = len(game.bids), len(game.kitty_exchanges)
    put, path = {**CARD_CASES, **RANK_CASES}[field]
    put(game, token)
    return game, path.format(bids=bids, ex=exchanges)


def _to_json_path(path: str) -> str:
    """A protobuf field path with the JSON names (``draw_order`` -> ``drawOrder``)."""
    words = path.split("_")
    return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])


def test_every_token_field_is_covered() -> None:
    game_fields = {f for f in CARD_FIELDS | RANK_FIELDS if ".MatchClaim." not in f}
    assert game_fields == CARD_CASES.keys() | RANK_CASES.keys()


@pytest.mark.parametrize("field", sorted(CARD_CASES))
def test_bad_card_token_in_every_card_field_is_found_with_its_path(field: str) -> None:
    game, path = _hand(field, "S1")
    second = records_pb2.RecordFile(game=game)
    data = write_pb([records_pb2.RecordFile(game=generate_hand("classic", 4)), second])
    result = load_bytes(data, "s.pb")
    assert len(result.records) == 1
    [problem] = result.errors
    start = len(data) - len(second.SerializeToString(deterministic=True)) - 2
    assert problem.location == f"record 2 (byte {start}): game.{path}"
    assert problem.message.startswith("bad card token 'S1': expected a card token")
    text = json.dumps(json_format.MessageToDict(game))
    [problem] = load_bytes(text.encode(), "s.json").errors
    assert problem.location == f"$.{_to_json_path(path)}"
    assert problem.message.startswith("bad card token 'S1': expected a card token")


@pytest.mark.parametrize("field", sorted(RANK_CASES))
@pytest.mark.parametrize("token", ["Z", " 2", "22", "1"])
def test_bad_rank_in_every_rank_field_is_found_with_its_path(field: str, token: str) -> None:
    game, path = _hand(field, token)
    assert bad_token(records_pb2.RecordFile(game=game), "", json_names=False) == (
        f"game.{path}",
        f"bad rank {token!r}: expected a rank token 2-9, T, J, Q, K or A",
    )
    [problem] = load_bytes(game.SerializeToString(), "g.pb").errors
    assert problem.location == f"byte 0: game.{path}"


GOOD_TOKENS = [
    *((field, "sa") for field in CARD_CASES),
    *((field, token) for field in RANK_CASES for token in ("10", "k", "")),
]


@pytest.mark.parametrize(("field", "token"), GOOD_TOKENS)
def test_good_tokens_of_any_case_are_not_bad(field: str, token: str) -> None:
    game, _ = _hand(field, token)
    assert bad_token(game, "", json_names=False) is None
    result = load_bytes(write_pb([records_pb2.RecordFile(game=game)]), "g.pb")
    assert not result.errors
    assert len(result.records) == 1


def test_bad_tokens_of_a_match_are_found_in_its_hands_and_claim() -> None:
    match = generate_match("classic", 5)
    match.hands[1].tricks[4].plays[3].cards[0] = "XX"
    assert bad_token(match, "", json_names=True) == (
        "hands[1].tricks[4].plays[3].cards[0]",
        "bad card token 'XX': expected a card token: a suit letter S, H, C or D and a rank "
        "2-9, T, J, Q, K, A (e.g. 'ST'), or LJ / BJ for the jokers",
    )
    match = generate_match("classic", 6)
    match.claimed_result.team1_final_level = "Q1"
    [problem] = load_bytes(match.SerializeToString(), "m.pb").errors
    assert problem.location == "byte 0: match.claimed_result.team1_final_level"


def _game_frame(*parts: bytes) -> bytes:
    """A stream of one RecordFile whose game's bytes are ``parts`` one after the other."""
    game = b"".join(parts)
    record = b"\x0a" + encode_varint(len(game)) + game
    return encode_varint(len(record)) + record


def test_a_token_the_record_drops_on_the_wire_is_not_held_against_it() -> None:
    # The deal is a oneof: of dealt hands then a draw order, the record keeps the draw order.
    bad_hands = _dealt(generate_hand("classic", 7))
    bad_hands.dealt_hands.hands[0].cards[0] = "S1"
    good = generate_hand("classic", 7)
    data = _game_frame(
        bad_hands.SerializeToString(), Game(draw_order=good.draw_order).SerializeToString()
    )
    result = load_bytes(data, "s.pb")
    assert not result.errors
    assert result.records[0].game.draw_order == good.draw_order
    # A context given twice is merged: the later level replaces the earlier, bad one...
    bad_level = Game(context=records_pb2.HandContext(team0_level="Z")).SerializeToString()
    result = load_bytes(_game_frame(bad_level, good.SerializeToString()), "s.pb")
    assert not result.errors
    # ...and a later bad level is the record's.
    result = load_bytes(_game_frame(good.SerializeToString(), bad_level), "s.pb")
    [problem] = result.errors
    assert problem.location == "record 1 (byte 0): game.context.team0_level"


@pytest.mark.parametrize("token", ["LA", "B2", "BQ", "S", "SAS", "sa", "", "JL", "S\x02"])
def test_a_stream_of_many_hands_finds_the_one_odd_card_token(token: str) -> None:
    # A stream's tokens are checked at once (every record's in one shadow), each card field's
    # elements a column at a time: a joker's letter beside another rank, a token of another
    # length (which shifts the columns) or case is not let through, and its record is named.
    games = [generate_hand("classic", seed) for seed in range(6)]
    games[4].tricks[9].plays[1].cards[0] = token
    data = write_pb(records_pb2.RecordFile(game=g) for g in games)
    result = load_bytes(data, "s.pb")
    if token == "sa":  # a good token in another case: kept, as it was
        assert not result.errors
        assert len(result.records) == 6
        return
    [problem] = result.errors
    assert problem.location.startswith("record 5 (byte ")
    assert problem.location.endswith("): game.tricks[9].plays[1].cards[0]")
    assert len(result.records) == 5


@pytest.mark.parametrize("ruleset", ["classic", "shuangsheng", "anhui", "changshu"])
def test_clean_records_pass_the_whole_chunk_check_and_one_odd_token_fails_it(
    ruleset: str,
) -> None:
    # The check of many records at once answers the usual chunk itself: a leaf's other fields
    # (a play's seat, a bid's kind, a trick's claim) are never read as its tokens. One token
    # in another case sends the chunk to the record-by-record check.
    games = [generate_hand(ruleset, seed) for seed in range(8)]
    games.append(generate_match(ruleset, 3).hands[0])
    kind = records_pb2.RecordFile.DESCRIPTOR

    def chunk() -> bytes:
        return b"".join(
            b"\x0a" + encode_varint(len(data)) + data
            for data in (records_pb2.RecordFile(game=g).SerializeToString() for g in games)
        )

    assert clean_records(kind, chunk())
    games[3].bids[0].cards[0] = games[3].bids[0].cards[0].lower()
    assert not clean_records(kind, chunk())
