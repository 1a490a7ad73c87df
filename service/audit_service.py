"""``chaodipi.v1.AuditService``: uploads, audits, stored games, matches and players.

Every read goes through the read model (``service.readmodel``), every write through the
upload pipeline (``service.uploads``). Arguments are checked before anything is read: an empty
or malformed name, an id over 200 characters or with a control character, a timestamp out of
range, a negative page size or a page token of other filters is INVALID_ARGUMENT naming the
field; a well-formed name of nothing the tenant holds is NOT_FOUND. Servicer methods raise the
exceptions of ``service.errors`` (and ``BadArgument``); the server turns them into statuses.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from google.protobuf.timestamp_pb2 import Timestamp

from chaodipi.auditor.reading import Violation, resolve_ruleset
from chaodipi.engine.ruleset import Ruleset
from chaodipi.service.analyzed import MAX_WINDOW, analyze_record, analyze_serialized
from chaodipi.service.context import TENANT, State
from chaodipi.service.errors import InvalidRequest, LimitExceeded, NotFound, Unreadable
from chaodipi.service.ingest import batch_requests, run_audit
from chaodipi.service.limits import BadArgument, echo
from chaodipi.service.names import GAMES, MATCHES, PLAYERS, game_name, parse_name
from chaodipi.service.readmodel import GameFilter, GameReplay, ReadModel, StatsFilter, StoredGame
from chaodipi.service.uploads import UploadSettings, upload
from chaodipi.service.workers import WorkerPool
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2, service_pb2_grpc

_MIN_SECONDS = -62_135_596_800  # 0001-01-01T00:00:00Z
_MAX_SECONDS = 253_402_300_799  # 9999-12-31T23:59:59Z

Context = grpc.aio.ServicerContext[Any, Any]


def _ruleset(
    record_ruleset: str, record_overrides: str, ruleset: str, overrides: str
) -> Ruleset | None:
    """The ruleset a request asks for (None: the record's own). A new ruleset id drops the
    record's overrides, which were written for its own ruleset."""
    if not ruleset and not overrides:
        return None
    resolved = resolve_ruleset(
        ruleset or record_ruleset, overrides or ("" if ruleset else record_overrides)
    )
    if isinstance(resolved, Violation):
        name = "ruleset_overrides_json" if resolved.field.endswith("overrides_json") else "ruleset"
        raise BadArgument(name, resolved.description)
    return resolved


def _time(field: str, stamp: Timestamp) -> datetime:
    """A filter's timestamp as a UTC datetime; ``BadArgument`` outside years 1..9999."""
    if not _MIN_SECONDS <= stamp.seconds <= _MAX_SECONDS or not 0 <= stamp.nanos < 10**9:
        raise BadArgument(field, "out of range: a time between years 1 and 9999 in UTC")
    return stamp.ToDatetime(tzinfo=UTC)


def _page_size(size: int) -> int:
    if size < 0:
        raise BadArgument("page_size", "must not be negative (0: the default, 50)")
    return size


async def _stream_of(requests: Iterable[bytes]) -> AsyncIterator[bytes]:
    for request in requests:
        yield request


class AuditServicer(service_pb2_grpc.AuditServiceServicer):
    """``chaodipi.v1.AuditService`` for the caller's tenant (``context.TENANT``)."""

    def __init__(self, state: State) -> None:
        self.state = state
        config = state.config
        self.uploads = UploadSettings(
            sessions=state.sessions,
            audit_executor=state.audit_executor,
            store_executor=state.upload_store_executor,
            batch_size=config.batch_size,
            # One batch per audit worker, and one more queued behind them.
            in_flight=max(config.audit_workers, 1) + 1,
            max_records=config.max_records_per_upload,
            metrics=state.metrics,
        )

    def _model(self) -> ReadModel:
        """The caller's tenant's stored games (its methods do blocking database I/O: run them
        in a thread)."""
        return ReadModel(self.state.sessions, TENANT.get())

    # The upload methods take their requests as received (``server.Registration.raw``): the
    # audits read the records, in the audit workers, not the event loop.
    async def UploadRecords(  # type: ignore[override]
        self, request_iterator: AsyncIterator[bytes], context: Context
    ) -> AsyncIterator[service_pb2.RecordSummary]:
        """Audit and store every record of the stream; one summary per record, as it is
        stored."""
        tenant = TENANT.get()
        async with self.state.calls.budget(context.time_remaining()) as budget:
            # Headers at once: the client knows the call is taken up (a shutdown now lets it
            # finish) before the first summary, which waits for a batch of records.
            await context.send_initial_metadata(())
            # Closed here when this stream is (a cancelled call): the upload stops reading
            # the requests before the budget settles the call's work.
            async with contextlib.aclosing(
                upload(self.uploads, budget, tenant, request_iterator)
            ) as summaries:
                async for summary in summaries:
                    yield summary

    async def BatchUploadRecords(  # type: ignore[override]
        self, request: bytes, context: Context
    ) -> service_pb2.BatchUploadRecordsResponse:
        """The records of one message, as UploadRecords stores them."""
        tenant = TENANT.get()
        async with self.state.calls.budget(context.time_remaining()) as budget:
            try:
                records = await budget.submit(self.state.audit_executor, batch_requests, request)
            except DecodeError as exc:
                name = service_pb2.BatchUploadRecordsRequest.DESCRIPTOR.full_name
                raise Unreadable(name, exc) from None
            limit = self.state.config.max_batch_records
            if len(records) > limit:
                raise LimitExceeded(
                    f"a batch holds at most {limit} records, this one {len(records)}: "
                    "use UploadRecords, or smaller batches"
                )
            summaries = [
                summary
                async for summary in upload(self.uploads, budget, tenant, _stream_of(records))
            ]
        return service_pb2.BatchUploadRecordsResponse(summaries=summaries)

    async def AuditRecord(
        self, request: service_pb2.AuditRecordRequest, context: Context
    ) -> service_pb2.AuditRecordResponse:
        """Audit one record without storing it."""
        kind = request.WhichOneof("record")
        if kind is None:
            missing = audit_pb2.FieldViolation(field="record", description="missing: give one")
            raise InvalidRequest("no record: give game or match", [missing])
        record: records_pb2.GameRecord | records_pb2.MatchRecord = (
            request.game if kind == "game" else request.match
        )
        ruleset = _ruleset(
            record.ruleset,
            record.ruleset_overrides_json,
            request.ruleset,
            request.ruleset_overrides_json,
        )
        upload_request = (
            service_pb2.UploadRecordsRequest(game=request.game)
            if kind == "game"
            else service_pb2.UploadRecordsRequest(match=request.match)
        )
        loop = asyncio.get_running_loop()
        report = await loop.run_in_executor(None, run_audit, upload_request, ruleset)
        violations = list(report.rejections) if report is not None else []
        if isinstance(report, audit_pb2.MatchAuditReport):
            violations += [v for hand in report.hands for v in hand.rejections]
        if violations:
            raise InvalidRequest(
                f"the {kind} cannot be replayed",
                [
                    audit_pb2.FieldViolation(field=f"{kind}.{v.field}", description=v.description)
                    for v in violations
                ],
            )
        if isinstance(report, audit_pb2.AuditReport):
            return service_pb2.AuditRecordResponse(report=report)
        return service_pb2.AuditRecordResponse(match_report=report)

    async def _stored_game(self, name: str) -> StoredGame:
        game_id = parse_name("name", name, GAMES)
        game = await asyncio.to_thread(self._model().game, game_id)
        if game is None:
            raise NotFound(f"no game {echo(game_id)!r}")
        return game

    async def GetGame(
        self, request: service_pb2.GetGameRequest, context: Context
    ) -> service_pb2.Game:
        """A stored game of the caller's tenant, with the steps recomputed in the full view."""
        if request.view not in service_pb2.GameView.values():
            raise BadArgument("view", f"{request.view} is not a GameView")
        game = await self._stored_game(request.name)
        if request.view != service_pb2.GAME_VIEW_FULL:
            return game.message()
        replay: GameReplay = await asyncio.get_running_loop().run_in_executor(None, game.replay)
        return replay.message()

    async def ListGames(
        self, request: service_pb2.ListGamesRequest, context: Context
    ) -> service_pb2.ListGamesResponse:
        """A page of the caller's games matching the filters."""
        filters = GameFilter(
            ruleset=request.ruleset or None,
            player_id=request.player_id or None,
            finding_code=request.finding_code or None,
            played_from=_time("played_from", request.played_from)
            if request.HasField("played_from")
            else None,
            played_to=_time("played_to", request.played_to)
            if request.HasField("played_to")
            else None,
            with_findings=request.with_findings if request.HasField("with_findings") else None,
            match_id=parse_name("match", request.match, MATCHES) if request.match else None,
        )
        page = await asyncio.to_thread(
            self._model().games,
            filters,
            page_size=_page_size(request.page_size),
            page_token=request.page_token,
        )
        return service_pb2.ListGamesResponse(
            games=[row.message() for row in page.games],
            next_page_token=page.next_page_token,
            total_size=page.total,
        )

    async def ReauditGame(
        self, request: service_pb2.ReauditGameRequest, context: Context
    ) -> service_pb2.ReauditGameResponse:
        """Audit a stored game again, under another ruleset if asked; nothing is stored."""
        game = await self._stored_game(request.name)
        ruleset = _ruleset(
            game.record.ruleset,
            game.record.ruleset_overrides_json,
            request.ruleset,
            request.ruleset_overrides_json,
        )
        report = await asyncio.get_running_loop().run_in_executor(None, game.reaudit, ruleset)
        return service_pb2.ReauditGameResponse(report=report)

    async def AnalyzeGame(
        self, request: service_pb2.AnalyzeGameRequest, context: Context
    ) -> service_pb2.AnalyzeGameResponse:
        """A stored game's last tricks solved, each play's cost: in the audit workers, under
        the call's deadline; nothing is stored and the stored audit is untouched."""
        if not 0 <= request.window <= MAX_WINDOW:
            raise BadArgument("window", f"{request.window} is not 0 (the default) to {MAX_WINDOW}")
        game = await self._stored_game(request.name)
        executor = self.state.audit_executor
        async with self.state.calls.budget(context.time_remaining()) as budget:
            if isinstance(executor, WorkerPool):
                data = await budget.submit(
                    executor,
                    analyze_serialized,
                    game.record.SerializeToString(),
                    request.window,
                    budget.slot,
                    budget.deadline,
                )
                response = service_pb2.AnalyzeGameResponse.FromString(data)
            else:
                response = await budget.submit(
                    executor, analyze_record, game.record, request.window, budget.spent
                )
        response.name = game_name(game.game_id)
        return response

    async def GetMatch(
        self, request: service_pb2.GetMatchRequest, context: Context
    ) -> service_pb2.Match:
        """A stored match of the caller's tenant: its match-level audit and its hands."""
        match_id = parse_name("name", request.name, MATCHES)
        match = await asyncio.to_thread(self._model().match, match_id)
        if match is None:
            raise NotFound(f"no match {echo(match_id)!r}")
        return match.message()

    def _stats_filter(
        self,
        player_ids: Iterable[str],
        ruleset: str,
        played_from: Timestamp | None,
        played_to: Timestamp | None,
    ) -> StatsFilter:
        return StatsFilter(
            player_ids=tuple(player_ids),
            ruleset=ruleset or None,
            played_from=None if played_from is None else _time("played_from", played_from),
            played_to=None if played_to is None else _time("played_to", played_to),
        )

    async def GetPlayerStats(
        self, request: service_pb2.GetPlayerStatsRequest, context: Context
    ) -> service_pb2.PlayerStats:
        """One player's statistics over the selected games (zeros when none is selected)."""
        player_id = parse_name("name", request.name, PLAYERS)
        filters = self._stats_filter(
            (),
            request.ruleset,
            request.played_from if request.HasField("played_from") else None,
            request.played_to if request.HasField("played_to") else None,
        )
        row = await asyncio.to_thread(self._model().player, player_id, filters)
        if row is None:
            raise NotFound(f"no player {echo(player_id)!r}")
        return row.message()

    async def ListPlayers(
        self, request: service_pb2.ListPlayersRequest, context: Context
    ) -> service_pb2.ListPlayersResponse:
        """A page of the players of the selected games, with their statistics, by player id."""
        filters = self._stats_filter(
            request.player_ids,
            request.ruleset,
            request.played_from if request.HasField("played_from") else None,
            request.played_to if request.HasField("played_to") else None,
        )
        page = await asyncio.to_thread(
            self._model().player_stats_page,
            filters,
            page_size=_page_size(request.page_size),
            page_token=request.page_token,
        )
        return service_pb2.ListPlayersResponse(
            players=[row.message() for row in page.players],
            next_page_token=page.next_page_token,
            total_size=page.total,
        )
