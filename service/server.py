"""The gRPC server: the servicers of ``SERVICES`` on ``grpc.aio``, with health checking, server
reflection, API-key auth per tenant, TLS, message size limits and graceful shutdown.

Every call of a service in ``SERVICES`` passes through the API-key check (``AuthInterceptor``)
and then ``_bound``, which sets the caller's tenant, reads the request bytes itself (a message
that is not protobuf is INVALID_ARGUMENT, or one rejected record in a stream, where gRPC's own
reading would answer UNKNOWN; the uploads' servicer reads its records itself, off the event
loop, and answers the same) and turns whatever the servicer raises into a status
(``service.errors``): no call answers UNKNOWN. Serving one more service is one more
``Registration`` in ``SERVICES``.

Limits (``ServerConfig``): a request message over ``max_message_bytes`` (one record), a stream
over ``max_records_per_upload`` records or ``max_upload_bytes`` bytes is RESOURCE_EXHAUSTED.
Batches of a stream that were stored before the call failed stay stored, each record whole;
re-sending the stream stores the rest and reports those as duplicates.

Transport: with ``tls_cert`` and ``tls_key`` the server speaks TLS only (with ``tls_client_ca``
it asks clients for a certificate signed by that CA). Keys must not cross a network in the
clear: with keys required and no TLS it listens on 127.0.0.1 unless ``insecure`` says
otherwise, and refuses to start on another address it was given.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from chaodipi.service.audit_service import AuditServicer
from chaodipi.service.budget import Board, Calls
from chaodipi.service.context import STREAM, TENANT, ServerConfig, State, StreamRead
from chaodipi.service.db import in_memory, make_engine, session_factory
from chaodipi.service.errors import LimitExceeded, Unreadable, abort_for, not_readable
from chaodipi.service.home import DEFAULT_TENANT
from chaodipi.service.ingest import audit_serialized, start_worker
from chaodipi.service.keys import has_active_keys, tenant_for_key
from chaodipi.service.metrics import Metrics, measured
from chaodipi.service.migrate import upgrade
from chaodipi.service.referee import RefereeServicer
from chaodipi.service.scheduling import use_short_slices
from chaodipi.service.store import ensure_tenant
from chaodipi.service.uploads import STORE_NICENESS, start_store_worker
from chaodipi.service.workers import WorkerPool
from chaodipi.v1 import referee_pb2, referee_pb2_grpc, service_pb2, service_pb2_grpc

__all__ = [
    "SERVICES",
    "ConfigError",
    "PortInUse",
    "Registration",
    "RunningServer",
    "ServerConfig",
    "serve",
    "start",
    "tune_for_latency",
]

log = logging.getLogger("chaodipi.service")

Req = TypeVar("Req")
Resp = TypeVar("Resp")
_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass(frozen=True, slots=True)
class Registration:
    """A service the server serves behind the API-key check: its descriptor, the generated
    ``add_…Servicer_to_server`` function and how to make its servicer from the shared state."""

    service: ServiceDescriptor
    add: Callable[[Any, grpc.aio.Server], None]
    make: Callable[[State], object]
    # Methods whose servicer takes the request bytes as received and reads them itself.
    raw: frozenset[str] = frozenset()


SERVICES: tuple[Registration, ...] = (
    Registration(
        service_pb2.DESCRIPTOR.services_by_name["AuditService"],
        service_pb2_grpc.add_AuditServiceServicer_to_server,
        AuditServicer,
        # The uploads' records are read in the audit workers, not on the event loop.
        frozenset({"UploadRecords", "BatchUploadRecords"}),
    ),
    Registration(
        referee_pb2.DESCRIPTOR.services_by_name["RefereeService"],
        referee_pb2_grpc.add_RefereeServiceServicer_to_server,
        RefereeServicer,
    ),
)
"""Every service of the API, each behind the API-key check."""

SERVICE_NAME = SERVICES[0].service.full_name
_REQUEST_TYPES = {
    f"/{entry.service.full_name}/{m.name}": m.input_type.full_name
    for entry in SERVICES
    for m in entry.service.methods
}
"""The request message type of each method behind the key check, by its gRPC path."""
_RAW = {f"/{entry.service.full_name}/{name}" for entry in SERVICES for name in entry.raw}
"""The methods whose servicer reads the request bytes itself (``Registration.raw``)."""


def _as_received(raw: bytes) -> bytes:
    return raw


def _bound(
    handler: grpc.RpcMethodHandler[Req, Resp], method: str, tenant: int, config: ServerConfig
) -> grpc.RpcMethodHandler[Req, Resp]:
    """The same handler, run with the caller's tenant in ``TENANT``, reading the request bytes
    itself (or handing them on as received, for a method of ``_RAW``), its exceptions turned
    into statuses (``service.errors.abort_for``)."""
    decode = _as_received if method in _RAW else handler.request_deserializer
    assert decode is not None  # generated handlers always name their request type

    async def one(raw: bytes) -> Any:
        try:
            return decode(raw)
        except DecodeError as exc:
            raise Unreadable(_REQUEST_TYPES[method], exc) from None

    def stream(raw_stream: AsyncIterator[bytes]) -> AsyncIterator[Any]:
        read = StreamRead()
        STREAM.set(read)  # in the call's context, before the servicer runs
        return messages(raw_stream, read)

    async def messages(raw_stream: AsyncIterator[bytes], read: StreamRead) -> AsyncIterator[Any]:
        total = 0
        index = 0
        async for raw in raw_stream:
            total += len(raw)
            if total > config.max_upload_bytes:
                raise LimitExceeded(
                    f"an upload holds at most {config.max_upload_bytes} bytes: split the "
                    f"stream (record {index} passes the limit)"
                )
            try:
                yield decode(raw)
            except DecodeError as exc:
                read.unreadable[index] = not_readable(_REQUEST_TYPES[method], exc)
                yield decode(b"")  # an empty request holds its place in the stream
            index += 1

    # The generated handlers are typed for the synchronous server; grpc.aio runs coroutines.
    def unary_out(behavior: Callable[[Any, Any], Any], streamed_in: bool) -> Any:
        async def call(raw: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            TENANT.set(tenant)  # in this call's own task context
            try:
                request = stream(raw) if streamed_in else await one(raw)
                return await behavior(request, context)
            except Exception as exc:
                await abort_for(context, exc, method)

        return call

    def stream_out(behavior: Callable[[Any, Any], Any], streamed_in: bool) -> Any:
        async def call(raw: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
            TENANT.set(tenant)
            try:
                request = stream(raw) if streamed_in else await one(raw)
                async for response in behavior(request, context):
                    yield response
            except Exception as exc:
                await abort_for(context, exc, method)

        return call

    out = handler.response_serializer
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary_out(handler.unary_unary, False), None, out)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(
            unary_out(handler.stream_unary, True), None, out
        )
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            stream_out(handler.unary_stream, False), None, out
        )
    assert handler.stream_stream is not None
    return grpc.stream_stream_rpc_method_handler(stream_out(handler.stream_stream, True), None, out)


def _ended(
    handler: grpc.RpcMethodHandler[Req, Resp],
    end: Callable[[grpc.aio.ServicerContext[Any, Any]], Awaitable[None]],
) -> grpc.RpcMethodHandler[Req, Resp]:
    """A handler of the same kind that ends the call with ``end(context)``. The request is not
    read: a caller turned away learns nothing from its bytes."""

    async def call(_request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        await end(context)

    out = handler.response_serializer
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(call, None, out)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(call, None, out)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(call, None, out)
    return grpc.stream_stream_rpc_method_handler(call, None, out)


def _denied(
    handler: grpc.RpcMethodHandler[Req, Resp], message: str
) -> grpc.RpcMethodHandler[Req, Resp]:
    return _ended(handler, lambda context: context.abort(grpc.StatusCode.UNAUTHENTICATED, message))


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Checks ``authorization: Bearer <key>`` on the calls of ``SERVICES`` and sets the tenant;
    counts and times those calls (``service.metrics``), those it turns away too.

    Health and reflection stay open. Without required keys, a call without a key acts for the
    default tenant (the server then listens on 127.0.0.1 only). The key is looked up on every
    call, so a key created or revoked on one replica holds on all of them at once.
    """

    def __init__(self, state: State) -> None:
        self.state = state

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Req, Resp] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Req, Resp] | None:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or method not in _REQUEST_TYPES:
            return handler
        checked = await self._checked(handler, handler_call_details)
        return measured(checked, handler_call_details, self.state.metrics)

    async def _checked(
        self,
        handler: grpc.RpcMethodHandler[Req, Resp],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Req, Resp]:
        """The handler bound to the key's tenant, or one that turns the caller away."""
        method = handler_call_details.method
        metadata = dict(handler_call_details.invocation_metadata or ())
        header = metadata.get("authorization", "")
        if isinstance(header, bytes):
            header = header.decode(errors="replace")
        if not header:
            if self.state.require_keys:
                return _denied(handler, "missing API key: send 'authorization: Bearer <key>'")
            return _bound(handler, method, self.state.default_tenant, self.state.config)
        scheme, _, key = header.partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            return _denied(handler, "malformed authorization: expected 'Bearer <key>'")
        try:
            tenant = await asyncio.to_thread(tenant_for_key, self.state.sessions, key.strip())
        except Exception as exc:  # the key store out of reach: answered as any call's fault
            return _ended(handler, functools.partial(abort_for, exc=exc, method=method))
        if tenant is None:
            return _denied(handler, "unknown or revoked API key")
        return _bound(handler, method, tenant, self.state.config)


@dataclass(slots=True)
class RunningServer:
    """A started server: its address, and how to wait for its calls or stop it gracefully."""

    server: grpc.aio.Server
    health: health.aio.HealthServicer
    state: State
    host: str
    port: int
    metrics_port: int | None = None  # where ``/metrics`` is served (None: not served)

    async def idle(self) -> None:
        """Return once no call is auditing or storing anything (e.g. after a cancelled upload:
        its last batch may still be being written when the client learns it was cancelled),
        and every call answered is counted in the metrics."""
        await self.state.calls.idle()
        await self.state.metrics.quiet()

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING, optional drain, then stop; in-flight calls get ``grace`` s."""
        config = self.state.config
        await self.health.enter_graceful_shutdown()
        if config.drain_seconds:
            await asyncio.sleep(config.drain_seconds)
        await self.server.stop(config.grace_seconds if grace is None else grace)
        self.state.calls.cancel_all()
        await self.state.calls.idle()
        self.state.audit_executor.shutdown(wait=False, cancel_futures=True)
        self.state.store_executor.shutdown(wait=False, cancel_futures=True)
        self.state.upload_store_executor.shutdown(wait=False, cancel_futures=True)
        self.state.engine.dispose()
        self.state.metrics.stop()
        log.info("stopped")


def _make_audit_executor(workers: int) -> tuple[Executor, Board | None]:
    """Worker processes for the audits of uploads, with the board of cancellation flags they
    read; or, with ``workers`` 0, two threads of this process (and no board)."""
    if workers <= 0:
        return ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit"), None
    # spawn, not fork: forking a process that runs gRPC threads is unsafe.
    context = multiprocessing.get_context("spawn")
    board = Board(context)
    pool = WorkerPool(
        "audit",
        lambda: ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=start_worker,
            initargs=(board.flags,),
        ),
    )
    for future in [pool.submit(audit_serialized, []) for _ in range(workers)]:
        future.result()  # start the workers now, not on the first upload
    return pool, board


STORE_THREADS = 2
"""Threads writing to the database (uploads too, without store worker processes). Their Python
work holds the GIL and SQLite takes one writer at a time, so more threads only take more turns
from the event loop: with six (the executor's default on 2 cores), a referee verdict's p99 was
about three times as long (docs/benchmarks.md, Live referee)."""


def _yield_to_calls() -> None:
    """A store thread's initializer: lower its own CPU priority by ``STORE_NICENESS``."""
    if hasattr(os, "setpriority"):
        thread = threading.get_native_id()
        os.setpriority(
            os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + STORE_NICENESS
        )


STORE_WORKERS = 2
"""Processes storing uploads beside audit worker processes: two uploads are written at once
(on PostgreSQL; SQLite takes one writer at a time whoever asks)."""


def _make_upload_store(config: ServerConfig, database_url: str) -> WorkerPool | None:
    """Store worker processes for uploads, beside audit worker processes (None: uploads are
    stored by the store threads, as they are with ``audit_workers`` 0, or on an in-memory
    database, which other processes cannot open)."""
    if config.audit_workers <= 0 or in_memory(database_url):
        return None
    pool = WorkerPool(
        "store",
        lambda: ProcessPoolExecutor(
            max_workers=STORE_WORKERS,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=start_store_worker,
            initargs=(database_url,),
        ),
    )
    for future in [pool.submit(os.getpid) for _ in range(STORE_WORKERS)]:
        future.result()  # start the workers (and open the database) now, not on an upload
    return pool


class ConfigError(ValueError):
    """A configuration the server refuses to start with (the message says what to change)."""


class PortInUse(ConfigError):
    """The server's port is taken (another server, chaodipi or not, listens on it)."""


def _read(path: Path, option: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {option} {path}: {exc.strerror}") from None


def _credentials(config: ServerConfig) -> grpc.ServerCredentials | None:
    """TLS credentials from the configured PEM files (None: plaintext)."""
    if config.tls_cert is None and config.tls_key is None:
        if config.tls_client_ca is not None:
            raise ConfigError("--tls-client-ca needs --tls-cert and --tls-key")
        return None
    if config.tls_cert is None or config.tls_key is None:
        raise ConfigError("TLS needs both --tls-cert and --tls-key")
    client_ca = config.tls_client_ca
    return grpc.ssl_server_credentials(
        [(_read(config.tls_key, "--tls-key"), _read(config.tls_cert, "--tls-cert"))],
        root_certificates=None if client_ca is None else _read(client_ca, "--tls-client-ca"),
        require_client_auth=client_ca is not None,
    )


def _host(config: ServerConfig, require_keys: bool, tls: bool) -> str:
    """Where to listen: keys never cross a network in plaintext unless ``insecure`` says so."""
    host = config.host
    if not require_keys:
        if host is not None and host not in _LOOPBACK:
            log.warning("no API keys configured: binding to 127.0.0.1 only, not %s", host)
        return "127.0.0.1"
    if tls or config.insecure:
        return host or "[::]"
    if host is None:
        log.warning(
            "API keys without TLS: listening on 127.0.0.1 only; give --tls-cert and "
            "--tls-key to listen on all interfaces (or --insecure for plaintext)"
        )
        return "127.0.0.1"
    if host not in _LOOPBACK:
        raise ConfigError(
            f"refusing to listen on {host} in plaintext with API keys (they would cross the "
            "network in the clear): give --tls-cert and --tls-key, or --insecure"
        )
    return host


def _bind(
    server: grpc.aio.Server, host: str, port: int, credentials: grpc.ServerCredentials | None
) -> int:
    """Listen on ``host:port`` (0: any free port); ``PortInUse`` when it is taken."""
    address = f"{host}:{port}"
    try:
        if credentials is None:
            bound = server.add_insecure_port(address)
        else:
            bound = server.add_secure_port(address, credentials)
    except RuntimeError:  # grpc's "Failed to bind to address"
        bound = 0
    if bound == 0:
        raise PortInUse(
            f"cannot listen on {host}:{port}: the port is in use (is another chaodipi server "
            "running?); stop it or choose another with --port"
        )
    return bound


async def start(config: ServerConfig) -> RunningServer:
    """Migrate the database, then start serving; returns once the port is bound. Raises
    ``ConfigError`` (``PortInUse``) for a configuration it refuses."""
    credentials = _credentials(config)
    engine = make_engine(config.database_url)
    await asyncio.to_thread(upgrade, engine)
    sessions = session_factory(engine)
    default_tenant = await asyncio.to_thread(ensure_tenant, sessions, DEFAULT_TENANT)
    require = config.require_keys
    if require is None:
        require = await asyncio.to_thread(has_active_keys, sessions)
    try:
        host = _host(config, require, credentials is not None)
    except ConfigError:
        engine.dispose()
        raise
    audit_executor, board = await asyncio.to_thread(_make_audit_executor, config.audit_workers)
    store_executor = ThreadPoolExecutor(
        max_workers=STORE_THREADS, thread_name_prefix="store", initializer=_yield_to_calls
    )
    upload_store = await asyncio.to_thread(
        _make_upload_store, config, engine.url.render_as_string(hide_password=False)
    )
    state = State(
        engine,
        sessions,
        audit_executor,
        store_executor,
        upload_store or store_executor,
        config,
        default_tenant,
        require,
        Calls(board),
        Metrics(),
    )
    server = grpc.aio.server(
        interceptors=[AuthInterceptor(state)],
        options=[
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            # Without this, a second server on the same port starts and shares it silently.
            ("grpc.so_reuseport", 0),
        ],
    )
    for entry in SERVICES:
        entry.add(entry.make(state), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [
            *(entry.service.full_name for entry in SERVICES),
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ],
        server,
    )
    metrics_port = None
    try:
        port = _bind(server, host, config.port, credentials)
        if config.metrics_port is not None:
            try:
                metrics_port = state.metrics.serve(host, config.metrics_port)
            except OSError as exc:
                raise PortInUse(
                    f"cannot serve metrics on {host}:{config.metrics_port}: {exc.strerror}; "
                    "choose another --metrics-port"
                ) from None
    except PortInUse:
        for executor in (audit_executor, store_executor, upload_store):
            if executor is not None:
                executor.shutdown(cancel_futures=True)
        engine.dispose()
        raise
    await server.start()
    if metrics_port is not None:
        log.info("metrics on http://%s:%d/metrics", host, metrics_port)
    for name in ("", *(entry.service.full_name for entry in SERVICES)):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if require:
        log.info("API keys required (authorization: Bearer <key>)")
    else:
        log.warning(
            "no API keys configured: listening on 127.0.0.1 only, calls act for the "
            "'%s' tenant; create a key with 'chaodipi keys create' to open it up",
            DEFAULT_TENANT,
        )
    log.info(
        "listening on %s:%d%s (database %s, %d audit worker(s))",
        host,
        port,
        " with TLS" if credentials is not None else "",
        engine.url.render_as_string(hide_password=True),
        config.audit_workers,
    )
    return RunningServer(server, health_servicer, state, host, port, metrics_port)


SWITCH_INTERVAL = 0.0005
"""Seconds a thread holds the GIL while another waits for it (CPython's default is 0.005): the
store threads write uploads in Python, and a referee verdict on the event loop waits for the
GIL that long at each hand-over."""


def tune_for_latency() -> None:
    """Keep the event loop's waits short: the GIL handed over every ``SWITCH_INTERVAL``, the
    server's threads on short CPU time slices where Linux grants them (a woken event loop
    preempts batch work sooner: ``scheduling.use_short_slices``), and what start-up built
    moved out of the garbage collector's view (``gc.freeze``), so that a full collection walks
    only what calls made (tens of ms otherwise, each a stall of every call in flight)."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    if not use_short_slices():
        log.debug("short CPU time slices are not granted here: the kernel's own are kept")
    gc.collect()
    gc.freeze()


async def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    running = await start(config)
    tune_for_latency()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info(
        "signal received: health NOT_SERVING, finishing in-flight calls (grace %.0f s)",
        config.grace_seconds,
    )
    await running.stop()
