"""No record costs another (issue 13), on SQLite and PostgreSQL alike: each kind of bad record
is rejected alone, naming its field, while the good records around it are stored; a changed
record under a stored record id is a conflict; unknown fields are not content; bad arguments
are INVALID_ARGUMENT; no answer is UNKNOWN or carries SQL, an exception's name or a path."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from sqlmodel import col

from chaodipi import importers
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.batch import DatabaseSink, LocalBackend, run_batch
from chaodipi.client import AuditClient, ServiceError
from chaodipi.service import readmodel, server, store
from chaodipi.service.db import make_engine
from chaodipi.service.limits import MAX_DETAIL_BYTES, MAX_FILTER_IDS, MAX_VIOLATIONS
from chaodipi.service.models import Game, Match
from chaodipi.v1 import records_pb2, service_pb2
from tests.service.service_support import Service

STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE
REJECTED = service_pb2.RecordSummary.STATUS_REJECTED
CONFLICT = service_pb2.RecordSummary.STATUS_CONFLICT
INVALID = grpc.StatusCode.INVALID_ARGUMENT

LEAKS = re.compile(
    r"\b(SELECT|INSERT|UPDATE|WHERE)\b|psycopg|sqlite|sqlalchemy|Traceback"
    r"|\b[A-Z]\w*(Error|Exception)\b"  # a Python exception's name
    r"|\.py\b|/tmp/|/usr/|/root/|site-packages"
)


def clean(text: str) -> str:
    """``text``, after checking it quotes no SQL, no exception's name and no file path."""
    assert not LEAKS.search(text), text
    return text


def hand(seed: int, record_id: str | None = None) -> records_pb2.GameRecord:
    record = generate_hand("classic", seed)
    if record_id is not None:
        record.record_id = record_id
    return record


def _too_many_players(record: records_pb2.GameRecord) -> None:
    for i in range(1000):
        record.players.add(id=f"extra-{i}")


def _set(field: str, value: str) -> Callable[[records_pb2.GameRecord], None]:
    def change(record: records_pb2.GameRecord) -> None:
        if field == "metadata":
            record.metadata[value] = "x"
        elif field.startswith("players[0]."):
            setattr(record.players[0], field.partition(".")[2], value)
        else:
            setattr(record, field, value)

    return change


NAME = "players[0].display_name"

# Each kind of bad record the issue lists, and the field its rejection must name.
BAD_RECORDS: dict[str, tuple[Callable[[records_pb2.GameRecord], None], str]] = {
    "record id too long": (_set("record_id", "r" * 201), "record_id"),
    "record id of 10,000 characters": (_set("record_id", "r" * 10_000), "record_id"),
    "NUL in the record id": (_set("record_id", "classic\x00one"), "record_id"),
    "control character in the record id": (_set("record_id", "classic\x1bone"), "record_id"),
    "NUL in a player id": (_set("players[0].id", "li\x00wei"), "players[0].id"),
    "player id too long": (_set("players[0].id", "p" * 201), "players[0].id"),
    "NUL in a display name": (_set("players[0].display_name", "Li\x00"), "players[0].display_name"),
    "display name too long": (
        _set("players[0].display_name", "名" * 201),
        "players[0].display_name",
    ),
    "NUL in the venue": (_set("venue", "club\x00"), "venue"),
    "NUL in a metadata key": (_set("metadata", "k\x00"), "metadata[k\\x00]"),
    "time before year 1 in UTC": (_set("played_at", "0001-01-01T00:00:00+05:00"), "played_at"),
    "time after year 9999 in UTC": (_set("played_at", "9999-12-31T23:00:00-05:00"), "played_at"),
    "unreadable time": (_set("played_at", "yesterday evening"), "played_at"),
    "too many players": (_too_many_players, "players"),
}


@pytest.mark.parametrize("kind", BAD_RECORDS)
def test_one_bad_record_is_rejected_alone(client: AuditClient, kind: str) -> None:
    change, field = BAD_RECORDS[kind]
    bad = hand(101)
    change(bad)
    first, rejected, last = client.upload([hand(100), bad, hand(102)])
    assert (first.status, rejected.status, last.status) == (STORED, REJECTED, STORED)
    assert [v.field for v in rejected.violations] == [field]
    assert clean(rejected.error).startswith(f"{field}: ")
    assert len(rejected.record_id) <= 201 and not rejected.game
    assert client.list_games().total_size == 2
    # The same rules on the unary batch: nothing of it depends on the database.
    (again,) = client.batch_upload([bad])
    assert again.status == REJECTED and [v.field for v in again.violations] == [field]


def test_a_bad_hand_of_a_match_rejects_the_match_alone(client: AuditClient) -> None:
    match = generate_match("classic", 103, max_hands=2)
    match.hands[1].played_at = "0001-01-01T00:00:00+05:00"
    good, rejected = client.upload([hand(104), match])
    assert (good.status, rejected.status) == (STORED, REJECTED)
    assert [v.field for v in rejected.violations] == ["hands[1].played_at"]
    assert client.list_games().total_size == 1


def test_a_record_the_database_refuses_is_rejected_alone(
    service: Service, client: AuditClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A value no check foresaw: this record's game row lacks its ruleset (NOT NULL refuses it,
    # in a batch and again on its own), whatever the database.
    game_rows = store._game_rows

    def refused(
        rows: Any, tenant_id: int, record: records_pb2.GameRecord, *args: Any, **kw: Any
    ) -> str:
        game_id = game_rows(rows, tenant_id, record, *args, **kw)
        if record.record_id == "refused":
            rows.games[-1]["ruleset"] = None
        return game_id

    monkeypatch.setattr(store, "_game_rows", refused)
    first, rejected, last = client.upload([hand(105), hand(106, "refused"), hand(107)])
    assert (first.status, rejected.status, last.status) == (STORED, REJECTED, STORED)
    assert [v.field for v in rejected.violations] == ["record"]
    assert (
        clean(rejected.error) == "record: cannot be stored: the database refused one of its values"
    )
    assert client.list_games().total_size == 2


def test_a_changed_record_under_a_stored_id_is_a_conflict(client: AuditClient) -> None:
    original = hand(110, "table-7/hand-1")
    (stored,) = client.upload([original])
    changed = hand(110, "table-7/hand-1")
    changed.claim.defenders_points += 5
    unchanged, conflict = client.upload([original, changed])
    assert unchanged.status == DUPLICATE and unchanged.game == stored.game
    assert conflict.status == CONFLICT and conflict.game == stored.game
    assert "table-7/hand-1" in clean(conflict.error) and stored.game in conflict.error
    assert [v.field for v in conflict.violations] == ["record_id"]
    # The record id names the first game, by itself or in a name.
    assert client.get_game("table-7/hand-1").name == stored.game
    assert client.get_game("games/table-7/hand-1").record == original
    # Twice in one stream: the first is stored, the second is the conflict.
    a, b = hand(111, "twice"), hand(112, "twice")
    first, second = client.upload([a, b])
    assert (first.status, second.status) == (STORED, CONFLICT) and second.game == first.game
    assert client.list_games().total_size == 2


def test_a_changed_match_under_a_stored_id_is_a_conflict(client: AuditClient) -> None:
    match = generate_match("anhui", 113, max_hands=2)
    (stored,) = client.upload([match])
    match.claimed_result.winning_team = 1 - match.claimed_result.winning_team
    (conflict,) = client.upload([match])
    assert conflict.status == CONFLICT and conflict.match == stored.match
    assert [v.field for v in conflict.violations] == ["match_id"]
    assert client.get_match(match.match_id).name == stored.match


def test_a_conflict_stored_meanwhile_is_still_a_conflict(
    service: Service, client: AuditClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another upload stores the record id between this transaction's lookups and its insert:
    # the unique index refuses the second game, and the retry names the first.
    (stored,) = client.upload([hand(114, "raced")])
    blind = {"_existing": 2, "_named": 2}

    def late(name: str) -> Any:
        lookup = getattr(store, name)

        def blinded(session: Session, model: type[Game] | type[Match], *args: Any) -> Any:
            if model is Game and blind[name]:
                blind[name] -= 1
                return {}
            return lookup(session, model, *args)

        return blinded

    for name in blind:
        monkeypatch.setattr(store, name, late(name))
    (conflict,) = client.upload([hand(115, "raced")])
    assert blind == {"_existing": 0, "_named": 0}
    assert conflict.status == CONFLICT and conflict.game == stored.game
    assert client.list_games().total_size == 1


def with_unknown_field(record: records_pb2.GameRecord, size: int) -> records_pb2.GameRecord:
    """The record plus field 999 (length-delimited), which GameRecord does not know."""
    payload = b"x" * size
    key, length = bytes([0xBA, 0x3E]), bytearray()  # field 999, wire type 2
    while True:
        byte, size = size & 0x7F, size >> 7
        length.append(byte | (0x80 if size else 0))
        if not size:
            break
    return records_pb2.GameRecord.FromString(
        record.SerializeToString() + key + bytes(length) + payload
    )


def test_unknown_fields_are_not_content(service: Service, client: AuditClient) -> None:
    original = hand(120)
    padded = with_unknown_field(original, 100_000)
    assert len(padded.SerializeToString()) > 100_000  # the client sends them
    (first,) = client.upload([padded])
    (second,) = client.upload([original, with_unknown_field(original, 10)])[1:]
    assert first.status == STORED and second.status == DUPLICATE and second.game == first.game
    stored = client.get_game(first.game)
    assert stored.record.SerializeToString() == original.SerializeToString()
    with service.sessions() as session:
        blob = session.scalar(select(col(Game.record)).where(col(Game.id) == first.game[6:]))
    assert blob == original.SerializeToString()


def test_error_details_are_bounded(client: AuditClient) -> None:
    broken = hand(121)
    deck = broken.draw_order.deck
    for i in range(len(deck)):
        deck[i] = "ZZ"  # 108 bad cards: 108 violations
    with pytest.raises(ServiceError) as caught:
        client.audit(broken)
    assert caught.value.code() == INVALID  # not RESOURCE_EXHAUSTED: the client reads it all
    shown = caught.value.violations
    assert 10 <= len(shown) < len(deck)
    assert sum(len(f) + len(d) for f, d in shown) <= MAX_DETAIL_BYTES
    assert caught.value.details().endswith(f"(and {len(deck) - len(shown)} more)")
    (summary,) = client.upload([broken])
    assert summary.status == REJECTED and len(summary.violations) == MAX_VIOLATIONS
    assert summary.error.endswith(f"(and {len(deck) - MAX_VIOLATIONS} more)")
    long_id = "g" * 200  # a valid id: echoed in NOT_FOUND, cut short
    with pytest.raises(ServiceError) as caught:
        client.get_game(long_id)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert len(caught.value.details()) < 80 and "g" * 41 not in caught.value.details()
    with pytest.raises(ServiceError) as caught:
        client.get_game("g" * 10_000)
    assert caught.value.code() == INVALID and len(caught.value.details()) < 200


def status(call: Callable[[], object]) -> tuple[grpc.StatusCode, list[str]]:
    """How a call ends (OK when it returns), and the fields of its violations."""
    try:
        call()
    except grpc.RpcError as raised:
        error = raised if isinstance(raised, ServiceError) else ServiceError(raised)
        clean(error.details())
        for _, description in error.violations:
            clean(description)
        return error.code(), [f for f, _ in error.violations]
    return grpc.StatusCode.OK, []


def test_bad_names_are_invalid_argument(client: AuditClient) -> None:
    stub, meta = client.stub, client.metadata

    def get_game(name: str, view: int = 0) -> object:
        request = service_pb2.GetGameRequest(name=name, view=view)  # type: ignore[arg-type]
        return stub.GetGame(request, timeout=30, metadata=meta)

    for name in ("", "games/", "classic-1", "matches/x", "games/a\x00b", "games/" + "x" * 201):
        assert status(lambda n=name: get_game(n)) == (INVALID, ["name"]), name
    assert status(lambda: get_game("games/x", 7)) == (INVALID, ["view"])
    assert status(
        lambda: stub.GetMatch(service_pb2.GetMatchRequest(name="games/x"), metadata=meta)
    ) == (INVALID, ["name"])
    assert status(
        lambda: stub.GetPlayerStats(service_pb2.GetPlayerStatsRequest(name=""), metadata=meta)
    ) == (INVALID, ["name"])
    assert status(lambda: client.reaudit_game("a\x00b")) == (INVALID, ["name"])
    assert status(lambda: client.list_games(match="m\x00")) == (INVALID, ["match"])
    # Well-formed names of nothing: NOT_FOUND.
    assert status(lambda: client.get_game("no-such-game"))[0] == grpc.StatusCode.NOT_FOUND
    assert status(lambda: client.get_match("no-such-match"))[0] == grpc.StatusCode.NOT_FOUND
    assert status(lambda: client.get_player_stats("nobody"))[0] == grpc.StatusCode.NOT_FOUND


def test_bad_filters_are_invalid_argument(client: AuditClient) -> None:
    client.upload([hand(s) for s in (130, 131, 132)])
    for field in ("ruleset", "player_id", "finding_code"):
        for value in ("a\x00b", "x" * 201):
            assert status(lambda f=field, v=value: client.list_games(**{f: v})) == (
                INVALID,
                [field],
            )
    assert status(lambda: client.list_players(["ok", "a\x00b"])) == (INVALID, ["player_ids[1]"])
    too_many = [f"p{i}" for i in range(MAX_FILTER_IDS + 1)]
    assert status(lambda: client.list_players(too_many)) == (INVALID, ["player_ids"])
    assert status(lambda: client.list_players(too_many[:MAX_FILTER_IDS]))[0] == grpc.StatusCode.OK
    assert status(lambda: client.list_games(page_size=-1)) == (INVALID, ["page_size"])
    stub, meta = client.stub, client.metadata
    for seconds in (-(10**12), 10**12):
        stamp = Timestamp(seconds=seconds)
        request = service_pb2.ListGamesRequest(played_from=stamp)
        assert status(lambda r=request: stub.ListGames(r, metadata=meta)) == (
            INVALID,
            ["played_from"],
        )
        players = service_pb2.ListPlayersRequest(played_to=stamp)
        assert status(lambda r=players: stub.ListPlayers(r, metadata=meta)) == (
            INVALID,
            ["played_to"],
        )


def _tokens(token: str) -> Iterator[str]:
    """Tokens made from a real one: its parts changed, NUL put in, its bytes garbled."""
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    for made in (
        raw.replace(raw[-4:], b"\x00" + raw[-3:]),  # NUL in the game id
        raw + b"\x1fmore",  # a part too many
        raw.replace(b"games", b"plays", 1),  # another kind
        b"\xff\xfe" + raw,  # not UTF-8
    ):
        yield base64.urlsafe_b64encode(made).decode().rstrip("=")
    yield "not-a-token"
    yield "%%%"
    yield "A" * 10_000


def test_crafted_page_tokens_are_invalid_argument(client: AuditClient) -> None:
    client.upload([hand(s) for s in (140, 141, 142)])
    token = client.list_games(page_size=1).next_page_token
    assert token and client.list_games(page_size=1, page_token=token).games
    for crafted in _tokens(token):
        assert status(lambda t=crafted: client.list_games(page_token=t)) == (
            INVALID,
            ["page_token"],
        ), crafted
    # A token is good only for the filters it was issued with.
    assert status(lambda: client.list_games(ruleset="classic", page_token=token)) == (
        INVALID,
        ["page_token"],
    )
    players = client.list_players(page_size=1).next_page_token
    assert players and status(lambda: client.list_games(page_token=players))[0] == INVALID
    assert status(lambda: client.list_players(page_token=token)) == (INVALID, ["page_token"])


def test_page_size_is_clamped(client: AuditClient) -> None:
    base = hand(150)
    records = []
    for i in range(126):  # 504 players of their own
        record = records_pb2.GameRecord()
        record.CopyFrom(base)
        record.record_id = f"crowd-{i}"
        for seat, player in enumerate(record.players):
            player.id = f"player-{i:03d}-{seat}"
        records.append(record)
    client.upload(records)
    page = client.list_players(page_size=10**6)
    assert len(page.players) == readmodel.MAX_PAGE_SIZE and page.total_size == 504
    rest = client.list_players(page_size=10**6, page_token=page.next_page_token)
    assert len(rest.players) == 4 and not rest.next_page_token
    assert {p.player_id for p in page.players + rest.players} == {
        f"player-{i:03d}-{seat}" for i in range(126) for seat in range(4)
    }
    assert len(client.list_players().players) == readmodel.DEFAULT_PAGE_SIZE


def test_no_call_answers_unknown(client: AuditClient, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("SELECT secret FROM /root/chaodipi/service/readmodel.py")

    monkeypatch.setattr(readmodel.ReadModel, "games", broken)
    code, _ = status(lambda: client.list_games())
    assert code == grpc.StatusCode.INTERNAL
    with pytest.raises(ServiceError) as caught:
        client.list_games()
    assert "reference" in clean(caught.value.details())

    def unreachable(*args: object, **kwargs: object) -> None:
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("refused"))

    monkeypatch.setattr(readmodel.ReadModel, "games", unreachable)
    client.retry = type(client.retry)(attempts=1)
    assert status(lambda: client.list_games())[0] == grpc.StatusCode.UNAVAILABLE
    # The API-key check reads the database before any servicer runs: the same answers.
    monkeypatch.setattr(server, "tenant_for_key", unreachable)
    for call in (client.list_games, lambda: client.upload([hand(170)])):
        assert status(call)[0] == grpc.StatusCode.UNAVAILABLE
    monkeypatch.setattr(server, "tenant_for_key", broken)
    assert status(lambda: client.get_match("m"))[0] == grpc.StatusCode.INTERNAL


def test_audit_batch_into_a_database_survives_bad_records(
    own_database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAODIPI_HOME", str(tmp_path / "home"))
    bad_time, bad_name = hand(161), hand(162)
    bad_time.played_at = "0001-01-01T00:00:00+05:00"
    bad_name.players[0].display_name = "Li\x00"
    records = [hand(160), bad_time, bad_name, hand(163)]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    importers.write([records_pb2.RecordFile(game=r) for r in records], corpus / "day.pb", "pb")
    backend = LocalBackend(1)
    try:
        summary = run_batch([str(corpus)], DatabaseSink(own_database_url), backend)
    finally:
        backend.close()
    assert summary.records == 4
    assert "(2 stored, 0 already there)" in summary.destination
    engine = make_engine(own_database_url)
    with engine.connect() as connection:
        stored = set(connection.scalars(select(Game.record_id)))
        assert connection.scalar(select(func.count()).select_from(Game)) == 2
    engine.dispose()
    assert stored == {records[0].record_id, records[3].record_id}
