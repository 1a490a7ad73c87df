"""Uploads and refereed hands stored by store worker processes (a server with audit workers on a
database other processes can open) are stored as the store threads store them; a worker process
that dies is started anew."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import grpc
import pytest
from sqlalchemy.exc import OperationalError

from chaodipi.auditor import audit_game
from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient, Retry
from chaodipi.service.server import ServerConfig
from chaodipi.service.uploads import start_store_worker, store_serialized
from chaodipi.service.workers import WorkerPool
from chaodipi.v1 import service_pb2
from tests.service.service_support import Service, running_service
from tests.service.test_hostile import NOT_PROTOBUF
from tests.service.test_referee_service import _referee

STORED = service_pb2.RecordSummary.STATUS_STORED
REJECTED = service_pb2.RecordSummary.STATUS_REJECTED


def _config(url: str, audit_workers: int) -> ServerConfig:
    return ServerConfig(
        port=0, database_url=url, require_keys=True, audit_workers=audit_workers, batch_size=3
    )


def _uploads() -> list[service_pb2.UploadRecordsRequest]:
    hands = [
        generate_hand(ruleset, 40 + i) for i, ruleset in enumerate(["classic", "changshu"] * 3)
    ]
    return [
        *(
            service_pb2.UploadRecordsRequest(game=hand, client_ref=f"hand {i}")
            for i, hand in enumerate(hands)
        ),
        service_pb2.UploadRecordsRequest(game=hands[0], client_ref="the first again"),
        service_pb2.UploadRecordsRequest(game=hands[1], client_ref="\x00 not text"),
        service_pb2.UploadRecordsRequest(client_ref="no record"),
    ]


def _stored(service: Service) -> tuple[list[service_pb2.RecordSummary], service_pb2.RecordSummary]:
    key = service.new_key()
    with AuditClient(service.server.target, api_key=key, timeout=120) as client:
        summaries = client.upload(_uploads())
    refereed = _referee(service, key, generate_hand("shuangsheng", 7))[-1].stored
    return summaries, refereed


def test_store_workers_store_uploads_and_refereed_hands_as_store_threads_do(
    own_database_url: str,
) -> None:
    # Both servers on one database, each caller a tenant of its own: the same records store
    # anew for each, so their summaries can be compared whole.
    with running_service(_config(own_database_url, audit_workers=1)) as service:
        assert isinstance(service.server.running.state.upload_store_executor, WorkerPool)
        in_processes, refereed_there = _stored(service)
    with running_service(_config(own_database_url, audit_workers=0)) as service:
        assert isinstance(service.server.running.state.upload_store_executor, ThreadPoolExecutor)
        in_threads, refereed_here = _stored(service)
    assert [s.status for s in in_processes[:6]] == [STORED] * 6
    for summaries in (in_processes, in_threads):
        assert summaries[6].game == summaries[0].game  # the duplicate names the first
        for summary in summaries:
            summary.ClearField("game")  # a game's name is drawn at random when it is stored
    assert in_processes == in_threads
    assert refereed_there.status == refereed_here.status == STORED


def _raw_uploads(service: Service) -> tuple[list[service_pb2.RecordSummary], str]:
    """The summaries of a stream whose second message does not parse and of a batch of one
    record, and the error of a batch that does not parse, called with the bytes as sent."""
    metadata = (("authorization", f"Bearer {service.new_key()}"),)
    good = [
        service_pb2.UploadRecordsRequest(game=generate_hand("classic", 80 + i)).SerializeToString()
        for i in range(2)
    ]
    batch = service_pb2.BatchUploadRecordsRequest(
        requests=[service_pb2.UploadRecordsRequest(game=generate_hand("anhui", 90))]
    )
    with grpc.insecure_channel(service.server.target) as channel:
        upload = channel.stream_stream(
            "/chaodipi.v1.AuditService/UploadRecords",
            response_deserializer=service_pb2.RecordSummary.FromString,
        )
        batch_upload = channel.unary_unary("/chaodipi.v1.AuditService/BatchUploadRecords")
        summaries = list(upload(iter([good[0], NOT_PROTOBUF, good[1]]), metadata=metadata))
        answer = batch_upload(batch.SerializeToString(), metadata=metadata)
        summaries += service_pb2.BatchUploadRecordsResponse.FromString(answer).summaries
        with pytest.raises(grpc.RpcError) as caught:
            batch_upload(NOT_PROTOBUF, metadata=metadata)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    return summaries, str(caught.value.details())  # type: ignore[attr-defined]


def test_audit_workers_read_uploaded_messages_as_threads_do(own_database_url: str) -> None:
    # The uploads' messages are read where they are audited: a message that does not parse is
    # the same rejected record (or the same bad batch) there as in a thread.
    with running_service(_config(own_database_url, audit_workers=1)) as service:
        in_processes, bad_batch_there = _raw_uploads(service)
    with running_service(_config(own_database_url, audit_workers=0)) as service:
        in_threads, bad_batch_here = _raw_uploads(service)
    assert [s.status for s in in_processes] == [STORED, REJECTED, STORED, STORED]
    assert "not a readable chaodipi.v1.UploadRecordsRequest" in in_processes[1].error
    for summary in [*in_processes, *in_threads]:
        summary.ClearField("game")
    assert in_processes == in_threads
    assert bad_batch_there == bad_batch_here


def test_a_worker_that_dies_is_started_anew_and_later_calls_are_served(tmp_path: Path) -> None:
    config = _config(f"sqlite:///{tmp_path / 'service.db'}", audit_workers=1)
    with running_service(config) as service:
        state = service.server.running.state
        key = service.new_key()
        # One attempt each: the upload after the deaths must not need the client's retries.
        with AuditClient(service.server.target, api_key=key, retry=Retry(attempts=1)) as client:
            (first,) = client.upload([generate_hand("classic", 60)])
            for pool in (state.audit_executor, state.upload_store_executor):
                with pytest.raises(BrokenProcessPool):
                    pool.submit(os._exit, 1).result()
            (second,) = client.upload([generate_hand("classic", 61)])
            assert (first.status, second.status) == (STORED, STORED)
            assert {g.name for g in client.list_games().games} == {first.game, second.game}


def test_a_store_worker_that_cannot_reach_the_database_says_so_as_a_thread_would() -> None:
    # The exception comes back through the pool as itself, so the call answers UNAVAILABLE
    # (service.errors), not INTERNAL.
    unreachable = "postgresql+psycopg://postgres@127.0.0.1:9/nowhere"
    pool = WorkerPool(
        "store",
        lambda: ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=start_store_worker,
            initargs=(unreachable,),
        ),
    )
    try:
        hand = generate_hand("classic", 70)
        request = service_pb2.UploadRecordsRequest(game=hand)
        report = audit_game(hand).SerializeToString()
        stored = pool.submit(store_serialized, 1, 0, [request.SerializeToString()], [report])
        with pytest.raises(OperationalError):
            stored.result()
    finally:
        pool.shutdown()
