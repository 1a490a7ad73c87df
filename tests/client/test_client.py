"""The Python client against a stand-in server that fails on purpose: retries on UNAVAILABLE with
backoff (and on nothing else), deadlines and the API key on every call, uploads that resume
where a broken stream left off, typed errors. No real waiting: the client's ``sleep`` records."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from google.rpc import code_pb2, error_details_pb2, status_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status

from chaodipi.client import AuditClient, Retry, ServiceError
from chaodipi.v1 import records_pb2, service_pb2, service_pb2_grpc

STORED = service_pb2.RecordSummary.STATUS_STORED


class StandIn(service_pb2_grpc.AuditServiceServicer):
    """Answers UNAVAILABLE ``failures`` times per method, then as a server would; keeps what it
    saw of each call."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: dict[str, int] = {}
        self.seen: list[tuple[str, str, float | None]] = []  # method, authorization, deadline
        self.streams: list[list[str]] = []  # record ids of each upload stream

    def _enter(self, method: str, context: grpc.ServicerContext) -> bool:
        """Count the call; True when it should fail UNAVAILABLE."""
        self.calls[method] = self.calls.get(method, 0) + 1
        metadata = dict(context.invocation_metadata())
        self.seen.append((method, str(metadata.get("authorization", "")), context.time_remaining()))
        return self.calls[method] <= self.failures

    def ListGames(
        self, request: service_pb2.ListGamesRequest, context: grpc.ServicerContext
    ) -> service_pb2.ListGamesResponse:
        if self._enter("ListGames", context):
            context.abort(grpc.StatusCode.UNAVAILABLE, "starting up")
        return service_pb2.ListGamesResponse(total_size=7)

    def GetGame(
        self, request: service_pb2.GetGameRequest, context: grpc.ServicerContext
    ) -> service_pb2.Game:
        self._enter("GetGame", context)
        detail = error_details_pb2.BadRequest()
        detail.field_violations.add(field="name", description="is empty")
        status = status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message="bad name")
        status.details.add().Pack(detail)
        context.abort_with_status(rpc_status.to_status(status))
        raise AssertionError("abort returned")

    def UploadRecords(
        self,
        request_iterator: Iterator[service_pb2.UploadRecordsRequest],
        context: grpc.ServicerContext,
    ) -> Iterator[service_pb2.RecordSummary]:
        failing = self._enter("UploadRecords", context)
        ids: list[str] = []
        self.streams.append(ids)
        for index, request in enumerate(request_iterator):
            ids.append(request.game.record_id)
            if failing and index == 3:  # three records answered, then the connection drops
                context.abort(grpc.StatusCode.UNAVAILABLE, "connection reset")
            yield service_pb2.RecordSummary(
                index=index, record_id=request.game.record_id, status=STORED
            )


@pytest.fixture
def stand_in(request: pytest.FixtureRequest) -> Iterator[tuple[StandIn, str]]:
    servicer = StandIn(failures=getattr(request, "param", 2))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    service_pb2_grpc.add_AuditServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        server.stop(None)


def client_for(target: str, slept: list[float], **options: Any) -> AuditClient:
    return AuditClient(target, api_key="cdp_k_secret", sleep=slept.append, **options)


def test_unavailable_is_retried_with_backoff(stand_in: tuple[StandIn, str]) -> None:
    servicer, target = stand_in
    slept: list[float] = []
    retry = Retry(attempts=5, initial=0.5, maximum=0.75)
    with client_for(target, slept, retry=retry, timeout=20) as client:
        assert client.list_games().total_size == 7
    assert servicer.calls["ListGames"] == 3
    assert len(slept) == 2 and 0 <= slept[0] <= 0.5 and 0 <= slept[1] <= 0.75
    # Every attempt carried the key and a deadline of at most the client's timeout.
    assert [auth for _, auth, _ in servicer.seen] == ["Bearer cdp_k_secret"] * 3
    assert all(left is not None and 0 < left <= 21 for _, _, left in servicer.seen)


@pytest.mark.parametrize("stand_in", [10], indirect=True)
def test_retries_end_with_the_last_failure(stand_in: tuple[StandIn, str]) -> None:
    servicer, target = stand_in
    slept: list[float] = []
    with (
        client_for(target, slept, retry=Retry(attempts=4)) as client,
        pytest.raises(ServiceError) as caught,
    ):
        client.list_games()
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert caught.value.details() == "starting up"
    assert servicer.calls["ListGames"] == 4 and len(slept) == 3


def test_other_failures_are_not_retried_and_are_typed(stand_in: tuple[StandIn, str]) -> None:
    servicer, target = stand_in
    slept: list[float] = []
    with client_for(target, slept) as client, pytest.raises(ServiceError) as caught:
        client.get_game("classic-1")
    assert servicer.calls["GetGame"] == 1 and slept == []
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.violations == [("name", "is empty")]
    assert isinstance(caught.value, grpc.RpcError)


@pytest.mark.parametrize("stand_in", [1], indirect=True)
def test_an_upload_resumes_after_its_last_summary(stand_in: tuple[StandIn, str]) -> None:
    servicer, target = stand_in
    hands = [records_pb2.GameRecord(record_id=f"h{i}") for i in range(8)]
    slept: list[float] = []
    with client_for(target, slept, upload_timeout=50) as client:
        summaries = client.upload(hands)
    assert [s.index for s in summaries] == list(range(8))
    assert [s.record_id for s in summaries] == [h.record_id for h in hands]
    # The second stream starts at the first record the first one did not answer.
    assert servicer.streams[1] == [h.record_id for h in hands[3:]]
    assert len(slept) == 1
    assert all(left is not None and 0 < left <= 51 for _, _, left in servicer.seen)


def test_uploads_are_split_into_streams(stand_in: tuple[StandIn, str]) -> None:
    servicer, target = stand_in
    servicer.failures = 0
    hands = [records_pb2.GameRecord(record_id=f"h{i}") for i in range(7)]
    with client_for(target, []) as client:
        summaries = client.upload(hands, chunk=3)
    assert [s.index for s in summaries] == list(range(7))
    assert [len(ids) for ids in servicer.streams] == [3, 3, 1]
