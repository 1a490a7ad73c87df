"""The gRPC server: ``chaodipi.v1.AuditService`` on ``grpc.aio``, with health checking, server
reflection, API-key auth per tenant, message size limits and graceful shutdown.

Upload reports a malformed record in its summary (STATUS_REJECTED, the field violations in
``error``) and keeps the good ones; only a stream in which every record is malformed fails, with
INVALID_ARGUMENT and a ``google.rpc.BadRequest`` naming ``records[i].<field>``. The unary Audit
of a malformed record is INVALID_ARGUMENT with the same detail. A message that is not even
protobuf is read the same way: a rejected record in a stream, INVALID_ARGUMENT in a unary call.

Limits (``ServerConfig``): a request message over ``max_message_bytes`` (one record), a stream
over ``max_records_per_upload`` records or ``max_upload_bytes`` bytes is RESOURCE_EXHAUSTED.
Batches of a stream that were stored before the call failed stay stored, each record whole;
re-sending the stream stores the rest and reports those as duplicates.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import multiprocessing
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf.message import DecodeError
from google.protobuf.timestamp_pb2 import Timestamp
from google.rpc import (  # type: ignore[import-untyped]  # has .pyi files but no py.typed
    code_pb2,
    error_details_pb2,
    status_pb2,
)
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status
from sqlalchemy import Engine

from chaodipi.auditor.reading import Violation, resolve_ruleset
from chaodipi.engine.ruleset import Ruleset
from chaodipi.service.audited import Audited
from chaodipi.service.db import SessionFactory, make_engine, session_factory
from chaodipi.service.home import DEFAULT_TENANT
from chaodipi.service.ingest import (
    all_violations,
    audit_serialized,
    exit_with_parent,
    make_audited,
    parse_report,
    run_audit,
    unreadable_request,
)
from chaodipi.service.keys import has_active_keys, tenant_for_key
from chaodipi.service.migrate import upgrade
from chaodipi.service.readmodel import (
    BadPageToken,
    GameFilter,
    GameReplay,
    ReadModel,
    StatsFilter,
    StoredGame,
)
from chaodipi.service.store import ensure_tenant, store_batch
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2, service_pb2_grpc

log = logging.getLogger("chaodipi.service")

SERVICE_NAME = service_pb2.DESCRIPTOR.services_by_name["AuditService"].full_name
_REQUEST_TYPES = {
    f"/{SERVICE_NAME}/{m.name}": m.input_type.full_name
    for m in service_pb2.DESCRIPTOR.services_by_name["AuditService"].methods
}
"""The request message type of each AuditService method, by its gRPC path."""
_TENANT: contextvars.ContextVar[int] = contextvars.ContextVar("tenant")
_STREAM: contextvars.ContextVar[_StreamRead] = contextvars.ContextVar("stream")
Req = TypeVar("Req")
Resp = TypeVar("Resp")
_Batch = list[tuple[Audited, service_pb2.RecordSummary]]
"""An upload batch's records with their summaries, once stored."""


@dataclass(slots=True)
class ServerConfig:
    """How to run the server; the defaults suit a single machine."""

    port: int = 50051
    host: str | None = None  # None: all interfaces with keys, 127.0.0.1 without
    database_url: str | None = None
    max_message_bytes: int = 4 * 1024 * 1024
    max_records_per_upload: int = 100_000
    max_upload_bytes: int = 512 * 1024 * 1024
    batch_size: int = 64
    # Processes auditing uploads next to the event loop (0: a thread of this process); the
    # audit is pure Python, so one per core is what lets an upload use more than one core.
    audit_workers: int = field(default_factory=lambda: min(os.cpu_count() or 1, 4))
    grace_seconds: float = 10.0
    # Time between health turning NOT_SERVING and refusing new calls, for load balancers.
    drain_seconds: float = 0.0
    require_keys: bool | None = None  # None: when any key exists


@dataclass(slots=True)
class _StreamRead:
    """What reading a request stream found: messages that do not parse, by stream index."""

    unreadable: dict[int, str] = field(default_factory=dict)


@dataclass(slots=True)
class _State:
    """What the servicer shares: the database, the audit executor and the limits."""

    engine: Engine
    sessions: SessionFactory
    executor: Executor | None
    config: ServerConfig
    default_tenant: int
    require_keys: bool


async def _abort_bad_request(
    context: grpc.aio.ServicerContext[Any, Any],
    message: str,
    violations: Sequence[audit_pb2.FieldViolation],
) -> NoReturn:
    detail = error_details_pb2.BadRequest()
    for v in violations:
        detail.field_violations.add(field=v.field, description=v.description)
    status = status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=message)
    status.details.add().Pack(detail)
    await context.abort_with_status(rpc_status.to_status(status))
    raise AssertionError("abort_with_status returned")  # abort always raises


def _ruleset(
    record_ruleset: str, record_overrides: str, ruleset: str, overrides: str
) -> Ruleset | Violation | None:
    """The ruleset a request asks for (None: the record's own). A new ruleset id drops the
    record's overrides, which were written for its own ruleset."""
    if not ruleset and not overrides:
        return None
    resolved = resolve_ruleset(
        ruleset or record_ruleset, overrides or ("" if ruleset else record_overrides)
    )
    if isinstance(resolved, Violation):
        name = "ruleset_overrides_json" if resolved.field.endswith("overrides_json") else "ruleset"
        return Violation(name, resolved.description)
    return resolved


def _utc(stamp: Timestamp) -> datetime:
    return stamp.ToDatetime(tzinfo=UTC)


class AuditServicer(service_pb2_grpc.AuditServiceServicer):
    """``chaodipi.v1.AuditService``; the tenant comes from the auth interceptor."""

    def __init__(self, state: _State) -> None:
        self.state = state

    async def _audit_in_background(
        self, requests: Sequence[service_pb2.UploadRequest]
    ) -> list[audit_pb2.AuditReport | audit_pb2.MatchAuditReport | None]:
        # The audit is CPU-bound pure Python: a worker process gives it the second core, and even
        # the thread fallback keeps health checks answering while a big batch is audited.
        loop = asyncio.get_running_loop()
        if isinstance(self.state.executor, ProcessPoolExecutor):
            data = [r.SerializeToString() for r in requests]
            out = await loop.run_in_executor(self.state.executor, audit_serialized, data)
            return [parse_report(r, d) for r, d in zip(requests, out, strict=True)]
        return await loop.run_in_executor(
            self.state.executor, lambda: [run_audit(r) for r in requests]
        )

    async def _audit_and_store(
        self,
        tenant: int,
        start: int,
        requests: list[service_pb2.UploadRequest],
        previous: asyncio.Task[_Batch] | None,
    ) -> _Batch:
        reports = await self._audit_in_background(requests)
        unreadable = _STREAM.get().unreadable
        items = [
            unreadable_request(start + i, unreadable[start + i])
            if start + i in unreadable
            else make_audited(start + i, request, report)
            for i, (request, report) in enumerate(zip(requests, reports, strict=True))
        ]
        if previous is not None:
            await previous  # batches are written in stream order, one writer at a time
        summaries = await asyncio.to_thread(store_batch, self.state.sessions, tenant, items)
        return list(zip(items, summaries, strict=True))

    async def Upload(
        self,
        request_iterator: AsyncIterator[service_pb2.UploadRequest],
        context: grpc.aio.ServicerContext[service_pb2.UploadRequest, service_pb2.UploadResponse],
    ) -> service_pb2.UploadResponse:
        """Audit and store every record of the stream; one summary per record."""
        tenant = _TENANT.get()
        config = self.state.config
        # Batches are audited concurrently (one per worker, plus one queued) while the stream is
        # still being read; each is stored after the one before it, so summaries stay in order.
        in_flight = max(config.audit_workers, 1) + 1
        stores: list[asyncio.Task[_Batch]] = []
        batch: list[service_pb2.UploadRequest] = []
        count = 0

        def dispatch() -> None:
            previous = stores[-1] if stores else None
            stores.append(
                asyncio.create_task(
                    self._audit_and_store(tenant, count - len(batch), batch, previous)
                )
            )

        try:
            async for request in request_iterator:
                count += 1
                if count > config.max_records_per_upload:
                    await context.abort(
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"an upload holds at most {config.max_records_per_upload} records: "
                        "split the stream",
                    )
                batch.append(request)
                if len(batch) >= config.batch_size:
                    dispatch()
                    batch = []
                    pending = [t for t in stores if not t.done()]
                    if len(pending) > in_flight:
                        await asyncio.wait(pending[:-in_flight])
            if batch:
                dispatch()
            done = [pair for pairs in await asyncio.gather(*stores) for pair in pairs]
        except BaseException:
            for task in stores:  # a cancelled or failed call stops its queued batches
                task.cancel()
            raise
        summaries = [summary for _, summary in done]
        rejected = [item for item, _ in done if item.violations]
        if count and len(rejected) == count:
            await _abort_bad_request(
                context, f"all {count} records are malformed", all_violations(rejected)
            )
        return service_pb2.UploadResponse(results=summaries)

    async def Audit(
        self,
        request: service_pb2.AuditRequest,
        context: grpc.aio.ServicerContext[service_pb2.AuditRequest, service_pb2.AuditResponse],
    ) -> service_pb2.AuditResponse:
        """Audit one record without storing it."""
        kind = request.WhichOneof("record")
        if kind is None:
            await _abort_bad_request(
                context,
                "no record",
                [
                    audit_pb2.FieldViolation(
                        field="record", description="missing: give game or match"
                    )
                ],
            )
        record: records_pb2.GameRecord | records_pb2.MatchRecord = (
            request.game if kind == "game" else request.match
        )
        ruleset = _ruleset(
            record.ruleset,
            record.ruleset_overrides_json,
            request.ruleset_override,
            request.ruleset_overrides_json,
        )
        if isinstance(ruleset, Violation):
            name = "ruleset_override" if ruleset.field == "ruleset" else ruleset.field
            await _abort_bad_request(
                context,
                "bad ruleset",
                [audit_pb2.FieldViolation(field=name, description=ruleset.description)],
            )
        upload = (
            service_pb2.UploadRequest(game=request.game)
            if kind == "game"
            else (service_pb2.UploadRequest(match=request.match))
        )
        loop = asyncio.get_running_loop()
        report = await loop.run_in_executor(None, run_audit, upload, ruleset)
        violations = list(report.rejections) if report is not None else []
        if isinstance(report, audit_pb2.MatchAuditReport):
            violations += [v for hand in report.hands for v in hand.rejections]
        if violations:
            await _abort_bad_request(
                context,
                f"the {kind} cannot be replayed",
                [
                    audit_pb2.FieldViolation(field=f"{kind}.{v.field}", description=v.description)
                    for v in violations
                ],
            )
        if isinstance(report, audit_pb2.AuditReport):
            return service_pb2.AuditResponse(report=report)
        return service_pb2.AuditResponse(match_report=report)

    def _model(self) -> ReadModel:
        """The caller's tenant's stored games (its methods do blocking database I/O: run them
        in a thread)."""
        return ReadModel(self.state.sessions, _TENANT.get())

    async def GetReplay(
        self,
        request: service_pb2.GetReplayRequest,
        context: grpc.aio.ServicerContext[
            service_pb2.GetReplayRequest, service_pb2.GetReplayResponse
        ],
    ) -> service_pb2.GetReplayResponse:
        """A stored game of the caller's tenant, with steps recomputed on request."""
        model = self._model()
        found: GameReplay | StoredGame | None
        if request.include_steps:
            found = await asyncio.to_thread(model.replay, request.game_id)
        else:
            found = await asyncio.to_thread(model.game, request.game_id)
        if found is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no game {request.game_id!r}")
        return service_pb2.GetReplayResponse(replay=found.message())

    async def ListGames(
        self,
        request: service_pb2.ListGamesRequest,
        context: grpc.aio.ServicerContext[
            service_pb2.ListGamesRequest, service_pb2.ListGamesResponse
        ],
    ) -> service_pb2.ListGamesResponse:
        """A page of the caller's games matching the filters."""
        filters = GameFilter(
            ruleset=request.ruleset or None,
            player_id=request.player_id or None,
            finding_code=request.finding_code or None,
            played_from=_utc(request.played_from) if request.HasField("played_from") else None,
            played_to=_utc(request.played_to) if request.HasField("played_to") else None,
            with_findings=request.with_findings if request.HasField("with_findings") else None,
        )
        if request.page_size < 0:
            await _abort_bad_request(
                context,
                "bad page size",
                [audit_pb2.FieldViolation(field="page_size", description="must not be negative")],
            )
        try:
            page = await asyncio.to_thread(
                self._model().games,
                filters,
                page_size=request.page_size,
                page_token=request.page_token,
            )
        except BadPageToken as exc:
            await _abort_bad_request(
                context,
                "bad page token",
                [audit_pb2.FieldViolation(field="page_token", description=str(exc))],
            )
        response = service_pb2.ListGamesResponse(
            next_page_token=page.next_page_token, total=page.total
        )
        for row in page.games:
            summary = response.games.add(
                game_id=row.game_id,
                record_id=row.record_id,
                ruleset=row.ruleset,
                player_ids=row.player_ids,
                breaches=row.breaches,
                scoring_errors=row.scoring_errors,
                warnings=row.warnings,
                finding_codes=row.finding_codes,
                defenders_points=row.defenders_points or 0,
                level_result=row.level_result,
                match_id=row.match_id or "",
            )
            summary.stored_at.FromDatetime(row.stored_at)
            if row.played_at is not None:
                summary.played_at.FromDatetime(row.played_at)
        return response

    async def PlayerStats(
        self,
        request: service_pb2.PlayerStatsRequest,
        context: grpc.aio.ServicerContext[
            service_pb2.PlayerStatsRequest, service_pb2.PlayerStatsResponse
        ],
    ) -> service_pb2.PlayerStatsResponse:
        """Statistics of the caller's players, computed by the database."""
        filters = StatsFilter(
            player_ids=tuple(request.player_ids),
            ruleset=request.ruleset or None,
            played_from=_utc(request.played_from) if request.HasField("played_from") else None,
            played_to=_utc(request.played_to) if request.HasField("played_to") else None,
        )
        rows = await asyncio.to_thread(self._model().player_stats, filters)
        response = service_pb2.PlayerStatsResponse()
        for row in rows:
            response.players.add(
                player_id=row.player_id,
                display_name=row.display_name,
                games=row.games,
                hands_as_dealer_side=row.hands_as_dealer_side,
                hands_as_defenders=row.hands_as_defenders,
                tricks_won=row.tricks_won,
                points_taken=row.points_taken,
                throws_tried=row.throws_tried,
                throws_stood=row.throws_stood,
                throws_failed=row.throws_failed,
                breaches_by_code=row.breaches_by_code,
                kou_di_count=row.kou_di_count,
                kou_di_points=row.kou_di_points,
                levels_gained=row.levels_gained,
                levels_conceded=row.levels_conceded,
                win_rate=row.win_rate,
            )
        return response

    async def Reaudit(
        self,
        request: service_pb2.ReauditRequest,
        context: grpc.aio.ServicerContext[service_pb2.ReauditRequest, service_pb2.ReauditResponse],
    ) -> service_pb2.ReauditResponse:
        """Audit a stored game again, under another ruleset if asked; nothing is stored."""
        game = await asyncio.to_thread(self._model().game, request.game_id)
        if game is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no game {request.game_id!r}")
        ruleset = _ruleset(
            game.record.ruleset,
            game.record.ruleset_overrides_json,
            request.ruleset,
            request.ruleset_overrides_json,
        )
        if isinstance(ruleset, Violation):
            await _abort_bad_request(
                context,
                "bad ruleset",
                [audit_pb2.FieldViolation(field=ruleset.field, description=ruleset.description)],
            )
        report = await asyncio.get_running_loop().run_in_executor(None, game.reaudit, ruleset)
        return service_pb2.ReauditResponse(report=report)


def _read_error(method: str, exc: DecodeError) -> audit_pb2.FieldViolation:
    name = _REQUEST_TYPES[method]
    return audit_pb2.FieldViolation(
        field="request", description=f"not a readable {name} message: {exc}"
    )


def _bound(
    handler: grpc.RpcMethodHandler[Req, Resp], method: str, tenant: int, config: ServerConfig
) -> grpc.RpcMethodHandler[Req, Resp]:
    """The same handler, run with the caller's tenant in ``_TENANT``, reading the request bytes
    itself: gRPC's own reading answers a message that is not protobuf with UNKNOWN, while this
    is the caller's error (INVALID_ARGUMENT), or in a stream one rejected record."""
    decode = handler.request_deserializer
    assert decode is not None  # generated handlers always name their request type

    def bind_unary(behavior: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Awaitable[Any]]:
        async def call(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            _TENANT.set(tenant)  # in this call's own task context
            try:
                request = decode(raw)
            except DecodeError as exc:
                await _abort_bad_request(
                    context, "the request cannot be read", [_read_error(method, exc)]
                )
            return await behavior(request, context)

        return call

    def bind_stream(behavior: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Awaitable[Any]]:
        async def call(
            raw_stream: AsyncIterator[bytes], context: grpc.aio.ServicerContext[Any, Any]
        ) -> Any:
            _TENANT.set(tenant)
            read = _StreamRead()
            _STREAM.set(read)

            async def requests() -> AsyncIterator[Any]:
                total = 0
                index = 0
                async for raw in raw_stream:
                    total += len(raw)
                    if total > config.max_upload_bytes:
                        await context.abort(
                            grpc.StatusCode.RESOURCE_EXHAUSTED,
                            f"an upload holds at most {config.max_upload_bytes} bytes: "
                            f"split the stream (record {index} passes the limit)",
                        )
                    try:
                        yield decode(raw)
                    except DecodeError as exc:
                        read.unreadable[index] = _read_error(method, exc).description
                        yield decode(b"")  # an empty request holds its place in the stream
                    index += 1

            return await behavior(requests(), context)

        return call

    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            bind_unary(handler.unary_unary), None, handler.response_serializer
        )
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(
            bind_stream(handler.stream_unary), None, handler.response_serializer
        )
    raise TypeError(f"no tenant binding for handler {handler!r}")


def _denied(
    handler: grpc.RpcMethodHandler[Req, Resp], message: str
) -> grpc.RpcMethodHandler[Req, Resp]:
    async def deny(_request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    # The request is not read: an unauthenticated caller learns nothing from its bytes.
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(deny, None, handler.response_serializer)
    return grpc.unary_unary_rpc_method_handler(deny, None, handler.response_serializer)


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Checks ``authorization: Bearer <key>`` on AuditService calls and sets the tenant.

    Health and reflection stay open. Without required keys, a call without a key acts for the
    default tenant (the server then listens on 127.0.0.1 only).
    """

    def __init__(self, state: _State) -> None:
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
        tenant = await asyncio.to_thread(tenant_for_key, self.state.sessions, key.strip())
        if tenant is None:
            return _denied(handler, "unknown or revoked API key")
        return _bound(handler, method, tenant, self.state.config)


@dataclass(slots=True)
class RunningServer:
    """A started server: its port, and how to stop it gracefully."""

    server: grpc.aio.Server
    health: health.aio.HealthServicer
    state: _State
    host: str
    port: int

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING, optional drain, then stop; in-flight calls get ``grace`` s."""
        config = self.state.config
        await self.health.enter_graceful_shutdown()
        if config.drain_seconds:
            await asyncio.sleep(config.drain_seconds)
        await self.server.stop(config.grace_seconds if grace is None else grace)
        if self.state.executor is not None:
            self.state.executor.shutdown(wait=False, cancel_futures=True)
        self.state.engine.dispose()
        log.info("stopped")


def _make_executor(workers: int) -> Executor | None:
    if workers <= 0:
        return None
    # spawn, not fork: forking a process that runs gRPC threads is unsafe.
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=exit_with_parent,
    )
    for future in [pool.submit(audit_serialized, []) for _ in range(workers)]:
        future.result()  # start the workers now, not on the first upload
    return pool


class PortInUse(OSError):
    """The server's port is taken (another server, chaodipi or not, listens on it)."""


def _bind(server: grpc.aio.Server, host: str, port: int) -> int:
    """Listen on ``host:port`` (0: any free port); ``PortInUse`` when it is taken."""
    try:
        bound = server.add_insecure_port(f"{host}:{port}")
    except RuntimeError:  # grpc's "Failed to bind to address"
        bound = 0
    if bound == 0:
        raise PortInUse(
            f"cannot listen on {host}:{port}: the port is in use (is another chaodipi server "
            "running?); stop it or choose another with --port"
        )
    return bound


async def start(config: ServerConfig) -> RunningServer:
    """Migrate the database, then start serving; returns once the port is bound."""
    engine = make_engine(config.database_url)
    await asyncio.to_thread(upgrade, engine)
    sessions = session_factory(engine)
    default_tenant = await asyncio.to_thread(ensure_tenant, sessions, DEFAULT_TENANT)
    require = config.require_keys
    if require is None:
        require = await asyncio.to_thread(has_active_keys, sessions)
    host = config.host or ("[::]" if require else "127.0.0.1")
    if not require and host not in ("127.0.0.1", "localhost", "::1", "[::1]"):
        log.warning("no API keys configured: binding to 127.0.0.1 only, not %s", host)
        host = "127.0.0.1"
    executor = await asyncio.to_thread(_make_executor, config.audit_workers)
    state = _State(engine, sessions, executor, config, default_tenant, require)
    server = grpc.aio.server(
        interceptors=[AuthInterceptor(state)],
        options=[
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            # Without this, a second server on the same port starts and shares it silently.
            ("grpc.so_reuseport", 0),
        ],
    )
    service_pb2_grpc.add_AuditServiceServicer_to_server(AuditServicer(state), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [
            SERVICE_NAME,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ],
        server,
    )
    try:
        port = _bind(server, host, config.port)
    except PortInUse:
        if executor is not None:
            executor.shutdown(cancel_futures=True)
        engine.dispose()
        raise
    await server.start()
    for name in ("", SERVICE_NAME):
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
        "listening on %s:%d (database %s, %d audit worker(s))",
        host,
        port,
        engine.url.render_as_string(hide_password=True),
        config.audit_workers,
    )
    return RunningServer(server, health_servicer, state, host, port)


async def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    running = await start(config)
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
