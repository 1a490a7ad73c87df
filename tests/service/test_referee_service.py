"""The live referee end to end: a real server, real streams, SQLite and PostgreSQL.

A refereed hand is stored as an upload of its record is (GetGame gives the same record and
audit, a second table of the same hand is a duplicate); hostile streams get a verdict per event
or a clear status, never UNKNOWN, and no message names SQL, an exception or a path.
"""

from __future__ import annotations

import re

import grpc
import pytest

from chaodipi.auditor.generate import generate_hand
from chaodipi.auditor.referee import events_of
from chaodipi.client import AuditClient, ServiceError
from chaodipi.client.referee import RefereeTable
from chaodipi.service.referee import MAX_REQUESTS
from chaodipi.v1 import records_pb2, referee_pb2, service_pb2
from tests.service.service_support import MAX_MESSAGE, Service

LEGAL = referee_pb2.VERDICT_RESULT_LEGAL
INVALID = referee_pb2.VERDICT_RESULT_INVALID
OUT_OF_PHASE = referee_pb2.VERDICT_RESULT_OUT_OF_PHASE
STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE
LEAKS = re.compile(r"Traceback|Error\b|sqlalchemy|psycopg|sqlite|SELECT|INSERT|/work/|\.py\b")


def _stream(service: Service, key: str, requests: list[referee_pb2.RefereeRequest]):  # type: ignore[no-untyped-def]
    """Every response of one Referee stream fed ``requests`` (raw stub, no wrapper)."""
    with grpc.insecure_channel(service.target) as channel:
        call = channel.stream_stream(
            "/chaodipi.v1.RefereeService/Referee",
            request_serializer=referee_pb2.RefereeRequest.SerializeToString,
            response_deserializer=referee_pb2.RefereeResponse.FromString,
        )
        return list(
            call(iter(requests), timeout=60, metadata=(("authorization", f"Bearer {key}"),))
        )


def _referee(service: Service, key: str, record: records_pb2.GameRecord):  # type: ignore[no-untyped-def]
    return _stream(service, key, list(events_of(record)))


def test_a_refereed_hand_is_stored_as_its_upload_would_be(service: Service) -> None:
    record = generate_hand("changshu", 5)
    key = service.new_key()
    responses = _referee(service, key, record)
    assert [r.index for r in responses] == [*range(len(responses) - 1), len(responses) - 2]
    assert {r.verdict.result for r in responses[:-1]} == {LEGAL}
    assert responses[-2].HasField("hand_result") and responses[-2].HasField("trick_result")
    stored = responses[-1].stored
    assert stored.status == STORED and stored.game.startswith("games/")
    with (
        AuditClient(service.target, api_key=key) as client,
        AuditClient(service.target, api_key=service.new_key()) as other,
    ):
        game = client.get_game(stored.game)
        (uploaded,) = other.upload([record])
        upload = other.get_game(uploaded.game)
        assert game.record == upload.record == record
        assert game.report == upload.report
        assert game.content_hash == upload.content_hash
        assert client.get_game(record.record_id).name == stored.game
        assert [g.name for g in client.list_games().games] == [stored.game]
    again = _referee(service, key, record)
    assert again[-1].stored.status == DUPLICATE and again[-1].stored.game == stored.game


def test_the_client_wrapper_plays_a_hand_with_a_failed_throw(service: Service) -> None:
    record = next(
        r
        for r in (generate_hand("classic", seed) for seed in range(40))
        if any(t.plays[0].attempted for t in r.tricks)
    )
    with (
        AuditClient(service.target, api_key=service.new_key()) as client,
        RefereeTable(
            client,
            record_id=record.record_id,
            ruleset=record.ruleset,
            players=record.players,
            context=record.context,
            played_at=record.played_at,
            venue=record.venue,
            metadata=record.metadata,
        ) as table,
    ):
        assert table.opened.verdict.result == LEGAL
        table.deal(draw_order=record.draw_order.deck, first_drawer=record.draw_order.first_drawer)
        for event in list(events_of(record))[2:]:
            if not event.HasField("play"):
                assert table.send(event).verdict.result == LEGAL
                continue
            play = event.play.play
            if play.attempted:
                failed = table.play(play.seat, play.attempted).verdict
                assert failed.result == referee_pb2.VERDICT_RESULT_THROW_FAILED
                assert sorted(play.cards) in [
                    sorted(u.cards) for u in failed.throw_failure.forced_units
                ]
                last = table.play(play.seat, play.cards)
            else:
                last = table.play(play.seat, play.cards)
            assert last.verdict.result == LEGAL, last.verdict
        assert last.hand_result.computed.HasField("level_result")
        assert table.stored().status == STORED


def _open(record_id: str = "hostile") -> referee_pb2.RefereeRequest:
    return referee_pb2.RefereeRequest(
        open=referee_pb2.OpenTable(record_id=record_id, ruleset="classic")
    )


def test_hostile_events_get_clear_verdicts(service: Service) -> None:
    record = generate_hand("classic", 3)
    events = list(events_of(record))
    bad_seat = referee_pb2.RefereeRequest()
    bad_seat.play.play.seat = 7
    bad_seat.play.play.cards.append("SA")
    bad_card = referee_pb2.RefereeRequest()
    bad_card.play.play.cards.extend(["ZZ", "S1"])
    long_id = _open("x" * 300)
    requests = [
        events[4],  # a play before the table is open
        referee_pb2.RefereeRequest(),  # no event at all
        long_id,
        events[0],
        events[0],  # opened twice
        events[2],  # a bid before the deal
        events[1],
        bad_seat,
        bad_card,
        events[1],  # dealt twice
    ]
    responses = _stream(service, service.new_key(), requests)
    results = [r.verdict.result for r in responses]
    assert results == [
        OUT_OF_PHASE, INVALID, INVALID, LEGAL, OUT_OF_PHASE, OUT_OF_PHASE, LEGAL, INVALID,
        INVALID, OUT_OF_PHASE,
    ]  # fmt: skip
    assert [v.field for v in responses[2].verdict.violations] == ["open.record_id"]
    assert [v.field for v in responses[7].verdict.violations] == ["play.play.seat"]
    assert [v.field for v in responses[8].verdict.violations] == [
        "play.play.cards[0]",
        "play.play.cards[1]",
    ]
    for response in responses:
        refused = response.verdict.result != LEGAL
        assert bool(response.verdict.reason) == refused
        assert not LEAKS.search(response.verdict.reason)


def test_an_unreadable_request_is_one_invalid_verdict(service: Service) -> None:
    key = service.new_key()
    with grpc.insecure_channel(service.target) as channel:
        call = channel.stream_stream(
            "/chaodipi.v1.RefereeService/Referee",
            response_deserializer=referee_pb2.RefereeResponse.FromString,
        )
        responses = list(
            call(
                iter([_open().SerializeToString(), b"\xff\xff\xff\xff"]),
                timeout=30,
                metadata=(("authorization", f"Bearer {key}"),),
            )
        )
    assert [r.verdict.result for r in responses] == [LEGAL, INVALID]
    assert "not a readable chaodipi.v1.RefereeRequest" in responses[1].verdict.reason


@pytest.mark.parametrize("what", ["no key", "oversized"])
def test_a_stream_that_cannot_go_on_ends_with_a_clear_status(service: Service, what: str) -> None:
    request = _open()
    key = service.new_key()
    if what == "oversized":
        request.open.metadata["padding"] = "x" * (MAX_MESSAGE + 1)
    with grpc.insecure_channel(service.target) as channel:
        call = channel.stream_stream(
            "/chaodipi.v1.RefereeService/Referee",
            request_serializer=referee_pb2.RefereeRequest.SerializeToString,
            response_deserializer=referee_pb2.RefereeResponse.FromString,
        )
        metadata = () if what == "no key" else (("authorization", f"Bearer {key}"),)
        with pytest.raises(grpc.RpcError) as caught:
            list(call(iter([request]), timeout=30, metadata=metadata))
    code = caught.value.code()  # type: ignore[attr-defined]
    want = {
        "no key": grpc.StatusCode.UNAUTHENTICATED,
        "oversized": grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
    assert code == want[what]


def test_an_open_the_server_refuses_raises_in_the_client(service: Service) -> None:
    with (
        AuditClient(service.target, api_key=service.new_key()) as client,
        pytest.raises(ValueError, match="ruleset"),
    ):
        RefereeTable(client, record_id="t", ruleset="no-such-rules")
    with AuditClient(service.target) as anonymous, pytest.raises(ServiceError) as caught:
        RefereeTable(anonymous, record_id="t")
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_stream_past_its_requests_is_resource_exhausted(service: Service) -> None:
    requests = [referee_pb2.RefereeRequest(deal=referee_pb2.Deal())] * (MAX_REQUESTS + 1)
    with pytest.raises(grpc.RpcError) as caught:
        _stream(service, service.new_key(), requests)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
    assert str(MAX_REQUESTS) in caught.value.details()  # type: ignore[attr-defined]
