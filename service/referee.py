"""``chaodipi.v1.RefereeService``: the live referee over gRPC, thin over ``auditor.referee``.

One stream is one table. Each request is judged on the event loop, in this process, by the
pure ``Referee`` (one replay step, well under a millisecond): a verdict never waits for an
upload's audit, which runs in the audit workers. When the hand is over its record and audit go
to the store as one record of an upload would (``uploads.store``: in a store worker process
beside audit workers, so that writing it holds up no other table's verdict), and the stream
ends with that record's summary.

Besides the audit's reading of each event, the table's texts follow the records' rules
(``limits.record_violations``: ids, names, players, metadata, played_at), checked when the
table opens; a request that cannot be read is VERDICT_RESULT_INVALID; past ``MAX_REQUESTS``
requests the stream ends RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from chaodipi.auditor.referee import Referee as HandReferee
from chaodipi.auditor.referee import Stage
from chaodipi.service.context import STREAM, TENANT, State
from chaodipi.service.errors import LimitExceeded
from chaodipi.service.limits import record_violations
from chaodipi.service.uploads import store
from chaodipi.v1 import audit_pb2, records_pb2, referee_pb2, referee_pb2_grpc, service_pb2

MAX_REQUESTS = 2000
"""Requests one stream may send (refused ones count): a hand is a few hundred events."""

Context = grpc.aio.ServicerContext[Any, Any]


def _invalid(violations: list[audit_pb2.FieldViolation]) -> referee_pb2.RefereeResponse:
    first = violations[0]
    reason = f"{first.field}: {first.description}"
    if len(violations) > 1:
        reason += f" (and {len(violations) - 1} more)"
    verdict = referee_pb2.Verdict(result=referee_pb2.VERDICT_RESULT_INVALID, reason=reason)
    verdict.violations.extend(violations[:100])
    return referee_pb2.RefereeResponse(verdict=verdict)


def _table_violations(table: referee_pb2.OpenTable) -> list[audit_pb2.FieldViolation]:
    """The records' rules on the table's texts and players, with paths under ``open``."""
    header = records_pb2.GameRecord(
        record_id=table.record_id,
        players=table.players,
        played_at=table.played_at,
        venue=table.venue,
        metadata=table.metadata,
    )
    return [
        audit_pb2.FieldViolation(field=f"open.{v.field}", description=v.description)
        for v in record_violations(header)
    ]


class RefereeServicer(referee_pb2_grpc.RefereeServiceServicer):
    """``chaodipi.v1.RefereeService`` for the caller's tenant (``context.TENANT``)."""

    def __init__(self, state: State) -> None:
        self.state = state

    async def Referee(
        self, request_iterator: AsyncIterator[referee_pb2.RefereeRequest], context: Context
    ) -> AsyncIterator[referee_pb2.RefereeResponse]:
        """Judge each event of the stream's table; store the hand once it is played out."""
        tenant = TENANT.get()
        read = STREAM.get()
        referee = HandReferee()
        index = 0
        async for request in request_iterator:
            if index >= MAX_REQUESTS:
                raise LimitExceeded(
                    f"a referee stream holds at most {MAX_REQUESTS} requests (one hand)"
                )
            unreadable = read.take(index)
            opening = request.HasField("open") and referee.stage is Stage.CLOSED
            problems = _table_violations(request.open) if opening else []
            if unreadable is not None:
                why = audit_pb2.FieldViolation(field="request", description=unreadable)
                response = _invalid([why])
            elif problems:
                response = _invalid(problems)
            else:
                response = referee.handle(request)
            response.index = index
            yield response
            if referee.report is not None:
                summary = await self._store(tenant, referee)
                yield referee_pb2.RefereeResponse(index=index, stored=summary)
                return
            index += 1

    async def _store(self, tenant: int, referee: HandReferee) -> service_pb2.RecordSummary:
        """Store the finished hand as an upload of its record is stored."""
        assert referee.report is not None
        upload = service_pb2.UploadRecordsRequest(game=referee.record)
        async with self.state.calls.budget(None) as budget:
            summaries = await store(
                self.state.upload_store_executor,
                self.state.sessions,
                budget,
                tenant,
                0,
                [upload],
                [referee.report],
            )
        return summaries[0]
