"""A Python client for chaodipi's gRPC service (``chaodipi.v1.AuditService``).

Blocking, one channel per client. Every call has a deadline (``timeout`` seconds, uploads
``upload_timeout`` per stream), sends the API key when given, speaks TLS when asked (a CA file,
optionally a client certificate for mutual TLS), and is retried with exponential backoff and
jitter while the server answers UNAVAILABLE (every method is safe to repeat: an upload sent
twice stores each record once). Answers are the ``chaodipi.v1`` messages (typed by their
stubs), pages are ``GamePage`` / ``PlayerPage``, and a failed call raises ``ServiceError``:
its status code, message and field violations.

>>> from chaodipi.client import AuditClient
>>> with AuditClient("127.0.0.1:50051") as client:            # doctest: +SKIP
...     summaries = client.upload(records)                       # one RecordSummary each
...     game = client.get_game(summaries[0].game, steps=True)    # "games/…", or a record id
...     for player in client.players(ruleset="classic"):         # every page
...         print(player.player_id, player.hands_played)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import grpc
from google.rpc import error_details_pb2  # type: ignore[import-untyped]  # no py.typed marker
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from chaodipi.v1 import audit_pb2, records_pb2, service_pb2, service_pb2_grpc

__all__ = [
    "UPLOAD_CHUNK",
    "AnyRecord",
    "AuditClient",
    "GamePage",
    "PlayerPage",
    "Retry",
    "ServiceError",
    "field_violations",
]

UPLOAD_CHUNK = 10_000
"""Records per UploadRecords stream; the server caps a stream's records, so longer inputs are
split into several streams."""

AnyRecord = (
    records_pb2.RecordFile
    | records_pb2.GameRecord
    | records_pb2.MatchRecord
    | service_pb2.UploadRecordsRequest
)
"""A record in any of the shapes callers hold them in."""

Resp = TypeVar("Resp")
Pem = Path | bytes


def field_violations(error: grpc.RpcError) -> list[tuple[str, str]]:
    """The ``google.rpc.BadRequest`` field violations of an error, as (field, description)."""
    if isinstance(error, ServiceError):
        return list(error.violations)
    # The stubs' RpcError is no grpc.Call, but every RpcError a channel raises is one.
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is None:
        return []
    out: list[tuple[str, str]] = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out.extend((v.field, v.description) for v in bad.field_violations)
    return out


class ServiceError(grpc.RpcError):
    """A call that failed: ``code()``, ``details()`` (the server's message) and
    ``violations``, the malformed fields as (field, description)."""

    def __init__(self, error: grpc.RpcError) -> None:
        call: Any = error  # every RpcError a channel raises is a grpc.Call
        self._code: grpc.StatusCode = call.code()
        self._details: str = call.details() or ""
        self.violations = field_violations(error)
        super().__init__(f"{self._code.name}: {self._details}")

    def code(self) -> grpc.StatusCode:
        """The status code."""
        return self._code

    def details(self) -> str:
        """The server's message."""
        return self._details


@dataclass(frozen=True, slots=True)
class Retry:
    """Backoff while the server answers UNAVAILABLE: at most ``attempts`` calls, waiting a
    random time up to ``initial`` x ``multiplier``^n (capped at ``maximum``) seconds between
    them ("full jitter", so many clients do not come back at once)."""

    attempts: int = 5
    initial: float = 0.2
    maximum: float = 5.0
    multiplier: float = 2.0

    def delay(self, retry: int, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        return rng.uniform(0, min(self.maximum, self.initial * self.multiplier**retry))


@dataclass(frozen=True, slots=True)
class GamePage:
    """A page of stored games (listing fields only), the next page's token (empty: the last)
    and the number of games matching."""

    games: list[service_pb2.Game]
    next_page_token: str
    total_size: int


@dataclass(frozen=True, slots=True)
class PlayerPage:
    """A page of players' statistics, the next page's token (empty: the last) and the number
    of players matching."""

    players: list[service_pb2.PlayerStats]
    next_page_token: str
    total_size: int


def as_requests(records: Iterable[AnyRecord]) -> Iterator[service_pb2.UploadRecordsRequest]:
    """Upload requests for records in any of the shapes callers hold them in."""
    for record in records:
        if isinstance(record, service_pb2.UploadRecordsRequest):
            yield record
        elif isinstance(record, records_pb2.GameRecord):
            yield service_pb2.UploadRecordsRequest(game=record)
        elif isinstance(record, records_pb2.MatchRecord):
            yield service_pb2.UploadRecordsRequest(match=record)
        elif record.WhichOneof("record") == "game":
            yield service_pb2.UploadRecordsRequest(game=record.game)
        elif record.WhichOneof("record") == "match":
            yield service_pb2.UploadRecordsRequest(match=record.match)
        else:
            yield service_pb2.UploadRecordsRequest()


def _name(collection: str, name_or_id: str) -> str:
    """``games/abc`` stays as it is; ``abc`` (a game id or a record id) becomes ``games/abc``."""
    prefix = f"{collection}/"
    return name_or_id if name_or_id.startswith(prefix) else prefix + name_or_id


def _pem(value: Pem | None) -> bytes | None:
    return value.read_bytes() if isinstance(value, Path) else value


class AuditClient:
    """Calls the service at ``target`` (``host:port``).

    ``api_key`` is sent as ``authorization: Bearer <key>``. ``tls_ca`` (a PEM file or bytes)
    makes it speak TLS and trust that CA; ``tls=True`` speaks TLS trusting the system's roots;
    ``tls_cert`` and ``tls_key`` add a client certificate (mutual TLS). ``timeout`` is each
    call's deadline in seconds, ``upload_timeout`` each upload stream's (None: none);
    ``retry`` the backoff on UNAVAILABLE. ``sleep`` waits between retries (tests pass their
    own); ``channel`` replaces the channel the client would open.
    """

    def __init__(
        self,
        target: str,
        *,
        api_key: str | None = None,
        timeout: float | None = 30.0,
        upload_timeout: float | None = 3600.0,
        retry: Retry = Retry(),
        tls: bool = False,
        tls_ca: Pem | None = None,
        tls_cert: Pem | None = None,
        tls_key: Pem | None = None,
        channel: grpc.Channel | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        options = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        if channel is not None:
            self.channel = channel
        elif tls or tls_ca is not None or tls_cert is not None:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=_pem(tls_ca),
                private_key=_pem(tls_key),
                certificate_chain=_pem(tls_cert),
            )
            self.channel = grpc.secure_channel(target, credentials, options=options)
        else:
            self.channel = grpc.insecure_channel(target, options=options)
        self.stub = service_pb2_grpc.AuditServiceStub(self.channel)
        self.metadata: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {api_key}"),) if api_key else ()
        )
        self.timeout = timeout
        self.upload_timeout = upload_timeout
        self.retry = retry
        self.sleep = sleep
        self._rng = random.Random()

    def __enter__(self) -> AuditClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()

    def _retrying(self, call: Callable[[], Resp]) -> Resp:
        """``call()``, retried with backoff while it fails UNAVAILABLE; ``ServiceError`` when
        it fails otherwise or the attempts run out."""
        for attempt in range(self.retry.attempts):
            try:
                return call()
            except grpc.RpcError as error:
                failure = ServiceError(error)
                if failure.code() != grpc.StatusCode.UNAVAILABLE:
                    raise failure from None
                if attempt + 1 == self.retry.attempts:
                    raise failure from None
            self.sleep(self.retry.delay(attempt, self._rng))
        raise ValueError(f"Retry.attempts must be at least 1, not {self.retry.attempts}")

    def _unary(self, method: Callable[..., Resp], request: Any) -> Resp:
        return self._retrying(lambda: method(request, timeout=self.timeout, metadata=self.metadata))

    # -- uploads ---------------------------------------------------------------------------

    def upload(
        self, records: Iterable[AnyRecord], *, chunk: int = UPLOAD_CHUNK
    ) -> list[service_pb2.RecordSummary]:
        """Upload records (hands, matches, ``RecordFile``s or ready requests); one summary each,
        in order (``upload_iter`` gives them as they come)."""
        return list(self.upload_iter(records, chunk=chunk))

    def upload_iter(
        self, records: Iterable[AnyRecord], *, chunk: int = UPLOAD_CHUNK
    ) -> Iterator[service_pb2.RecordSummary]:
        """Upload records in streams of ``chunk``, yielding each record's summary as the server
        stores it; ``index`` counts over all of ``records``.

        A stream that fails UNAVAILABLE is sent again from its first record without a summary
        (after backoff): a record whose batch was stored just before the failure then comes
        back STATUS_DUPLICATE, naming its game.
        """
        pending: list[service_pb2.UploadRecordsRequest] = []
        done = 0
        for request in as_requests(records):
            pending.append(request)
            if len(pending) >= chunk:
                yield from self._upload_chunk(pending, done)
                done += len(pending)
                pending = []
        if pending:
            yield from self._upload_chunk(pending, done)

    def _upload_chunk(
        self, requests: Sequence[service_pb2.UploadRecordsRequest], offset: int
    ) -> Iterator[service_pb2.RecordSummary]:
        received = 0
        for attempt in range(self.retry.attempts):
            start = received
            try:
                for summary in self.upload_stream(iter(requests[start:])):
                    summary.index += offset + start
                    received += 1
                    yield summary
                return
            except ServiceError as failure:
                if failure.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                if attempt + 1 == self.retry.attempts:
                    raise
            self.sleep(self.retry.delay(attempt, self._rng))

    def upload_stream(
        self, requests: Iterator[service_pb2.UploadRecordsRequest]
    ) -> Iterator[service_pb2.RecordSummary]:
        """One UploadRecords call fed by an iterator (the caller keeps within the server's
        limits), without retries: each summary as it comes."""
        responses = self.stub.UploadRecords(
            requests, timeout=self.upload_timeout, metadata=self.metadata
        )
        try:
            yield from responses
        except grpc.RpcError as error:
            raise ServiceError(error) from None
        finally:
            responses.cancel()  # a caller that stops reading ends the call

    def batch_upload(self, records: Iterable[AnyRecord]) -> list[service_pb2.RecordSummary]:
        """Upload a few records (at most 1,000 by default) in one call."""
        request = service_pb2.BatchUploadRecordsRequest(requests=list(as_requests(records)))
        return list(self._unary(self.stub.BatchUploadRecords, request).summaries)

    # -- audits ----------------------------------------------------------------------------

    def audit(
        self,
        record: records_pb2.GameRecord | records_pb2.MatchRecord,
        *,
        ruleset: str = "",
        overrides_json: str = "",
    ) -> audit_pb2.AuditReport | audit_pb2.MatchAuditReport:
        """Audit a record without storing it (a match gives a ``MatchAuditReport``), under its
        own ruleset or ``ruleset`` / ``overrides_json``."""
        request = service_pb2.AuditRecordRequest(
            ruleset=ruleset, ruleset_overrides_json=overrides_json
        )
        if isinstance(record, records_pb2.GameRecord):
            request.game.CopyFrom(record)
        else:
            request.match.CopyFrom(record)
        response = self._unary(self.stub.AuditRecord, request)
        if response.WhichOneof("result") == "match_report":
            return response.match_report
        return response.report

    # -- games and matches -----------------------------------------------------------------

    def get_game(self, game: str, *, steps: bool = False) -> service_pb2.Game:
        """A stored game with its record and audit (and its replay's steps when asked).
        ``game`` is a name (``games/…``), a game id or a record id."""
        view = service_pb2.GAME_VIEW_FULL if steps else service_pb2.GAME_VIEW_BASIC
        request = service_pb2.GetGameRequest(name=_name("games", game), view=view)
        return self._unary(self.stub.GetGame, request)

    def list_games(
        self,
        *,
        ruleset: str = "",
        player_id: str = "",
        finding_code: str = "",
        played_from: datetime | None = None,
        played_to: datetime | None = None,
        with_findings: bool | None = None,
        match: str = "",
        page_size: int = 0,
        page_token: str = "",
    ) -> GamePage:
        """One page of stored games matching the filters (``match``: a match's name or id)."""
        request = service_pb2.ListGamesRequest(
            ruleset=ruleset,
            player_id=player_id,
            finding_code=finding_code,
            match=_name("matches", match) if match else "",
            page_size=page_size,
            page_token=page_token,
        )
        if played_from is not None:
            request.played_from.FromDatetime(played_from)
        if played_to is not None:
            request.played_to.FromDatetime(played_to)
        if with_findings is not None:
            request.with_findings = with_findings
        response = self._unary(self.stub.ListGames, request)
        return GamePage(list(response.games), response.next_page_token, response.total_size)

    def games(self, **filters: Any) -> Iterator[service_pb2.Game]:
        """Every stored game matching the filters of ``list_games``, page after page."""
        token = ""
        while True:
            page = self.list_games(**filters, page_token=token)
            yield from page.games
            token = page.next_page_token
            if not token:
                return

    def reaudit_game(
        self, game: str, *, ruleset: str = "", overrides_json: str = ""
    ) -> audit_pb2.AuditReport:
        """Audit a stored game again (under another ruleset); the stored audit is unchanged."""
        request = service_pb2.ReauditGameRequest(
            name=_name("games", game), ruleset=ruleset, ruleset_overrides_json=overrides_json
        )
        return self._unary(self.stub.ReauditGame, request).report

    def analyze_game(self, game: str, *, window: int = 0) -> service_pb2.AnalyzeGameResponse:
        """A stored game's last ``window`` tricks solved (0: its ruleset's default, 4 or 5), each
        play's cost; analysis, not findings: nothing is stored."""
        request = service_pb2.AnalyzeGameRequest(name=_name("games", game), window=window)
        return self._unary(self.stub.AnalyzeGame, request)

    def get_match(self, match: str) -> service_pb2.Match:
        """A stored match (``matches/…``, its id or its match id): the match-level audit and
        the names of its hands."""
        request = service_pb2.GetMatchRequest(name=_name("matches", match))
        return self._unary(self.stub.GetMatch, request)

    # -- players ---------------------------------------------------------------------------

    def get_player_stats(
        self,
        player: str,
        *,
        ruleset: str = "",
        played_from: datetime | None = None,
        played_to: datetime | None = None,
    ) -> service_pb2.PlayerStats:
        """One player's statistics (``players/…`` or a player id) over the selected games."""
        request = service_pb2.GetPlayerStatsRequest(name=_name("players", player), ruleset=ruleset)
        if played_from is not None:
            request.played_from.FromDatetime(played_from)
        if played_to is not None:
            request.played_to.FromDatetime(played_to)
        return self._unary(self.stub.GetPlayerStats, request)

    def list_players(
        self,
        player_ids: Iterable[str] = (),
        *,
        ruleset: str = "",
        played_from: datetime | None = None,
        played_to: datetime | None = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> PlayerPage:
        """One page of the players of the selected games, with their statistics."""
        request = service_pb2.ListPlayersRequest(
            player_ids=list(player_ids),
            ruleset=ruleset,
            page_size=page_size,
            page_token=page_token,
        )
        if played_from is not None:
            request.played_from.FromDatetime(played_from)
        if played_to is not None:
            request.played_to.FromDatetime(played_to)
        response = self._unary(self.stub.ListPlayers, request)
        return PlayerPage(list(response.players), response.next_page_token, response.total_size)

    def players(
        self, player_ids: Iterable[str] = (), **filters: Any
    ) -> Iterator[service_pb2.PlayerStats]:
        """Every player of the selected games (the filters of ``list_players``), page after
        page."""
        ids = list(player_ids)
        token = ""
        while True:
            page = self.list_players(ids, **filters, page_token=token)
            yield from page.players
            token = page.next_page_token
            if not token:
                return

    # -- health ----------------------------------------------------------------------------

    def health(self, service: str = "") -> int:
        """The server's health status, a ``HealthCheckResponse.ServingStatus`` (``""``: the whole
        server)."""
        stub = health_pb2_grpc.HealthStub(self.channel)
        # types-grpcio-health-checking declares HealthStub without its methods (set in __init__).
        response = stub.Check(  # type: ignore[attr-defined]
            health_pb2.HealthCheckRequest(service=service), timeout=self.timeout
        )
        status: int = response.status
        return status
