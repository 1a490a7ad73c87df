"""The referee's client against a stand-in RefereeService: the API key and the stream's deadline
on the call, each event's own wait for its verdict, a refused open, a failed stream's status."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest

from chaodipi.client import AuditClient, ServiceError
from chaodipi.client.referee import RefereeTable
from chaodipi.v1 import referee_pb2, referee_pb2_grpc

LEGAL = referee_pb2.VERDICT_RESULT_LEGAL


class StandIn(referee_pb2_grpc.RefereeServiceServicer):
    """Answers ``open`` as legal (or refused for ruleset "refuse"); a deal with nothing, until
    the test releases it; a play by failing the stream PERMISSION_DENIED."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, float | None]] = []  # authorization, deadline
        self.release = threading.Event()

    def Referee(
        self, request_iterator: Iterator[referee_pb2.RefereeRequest], context: grpc.ServicerContext
    ) -> Iterator[referee_pb2.RefereeResponse]:
        metadata = dict(context.invocation_metadata())
        self.seen.append((str(metadata.get("authorization", "")), context.time_remaining()))
        for index, request in enumerate(request_iterator):
            if request.HasField("deal"):
                self.release.wait()
                return
            if request.HasField("play"):
                context.abort(grpc.StatusCode.PERMISSION_DENIED, "not at this table")
            result = LEGAL
            if request.open.ruleset == "refuse":
                result = referee_pb2.VERDICT_RESULT_INVALID
            verdict = referee_pb2.Verdict(result=result, reason="ruleset: unknown")
            yield referee_pb2.RefereeResponse(index=index, verdict=verdict)


@pytest.fixture
def stand_in() -> Iterator[tuple[StandIn, str]]:
    servicer = StandIn()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    referee_pb2_grpc.add_RefereeServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        servicer.release.set()
        server.stop(None)


def test_the_table_sends_the_key_and_the_streams_deadline(stand_in: tuple[StandIn, str]) -> None:
    servicer, target = stand_in
    with (
        AuditClient(target, api_key="cdp_k_secret") as client,
        RefereeTable(client, record_id="t", timeout=600) as table,
    ):
        assert table.opened.verdict.result == LEGAL
    ((authorization, deadline),) = servicer.seen
    assert authorization == "Bearer cdp_k_secret"
    # gRPC sends a timeout rounded up to its wire unit, so the server may see up to a second more.
    assert deadline is not None and 0 < deadline <= 601


def test_an_event_without_a_verdict_in_time_raises_and_closes(
    stand_in: tuple[StandIn, str],
) -> None:
    _, target = stand_in
    with AuditClient(target) as client:
        table = RefereeTable(client, record_id="t")
        # The stand-in never answers the deal: the wait ends at event_timeout, whatever the speed.
        table.event_timeout = 0.2
        with pytest.raises(TimeoutError, match=r"no verdict within 0\.2 s"):
            table.deal(draw_order="SA")


def test_a_refused_open_and_a_failed_stream(stand_in: tuple[StandIn, str]) -> None:
    _, target = stand_in
    with AuditClient(target) as client:
        with pytest.raises(ValueError, match="ruleset: unknown"):
            RefereeTable(client, record_id="t", ruleset="refuse")
        with RefereeTable(client, record_id="t") as table:
            with pytest.raises(ServiceError) as caught:
                table.play(0, "SA")
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert caught.value.details() == "not at this table"
            with pytest.raises(ServiceError):  # the stream stays failed
                table.play(0, "SA")
