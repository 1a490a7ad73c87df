"""The server's metrics, in Prometheus's text format on ``http://HOST:PORT/metrics``, the
call's request id and the per-call log (``service.logs`` writes it as JSON lines).

Each server has a registry of its own (several servers in one process, as in the tests, keep
their counts apart). What is counted:

- ``chaodipi_calls_total{method, code}``: calls of the API answered, by method and status code
  (a call turned away for its key counts too);
- ``chaodipi_call_seconds{method}``: a histogram of the calls' durations;
- ``chaodipi_calls_in_flight``: calls being answered now;
- ``chaodipi_records_total{outcome}``: uploaded records by what became of them (``stored``,
  ``duplicate``, ``conflict``, ``rejected``);
- ``chaodipi_records_audited_total`` and ``chaodipi_audit_cpu_seconds_total``: records audited
  for uploads and the CPU time their audits took (in the worker processes or threads);
- ``chaodipi_audit_queue_records``: uploaded records handed to the auditors and not yet done
  (queued behind the workers or being audited).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import secrets
import threading
import time
from collections import Counter as Tally
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar
from wsgiref.simple_server import WSGIServer

import grpc
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.exposition import generate_latest

from chaodipi.v1 import service_pb2

P = ParamSpec("P")
T = TypeVar("T")
Req = TypeVar("Req")
Resp = TypeVar("Resp")

REQUEST_ID: ContextVar[str] = ContextVar("request_id", default="")
"""The id of the call being answered: the caller's ``x-request-id`` header, or a new one."""
REQUEST_ID_HEADER = "x-request-id"
MAX_REQUEST_ID = 64
"""A longer ``x-request-id`` header is replaced by a new id (it is logged on every line)."""

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
_OUTCOMES = {
    service_pb2.RecordSummary.STATUS_STORED: "stored",
    service_pb2.RecordSummary.STATUS_DUPLICATE: "duplicate",
    service_pb2.RecordSummary.STATUS_CONFLICT: "conflict",
    service_pb2.RecordSummary.STATUS_REJECTED: "rejected",
}

calls_log = logging.getLogger("chaodipi.calls")
"""One line per call answered (method, status, duration): on in JSON logs, off in text logs."""


class Metrics:
    """The counters of one server, and its ``/metrics`` endpoint once ``serve`` started it."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.calls = Counter(
            "chaodipi_calls", "Calls answered, by method and status code.", ["method", "code"],
            registry=r,
        )  # fmt: skip
        self.latency = Histogram(
            "chaodipi_call_seconds", "Time to answer a call, by method.", ["method"],
            buckets=_LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.in_flight = Gauge("chaodipi_calls_in_flight", "Calls being answered.", registry=r)
        self.records = Counter(
            "chaodipi_records", "Uploaded records by outcome.", ["outcome"], registry=r
        )
        for outcome in _OUTCOMES.values():
            self.records.labels(outcome)  # every outcome shows, at 0 before the first
        self.audited = Counter("chaodipi_records_audited", "Uploaded records audited.", registry=r)
        self.audit_cpu = Counter(
            "chaodipi_audit_cpu_seconds", "CPU time spent auditing uploads.", registry=r
        )
        self.audit_queue = Gauge(
            "chaodipi_audit_queue_records",
            "Uploaded records handed to the auditors and not yet audited.",
            registry=r,
        )
        self._http: WSGIServer | None = None
        self._thread: threading.Thread | None = None
        self._answering = 0
        self._quiet = asyncio.Event()  # no call being answered (used on the server's loop only)
        self._quiet.set()

    def call_started(self) -> None:
        """A call is being answered (``chaodipi_calls_in_flight``)."""
        self.in_flight.inc()
        self._answering += 1
        self._quiet.clear()

    def call_ended(self) -> None:
        """A call was answered and counted."""
        self.in_flight.dec()
        self._answering -= 1
        if not self._answering:
            self._quiet.set()

    async def quiet(self) -> None:
        """Return once every call started has been counted: a caller turned away has its
        status before the server counts it."""
        await self._quiet.wait()

    def count_summaries(self, summaries: Iterable[service_pb2.RecordSummary]) -> None:
        """Count uploaded records by outcome (each outcome's counter once: on the event loop,
        for every batch of an upload)."""
        for status, count in Tally(summary.status for summary in summaries).items():
            self.records.labels(_OUTCOMES.get(status, "rejected")).inc(count)

    def text(self) -> bytes:
        """The metrics in Prometheus's text format."""
        return generate_latest(self.registry)

    def serve(self, host: str, port: int) -> int:
        """Serve ``/metrics`` over HTTP on ``host:port`` (0: any free port); the port bound."""
        self._http, self._thread = start_http_server(port, host.strip("[]"), self.registry)
        return int(self._http.server_port)

    def stop(self) -> None:
        """Stop the HTTP endpoint, if serving."""
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None


def cpu_timed(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> tuple[T, float]:
    """``fn(*args, **kwargs)`` and the CPU seconds its thread spent on it (in an executor's
    thread or worker process, where the audit runs)."""
    start = time.thread_time()
    result = fn(*args, **kwargs)
    return result, time.thread_time() - start


def _request_id(details: grpc.HandlerCallDetails) -> str:
    for key, value in details.invocation_metadata or ():
        if key == REQUEST_ID_HEADER:
            text = value.decode(errors="replace") if isinstance(value, bytes) else value
            if 0 < len(text) <= MAX_REQUEST_ID and text.isprintable():
                return text
    return secrets.token_hex(8)


def measured(
    handler: grpc.RpcMethodHandler[Req, Resp],
    details: grpc.HandlerCallDetails,
    metrics: Metrics,
) -> grpc.RpcMethodHandler[Req, Resp]:
    """The same handler, counted and timed in ``metrics`` and logged in ``calls_log``, with the
    call's request id in ``REQUEST_ID`` (and sent back in the ``x-request-id`` header)."""
    method = details.method.rpartition("/")[2]
    request_id = _request_id(details)

    def begin(context: grpc.aio.ServicerContext[Any, Any]) -> float:
        REQUEST_ID.set(request_id)
        context.set_trailing_metadata(((REQUEST_ID_HEADER, request_id),))
        metrics.call_started()
        return time.perf_counter()

    def end(context: grpc.aio.ServicerContext[Any, Any], start: float, failure: Any) -> None:
        elapsed = time.perf_counter() - start
        if failure is None or isinstance(failure, grpc.aio.AbortError):
            status: grpc.StatusCode | None = context.code()  # None: no status set, so OK
            code = status or grpc.StatusCode.OK
        elif isinstance(failure, BaseException) and not isinstance(failure, Exception):
            code = grpc.StatusCode.CANCELLED  # the client went away (asyncio.CancelledError)
        else:
            code = grpc.StatusCode.UNKNOWN
        name = code.name
        metrics.calls.labels(method, name).inc()
        metrics.latency.labels(method).observe(elapsed)
        metrics.call_ended()
        calls_log.info(
            "%s %s %.1f ms", method, name, elapsed * 1000,
            extra={"method": method, "code": name, "ms": round(elapsed * 1000, 3)},
        )  # fmt: skip

    def unary_out(behavior: Callable[[Any, Any], Any]) -> Any:
        async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            start = begin(context)
            failure: BaseException | None = None
            try:
                return await behavior(request, context)
            except BaseException as exc:
                failure = exc
                raise
            finally:
                end(context, start, failure)

        return call

    def stream_out(behavior: Callable[[Any, Any], Any]) -> Any:
        # A coroutine that writes each response, not a generator that yields it: grpc leaves a
        # generator it stopped at a write the client cancelled unclosed, so its ``finally``
        # (this count, and the servicer's own: the call's budget and work) would wait for the
        # garbage collector. Here the cancellation is raised in this coroutine, and the
        # servicer's generator is closed on the way out.
        async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
            start = begin(context)
            failure: BaseException | None = None
            try:
                responses = behavior(request, context)
                if inspect.isawaitable(responses):  # a call turned away: it only aborts
                    await responses
                else:
                    async with contextlib.aclosing(responses) as stream:
                        async for response in stream:
                            await context.write(response)
            except BaseException as exc:
                failure = exc
                raise
            finally:
                end(context, start, failure)

        return call

    inp, out = handler.request_deserializer, handler.response_serializer
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary_out(handler.unary_unary), inp, out)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(unary_out(handler.stream_unary), inp, out)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(stream_out(handler.unary_stream), inp, out)
    assert handler.stream_stream is not None
    return grpc.stream_stream_rpc_method_handler(stream_out(handler.stream_stream), inp, out)
