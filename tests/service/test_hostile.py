"""Hostile calls: each gets the status it must, nothing is half-stored, and the server still
answers health checks afterwards (checked after every test of this module)."""

from __future__ import annotations

import contextlib
import random
import secrets
import socket
import threading
from collections.abc import Callable, Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2
from sqlalchemy import func, select
from sqlmodel import col

from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.client import AuditClient, ServiceError, field_violations
from chaodipi.service.keys import create_key, revoke_key
from chaodipi.service.models import Finding, Game, GamePlayer
from chaodipi.service.server import ServerConfig
from chaodipi.service.store import find_tenant
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2
from tests.service.service_support import MAX_MESSAGE, Service, running_service

STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE
REJECTED = service_pb2.RecordSummary.STATUS_REJECTED
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_PROTOBUF = b"\xff\xff\xff\xff"  # a field number of 0 with a bad wire type: never parses


@pytest.fixture(autouse=True)
def still_serving(service: Service) -> Iterator[None]:
    """After each hostile call, the server is up and healthy."""
    yield
    with AuditClient(service.target, timeout=10) as probe:
        assert probe.health() == SERVING
        assert probe.health("chaodipi.v1.AuditService") == SERVING


def every_method(client: AuditClient) -> dict[str, Callable[[], object]]:
    """One call of each AuditService method."""
    hand = generate_hand("classic", 1)
    return {
        "UploadRecords": lambda: client.upload([hand]),
        "BatchUploadRecords": lambda: client.batch_upload([hand]),
        "AuditRecord": lambda: client.audit(hand),
        "GetGame": lambda: client.get_game("0123456789abcdef"),
        "ListGames": lambda: client.list_games(),
        "ReauditGame": lambda: client.reaudit_game("0123456789abcdef"),
        "AnalyzeGame": lambda: client.analyze_game("0123456789abcdef"),
        "GetMatch": lambda: client.get_match("0123456789abcdef"),
        "GetPlayerStats": lambda: client.get_player_stats("li.wei"),
        "ListPlayers": lambda: client.list_players(),
    }


def status_of(call: Callable[[], object]) -> grpc.StatusCode:
    """The status a call ends with (OK when it returns)."""
    try:
        call()
    except grpc.RpcError as error:
        code: grpc.StatusCode = error.code()  # type: ignore[attr-defined]
        return code
    return grpc.StatusCode.OK


def tenant_with_key(service: Service) -> tuple[int, str, str]:
    """A new tenant: its id, a key id and the key."""
    name = f"tenant-{secrets.token_hex(4)}"
    key_id, key = create_key(service.sessions, name)
    with service.sessions() as session:
        tenant = find_tenant(session, name)
    assert tenant is not None
    return tenant, key_id, key


def assert_stored_whole(service: Service, tenant: int) -> int:
    """Every stored game of ``tenant`` has its four seats and every finding of its report;
    returns how many games there are."""
    with service.sessions() as session:
        games = session.execute(
            select(col(Game.id), col(Game.report)).where(col(Game.tenant_id) == tenant)
        ).all()
        seats = dict(
            session.execute(
                select(col(GamePlayer.game_id), func.count())
                .group_by(col(GamePlayer.game_id))
                .where(col(GamePlayer.game_id).in_([g for g, _ in games]))
            ).all()
        )
        findings = dict(
            session.execute(
                select(col(Finding.game_id), func.count())
                .group_by(col(Finding.game_id))
                .where(col(Finding.game_id).in_([g for g, _ in games]))
            ).all()
        )
    for game_id, report in games:
        assert seats.get(game_id) == 4, game_id
        expected = len(audit_pb2.AuditReport.FromString(report).findings)
        assert findings.get(game_id, 0) == expected, game_id
    return len(games)


def settled(service: Service, tenant: int) -> int:
    """The tenant's stored games once the server has finished every call's audits and writes
    (a batch whose call ended while it was being stored still commits, whole)."""
    service.settle()
    return assert_stored_whole(service, tenant)


def distinct_hands(count: int, tag: str) -> list[records_pb2.GameRecord]:
    """``count`` hands of distinct content (a few generated hands under new record ids)."""
    base = [generate_hand(r, 60 + i) for i, r in enumerate(("classic", "changshu"))]
    hands = []
    for i in range(count):
        hand = records_pb2.GameRecord()
        hand.CopyFrom(base[i % len(base)])
        hand.record_id = f"{tag}-{i}"
        hands.append(hand)
    return hands


def test_no_key_is_unauthenticated_on_every_method(service: Service) -> None:
    with AuditClient(service.target) as anonymous:
        codes = {name: status_of(call) for name, call in every_method(anonymous).items()}
    assert codes == dict.fromkeys(codes, grpc.StatusCode.UNAUTHENTICATED)


@pytest.mark.parametrize(
    "header",
    [
        "Bearer cdp_000000000000_forged",
        "Bearer not-a-key",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "cdp_000000000000_forged",
    ],
)
def test_wrong_key_is_unauthenticated(service: Service, header: str) -> None:
    with AuditClient(service.target) as client:
        client.metadata = (("authorization", header),)
        codes = {name: status_of(call) for name, call in every_method(client).items()}
    assert codes == dict.fromkeys(codes, grpc.StatusCode.UNAUTHENTICATED)


def test_revoked_key_is_unauthenticated_at_once(service: Service) -> None:
    _, key_id, key = tenant_with_key(service)
    with AuditClient(service.target, api_key=key) as client:
        assert client.list_games().total_size == 0
        assert revoke_key(service.sessions, key_id)
        codes = {name: status_of(call) for name, call in every_method(client).items()}
    assert codes == dict.fromkeys(codes, grpc.StatusCode.UNAUTHENTICATED)


def test_another_tenants_games_are_not_found(service: Service) -> None:
    match = generate_match("classic", 41, max_hands=2)
    hand = generate_hand("classic", 41)
    with AuditClient(service.target, api_key=tenant_with_key(service)[2]) as owner:
        summaries = owner.upload([hand, match])
    games = [summaries[0].game, *summaries[1].hand_games]
    player = hand.players[0].id
    not_found = grpc.StatusCode.NOT_FOUND
    with AuditClient(service.target, api_key=tenant_with_key(service)[2]) as other:
        # By the game's id and by the record id the uploader gave it.
        for game in [*games, hand.record_id, match.hands[0].record_id]:
            assert status_of(lambda g=game: other.get_game(g)) == not_found
            assert status_of(lambda g=game: other.reaudit_game(g)) == not_found
            assert status_of(lambda g=game: other.analyze_game(g)) == not_found
        for name in (summaries[1].match, match.match_id):
            assert status_of(lambda m=name: other.get_match(m)) == not_found
        assert status_of(lambda: other.get_player_stats(player)) == not_found
        assert other.list_games().total_size == 0
        assert other.list_games(player_id=player).total_size == 0
        assert other.list_games(match=match.match_id).total_size == 0
        assert list(other.players()) == []
        assert list(other.players([player])) == []
        # The same content uploaded by another tenant is that tenant's own new game: a
        # DUPLICATE would tell it the first tenant holds this record.
        (again,) = other.upload([hand])
        assert again.status == STORED and again.game not in games


def raw_channel_call(target: str, method: str, payload: bytes, key: str) -> grpc.RpcError:
    """The error of calling ``method`` with ``payload`` as its request bytes."""
    with grpc.insecure_channel(target) as channel:
        call = channel.unary_unary(
            f"/chaodipi.v1.AuditService/{method}",
            request_serializer=None,
            response_deserializer=None,
        )
        with pytest.raises(grpc.RpcError) as caught:
            call(payload, timeout=10, metadata=(("authorization", f"Bearer {key}"),))
    return caught.value


@pytest.mark.parametrize(
    "method",
    [
        "BatchUploadRecords",
        "AuditRecord",
        "GetGame",
        "ListGames",
        "ReauditGame",
        "AnalyzeGame",
        "GetMatch",
        "GetPlayerStats",
        "ListPlayers",
    ],
)
def test_unreadable_message_is_invalid_argument(service: Service, method: str) -> None:
    error = raw_channel_call(service.target, method, NOT_PROTOBUF, service.new_key())
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    ((name, description),) = field_violations(error)
    assert name == "request" and f"chaodipi.v1.{method}Request" in description


def test_unreadable_message_without_a_key_is_unauthenticated(service: Service) -> None:
    with grpc.insecure_channel(service.target) as channel:
        call = channel.unary_unary("/chaodipi.v1.AuditService/AuditRecord")
        with pytest.raises(grpc.RpcError) as caught:
            call(NOT_PROTOBUF, timeout=10)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]


def test_unreadable_message_in_a_stream_is_one_rejected_record(service: Service) -> None:
    tenant, _, key = tenant_with_key(service)
    good = [
        service_pb2.UploadRecordsRequest(game=h).SerializeToString()
        for h in distinct_hands(2, "unreadable")
    ]
    with grpc.insecure_channel(service.target) as channel:
        upload = channel.stream_stream(
            "/chaodipi.v1.AuditService/UploadRecords",
            response_deserializer=service_pb2.RecordSummary.FromString,
        )
        summaries = list(
            upload(
                iter([good[0], NOT_PROTOBUF, good[1]]),
                timeout=30,
                metadata=(("authorization", f"Bearer {key}"),),
            )
        )
    assert [s.status for s in summaries] == [STORED, REJECTED, STORED]
    assert "not a readable chaodipi.v1.UploadRecordsRequest" in summaries[1].error
    assert [v.field for v in summaries[1].violations] == ["request"]
    assert assert_stored_whole(service, tenant) == 2


_JUNK = random.Random(8)


@pytest.mark.parametrize(
    "junk",
    [
        _JUNK.randbytes(64 * 1024),
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + _JUNK.randbytes(8 * 1024),
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"",
    ],
    ids=["random", "http2-preface-then-random", "http1", "nothing"],
)
def test_random_bytes_on_the_wire(service: Service, junk: bytes) -> None:
    host, port = service.target.rsplit(":", 1)
    for _ in range(20):
        # The server may hang up at any point: that is the right answer to junk.
        with (
            socket.create_connection((host, int(port)), timeout=5) as raw,
            contextlib.suppress(OSError),
        ):
            raw.sendall(junk)
            raw.shutdown(socket.SHUT_WR)
            while raw.recv(65536):
                pass
    with AuditClient(service.target, api_key=service.new_key()) as client:
        assert client.list_games().total_size == 0


def test_message_over_the_limit_is_resource_exhausted(service: Service) -> None:
    tenant, _, key = tenant_with_key(service)
    hand = generate_hand("classic", 42)
    hand.metadata["padding"] = "x" * (MAX_MESSAGE + 1)
    with AuditClient(service.target, api_key=key) as client:
        assert status_of(lambda: client.audit(hand)) == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert status_of(lambda: client.upload([hand])) == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert assert_stored_whole(service, tenant) == 0


@pytest.fixture(scope="module")
def small_limits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A server (SQLite) with stream limits small enough to pass in a test."""
    url = f"sqlite:///{tmp_path_factory.mktemp('limits') / 'limits.db'}"
    config = ServerConfig(
        port=0,
        database_url=url,
        require_keys=True,
        audit_workers=0,
        max_message_bytes=MAX_MESSAGE,
        max_records_per_upload=10,
        max_upload_bytes=12 * 1024,
        batch_size=4,
        grace_seconds=1,
    )
    with running_service(config) as service:
        yield service


@pytest.mark.parametrize("count", [11, 30])
def test_stream_over_its_limits_is_resource_exhausted(small_limits: Service, count: int) -> None:
    """11 records pass the record limit (10); 30 hands (~1.7 KB each) pass the byte limit
    (12 KiB) first. What was stored before is whole, and re-sending in smaller streams stores
    each record once."""
    tenant, _, key = tenant_with_key(small_limits)
    hands = distinct_hands(count, f"limits-{count}")
    answered: list[service_pb2.RecordSummary] = []
    with AuditClient(small_limits.target, api_key=key) as client:
        with pytest.raises(ServiceError) as caught:
            for summary in client.upload_stream(
                service_pb2.UploadRecordsRequest(game=h) for h in hands
            ):
                answered.append(summary)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "split the stream" in caught.value.details()
        partial = settled(small_limits, tenant)
        assert partial < count
        # Every record answered before the error is stored; the error follows them.
        assert [s.status for s in answered] == [STORED] * len(answered)
        assert len(answered) <= partial
        again = client.upload(hands, chunk=5)
    assert {s.status for s in again} <= {STORED, DUPLICATE}
    assert sum(s.status == STORED for s in again) == count - partial
    assert assert_stored_whole(small_limits, tenant) == count
    with AuditClient(small_limits.target) as probe:
        assert probe.health() == SERVING


def held_stream(
    hands: list[records_pb2.GameRecord], release: threading.Event
) -> Iterator[service_pb2.UploadRecordsRequest]:
    """The hands as upload requests, then a stream held open until ``release``: the call
    cannot end before the client lets it (or gives up)."""
    for hand in hands:
        yield service_pb2.UploadRecordsRequest(game=hand)
    release.wait(120)


def test_stream_stopped_half_way_stores_whole_records_and_can_be_resent(
    service: Service,
) -> None:
    tenant, _, key = tenant_with_key(service)
    hands = distinct_hands(40, "stopped")
    release = threading.Event()
    with AuditClient(service.target, api_key=key) as client:
        # 24 records (three batches of 8), then the client goes quiet and cancels.
        responses = client.stub.UploadRecords(
            held_stream(hands[:24], release), timeout=120, metadata=client.metadata
        )
        answered = [next(responses) for _ in range(16)]  # two batches are stored
        responses.cancel()
        release.set()
        with pytest.raises(grpc.RpcError) as caught:
            next(responses)
        assert caught.value.code() == grpc.StatusCode.CANCELLED  # type: ignore[attr-defined]
        assert [s.status for s in answered] == [STORED] * 16
        partial = settled(service, tenant)
        assert 16 <= partial <= 24
        again = client.upload(hands)
    assert {s.status for s in again} <= {STORED, DUPLICATE}
    assert sum(s.status == STORED for s in again) == 40 - partial
    assert assert_stored_whole(service, tenant) == 40


def test_deadline_expiring_mid_upload(service: Service) -> None:
    tenant, _, key = tenant_with_key(service)
    hands = distinct_hands(200, "deadline")
    release = threading.Event()
    with AuditClient(service.target, api_key=key) as client:
        # The stream stays open until the deadline has passed: it cannot end before it.
        client.upload_timeout = 2
        with pytest.raises(ServiceError) as caught:
            list(client.upload_stream(held_stream(hands[:24], release)))
        release.set()
        assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        partial = settled(service, tenant)
        client.upload_timeout = 120
        again = client.upload(hands)
    assert partial <= 24
    assert sum(s.status == STORED for s in again) == 200 - partial
    assert assert_stored_whole(service, tenant) == 200
