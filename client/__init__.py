"""A typed client for ``chaodipi.v1.AuditService`` (blocking; one channel per client).

>>> with AuditClient("127.0.0.1:50051") as client:        # doctest: +SKIP
...     summaries = client.upload([generate_hand("classic", 1)])
...     replay = client.get_replay(summaries[0].game_id, include_steps=True)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from types import TracebackType

import grpc
from google.rpc import error_details_pb2  # type: ignore[import-untyped]  # no py.typed marker
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from chaodipi.service.ingest import AnyRecord, as_requests
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2, service_pb2_grpc

UPLOAD_CHUNK = 10_000
"""Records per Upload stream; the server caps a stream's records, so longer inputs are split."""


def field_violations(error: grpc.RpcError) -> list[tuple[str, str]]:
    """The ``google.rpc.BadRequest`` field violations of an error, as (field, description)."""
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


class AuditClient:
    """Calls the service at ``target`` (``host:port``), with an API key when given."""

    def __init__(
        self,
        target: str,
        *,
        api_key: str | None = None,
        timeout: float | None = 60.0,
        channel: grpc.Channel | None = None,
    ) -> None:
        self.channel = channel or grpc.insecure_channel(
            target, options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        )
        self.stub = service_pb2_grpc.AuditServiceStub(self.channel)
        self.metadata = (("authorization", f"Bearer {api_key}"),) if api_key else ()
        self.timeout = timeout

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

    def upload(
        self, records: Iterable[AnyRecord], *, chunk: int = UPLOAD_CHUNK
    ) -> list[service_pb2.RecordSummary]:
        """Upload records (hands, matches, ``RecordFile``s or ready requests); one summary each,
        in order, with ``index`` counted over all of ``records``."""
        out: list[service_pb2.RecordSummary] = []
        pending: list[service_pb2.UploadRequest] = []
        for request in as_requests(records):
            pending.append(request)
            if len(pending) >= chunk:
                out.extend(self._upload_stream(pending, len(out)))
                pending = []
        if pending or not out:
            out.extend(self._upload_stream(pending, len(out)))
        return out

    def _upload_stream(
        self, requests: list[service_pb2.UploadRequest], offset: int
    ) -> list[service_pb2.RecordSummary]:
        response = self.upload_stream(iter(requests))
        for summary in response.results:
            summary.index += offset
        return list(response.results)

    def upload_stream(
        self, requests: Iterator[service_pb2.UploadRequest]
    ) -> service_pb2.UploadResponse:
        """One Upload call fed by an iterator (the caller keeps within the server's cap)."""
        return self.stub.Upload(requests, timeout=self.timeout, metadata=self.metadata)

    def audit(
        self,
        record: records_pb2.GameRecord | records_pb2.MatchRecord,
        *,
        ruleset: str = "",
        overrides_json: str = "",
    ) -> audit_pb2.AuditReport | audit_pb2.MatchAuditReport:
        """Audit a record without storing it (a match gives a ``MatchAuditReport``)."""
        request = service_pb2.AuditRequest(
            ruleset_override=ruleset, ruleset_overrides_json=overrides_json
        )
        if isinstance(record, records_pb2.GameRecord):
            request.game.CopyFrom(record)
        else:
            request.match.CopyFrom(record)
        response = self.stub.Audit(request, timeout=self.timeout, metadata=self.metadata)
        if response.WhichOneof("result") == "match_report":
            return response.match_report
        return response.report

    def get_replay(self, game_id: str, *, include_steps: bool = False) -> service_pb2.Replay:
        """A stored game with its audit (and per-step states when asked)."""
        request = service_pb2.GetReplayRequest(game_id=game_id, include_steps=include_steps)
        return self.stub.GetReplay(request, timeout=self.timeout, metadata=self.metadata).replay

    def list_games(
        self,
        *,
        ruleset: str = "",
        player_id: str = "",
        finding_code: str = "",
        played_from: datetime | None = None,
        played_to: datetime | None = None,
        with_findings: bool | None = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> service_pb2.ListGamesResponse:
        """One page of stored games matching the filters."""
        request = service_pb2.ListGamesRequest(
            ruleset=ruleset,
            player_id=player_id,
            finding_code=finding_code,
            page_size=page_size,
            page_token=page_token,
        )
        if played_from is not None:
            request.played_from.FromDatetime(played_from)
        if played_to is not None:
            request.played_to.FromDatetime(played_to)
        if with_findings is not None:
            request.with_findings = with_findings
        return self.stub.ListGames(request, timeout=self.timeout, metadata=self.metadata)

    def player_stats(
        self,
        player_ids: Iterable[str] = (),
        *,
        ruleset: str = "",
        played_from: datetime | None = None,
        played_to: datetime | None = None,
    ) -> list[service_pb2.PlayerStats]:
        """Statistics per player over the selected games."""
        request = service_pb2.PlayerStatsRequest(player_ids=list(player_ids), ruleset=ruleset)
        if played_from is not None:
            request.played_from.FromDatetime(played_from)
        if played_to is not None:
            request.played_to.FromDatetime(played_to)
        response = self.stub.PlayerStats(request, timeout=self.timeout, metadata=self.metadata)
        return list(response.players)

    def reaudit(
        self, game_id: str, *, ruleset: str = "", overrides_json: str = ""
    ) -> audit_pb2.AuditReport:
        """Audit a stored game again (under another ruleset); the stored audit is unchanged."""
        request = service_pb2.ReauditRequest(
            game_id=game_id, ruleset=ruleset, ruleset_overrides_json=overrides_json
        )
        return self.stub.Reaudit(request, timeout=self.timeout, metadata=self.metadata).report

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
