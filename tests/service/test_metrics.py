"""Metrics and logs: the counters of ``/metrics`` move with the calls, and the JSON log lines
carry the call's request id and tenant."""

from __future__ import annotations

import asyncio
import inspect
import io
import json
import logging
import random
import secrets
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient, ServiceError
from chaodipi.service.logs import JsonFormatter
from chaodipi.service.metrics import Metrics, calls_log, measured
from chaodipi.service.server import ServerConfig
from chaodipi.v1 import service_pb2
from tests.service.service_support import Service, running_service

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def metered(own_database_url: str) -> Iterator[Service]:
    """A server requiring keys, with its metrics served on a free port."""
    config = ServerConfig(
        port=0, database_url=own_database_url, require_keys=True, audit_workers=0, metrics_port=0
    )
    with running_service(config) as service:
        yield service


def _scrape(service: Service) -> Samples:
    port = service.server.running.metrics_port
    assert port is not None
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
        assert answer.status == 200
        text = answer.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


def test_counters_move_with_the_calls(metered: Service) -> None:
    before = _scrape(metered)
    hands = [generate_hand("classic", 40 + i) for i in range(5)]
    hands[0] = plant_any(hands[0], random.Random(1))[0]
    for i, hand in enumerate(hands):
        hand.record_id = f"metrics-{i}"
    with AuditClient(metered.target, api_key=metered.new_key(), timeout=60) as client:
        summaries = client.upload([*hands, hands[1], service_pb2.UploadRecordsRequest()])
        assert [s.status for s in summaries[-2:]] == [
            service_pb2.RecordSummary.STATUS_DUPLICATE,
            service_pb2.RecordSummary.STATUS_REJECTED,
        ]
        client.batch_upload(hands[:2])  # two more duplicates
        with pytest.raises(ServiceError) as missing:
            client.get_game("no-such-game")
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    stranger = AuditClient(metered.target, api_key="cdp_nobody_secret", timeout=60)
    with stranger, pytest.raises(ServiceError):
        stranger.list_games()
    metered.settle()
    after = _scrape(metered)

    def calls(method: str, code: str) -> float:
        return _moved(before, after, "chaodipi_calls_total", method=method, code=code)

    assert calls("UploadRecords", "OK") == 1
    assert calls("BatchUploadRecords", "OK") == 1
    assert calls("GetGame", "NOT_FOUND") == 1
    assert calls("ListGames", "UNAUTHENTICATED") == 1
    assert _moved(before, after, "chaodipi_call_seconds_count", method="UploadRecords") == 1
    assert _moved(before, after, "chaodipi_call_seconds_sum", method="UploadRecords") > 0

    def records(outcome: str) -> float:
        return _moved(before, after, "chaodipi_records_total", outcome=outcome)

    assert (records("stored"), records("duplicate"), records("rejected")) == (5, 3, 1)
    assert records("conflict") == 0
    assert _moved(before, after, "chaodipi_records_audited_total") == 8  # not the empty one
    assert _moved(before, after, "chaodipi_audit_cpu_seconds_total") > 0
    assert after[("chaodipi_audit_queue_records", ())] == 0
    assert after[("chaodipi_calls_in_flight", ())] == 0


def test_json_log_lines_carry_request_id_and_tenant(metered: Service) -> None:
    lines = io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.setFormatter(JsonFormatter())
    level = calls_log.level
    calls_log.addHandler(handler)
    calls_log.setLevel(logging.INFO)
    request_id = f"req-{secrets.token_hex(4)}"
    try:
        with AuditClient(metered.target, api_key=metered.new_key(), timeout=60) as client:
            _, call = client.stub.ListGames.with_call(
                service_pb2.ListGamesRequest(),
                metadata=[*client.metadata, ("x-request-id", request_id)],
                timeout=60,
            )
            assert ("x-request-id", request_id) in call.trailing_metadata()
            _, other = client.stub.ListGames.with_call(
                service_pb2.ListGamesRequest(), metadata=client.metadata, timeout=60
            )
        metered.settle()
    finally:
        calls_log.removeHandler(handler)
        calls_log.setLevel(level)
    entries = [json.loads(line) for line in lines.getvalue().splitlines()]
    ours = [e for e in entries if e.get("request_id") == request_id]
    assert len(ours) == 1
    entry = ours[0]
    assert (entry["logger"], entry["method"], entry["code"]) == (
        "chaodipi.calls",
        "ListGames",
        "OK",
    )
    assert isinstance(entry["tenant"], int) and entry["ms"] >= 0
    generated = dict(other.trailing_metadata())["x-request-id"]
    assert generated != request_id
    assert [e["tenant"] for e in entries if e.get("request_id") == generated] == [entry["tenant"]]


@dataclass
class _Details:
    method: str = "/chaodipi.v1.AuditService/UploadRecords"
    invocation_metadata: tuple[tuple[str, str], ...] = ()


@dataclass
class _GoneAfterOneWrite:
    """A call's context whose client cancels while the second response is written."""

    written: list[Any] = field(default_factory=list)

    def set_trailing_metadata(self, metadata: object) -> None:
        pass

    async def write(self, message: Any) -> None:
        if self.written:
            raise asyncio.CancelledError
        self.written.append(message)


def test_a_stream_cancelled_at_a_write_closes_the_servicers_stream_and_counts_the_call() -> None:
    # grpc leaves a generator handler it stopped at a cancelled write unclosed, so the
    # servicer's ``finally`` (its call's budget) and the count waited for the garbage
    # collector: the handler grpc gets is a coroutine that writes, and closes the stream.
    closed: list[bool] = []

    async def servicer(requests: object, context: object) -> AsyncIterator[int]:
        try:
            for summary in range(3):
                yield summary
        finally:
            closed.append(True)

    metrics = Metrics()
    handler = measured(
        grpc.stream_stream_rpc_method_handler(servicer),  # type: ignore[arg-type]
        _Details(),  # type: ignore[arg-type]
        metrics,
    )
    assert handler.stream_stream is not None
    assert inspect.iscoroutinefunction(handler.stream_stream)
    context = _GoneAfterOneWrite()
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(handler.stream_stream(iter(()), context))  # type: ignore[arg-type]
    assert context.written == [0]
    assert closed == [True]
    labels = {"method": "UploadRecords", "code": "CANCELLED"}
    assert metrics.registry.get_sample_value("chaodipi_calls_total", labels) == 1.0
    assert metrics.registry.get_sample_value("chaodipi_calls_in_flight") == 0.0
