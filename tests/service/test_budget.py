"""A budget per call (issue 13): once a client gives up (cancels, or its deadline passes) the
server audits no further record of the call, and the call's work is over when the server says
it is idle. Deterministic: the audit of one record waits until the server has marked the call
cancelled, and the records audited are counted, not timed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from multiprocessing import get_context

import grpc
import pytest

from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient, ServiceError
from chaodipi.service import ingest
from chaodipi.service.budget import Budget
from chaodipi.service.server import ServerConfig
from chaodipi.v1 import records_pb2, service_pb2
from tests.service.service_support import ServerThread

RECORDS = 40
BLOCKED = 3  # the audit of the third record waits for the server to cancel the call


@pytest.fixture
def one_batch_server(database_url: str) -> Iterator[ServerThread]:
    """A keyless server (other tests' keys in the database notwithstanding) auditing in
    threads, a 40-record stream as one batch."""
    config = ServerConfig(
        port=0,
        database_url=database_url,
        require_keys=False,
        audit_workers=0,
        batch_size=RECORDS,
        grace_seconds=1,
    )
    server = ServerThread(config)
    try:
        yield server
    finally:
        server.stop()


def hands(tag: str) -> list[service_pb2.UploadRecordsRequest]:
    base = generate_hand("classic", 7)
    out = []
    for i in range(RECORDS):
        hand = records_pb2.GameRecord()
        hand.CopyFrom(base)
        hand.record_id = f"{tag}-{i}"
        out.append(service_pb2.UploadRecordsRequest(game=hand))
    return out


class Gate:
    """Counts the records of this test audited (by their ``tag``: other servers of the process
    may audit too); the audit of record ``BLOCKED`` waits until the call's budget is cancelled
    (the server saw the client give up), then carries on."""

    def __init__(self, server: ServerThread, monkeypatch: pytest.MonkeyPatch, tag: str) -> None:
        self.server = server
        self.audited = 0
        self.started = threading.Event()
        self.cancelled_first = False
        audit = ingest.audit_for_upload

        def counted(request: service_pb2.UploadRecordsRequest) -> ingest.Report | None:
            if not request.game.record_id.startswith(f"{tag}-"):
                return audit(request)
            self.audited += 1
            if self.audited == BLOCKED:
                self.started.set()
                (budget,) = self.server.running.state.calls.active
                self.cancelled_first = budget.wait_cancelled(120)
            return audit(request)

        monkeypatch.setattr(ingest, "audit_for_upload", counted)


def held(
    requests: list[service_pb2.UploadRecordsRequest], release: threading.Event
) -> Iterator[service_pb2.UploadRecordsRequest]:
    yield from requests
    release.wait(120)  # the stream stays open: only the client's giving up ends the call


def test_a_cancelled_upload_stops_auditing(
    one_batch_server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(one_batch_server, monkeypatch, "cancelled")
    release = threading.Event()
    with AuditClient(one_batch_server.target) as client:
        call = client.stub.UploadRecords(held(hands("cancelled"), release), timeout=120)
        assert gate.started.wait(120)  # record 3 is being audited
        call.cancel()
        release.set()
        one_batch_server.settle()  # every audit and store of the call is over
    assert gate.cancelled_first, "the server never marked the call cancelled"
    # Records 4..40 were never audited: the loop looked at the budget before each.
    assert gate.audited == BLOCKED
    with AuditClient(one_batch_server.target) as client:
        assert client.list_games().total_size == 0  # nothing stored after the budget ran out


def test_an_upload_past_its_deadline_stops_auditing(
    one_batch_server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(one_batch_server, monkeypatch, "deadline")
    release = threading.Event()
    # The deadline passes while record 3 is audited: the stream is held open and the audit
    # waits for the server to cancel the call, so nothing can finish before it.
    with AuditClient(one_batch_server.target, upload_timeout=2) as client:
        with pytest.raises(ServiceError) as caught:
            list(client.upload_stream(held(hands("deadline"), release)))
        release.set()
        one_batch_server.settle()
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert gate.cancelled_first and gate.audited == BLOCKED


def test_an_audit_worker_stops_at_its_calls_flag_or_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What the worker processes run, in this process: the flags a server shares with them,
    # kept as ``start_worker`` keeps them (which would also lower this process's priority for
    # every later test it runs).
    data = [r.SerializeToString() for r in hands("worker")[:3]]
    flags = get_context("spawn").RawArray("b", 4)
    monkeypatch.setattr(ingest, "_flags", flags)
    assert len(ingest.audit_serialized(data, slot=1)) == 3
    flags[1] = 1  # the call of slot 1 was cancelled
    assert ingest.audit_serialized(data, slot=1) == []
    assert len(ingest.audit_serialized(data, slot=2)) == 3  # another call goes on
    assert ingest.audit_serialized(data, slot=2, deadline=0.0) == []  # long past


def test_a_budget_is_spent_by_its_cancel_or_its_deadline() -> None:
    budget = Budget(deadline=None, board=None)
    assert not budget.spent() and not budget.wait_cancelled(0)
    budget.cancel()
    assert budget.spent() and budget.wait_cancelled(0)
    assert Budget(deadline=0.0, board=None).spent()
