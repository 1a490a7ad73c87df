"""How a call fails: the exceptions servicers raise, and the one place that turns any exception
into a gRPC status, so that no call answers UNKNOWN and no message carries SQL, a Python
exception's name or a file path.

- ``BadArgument`` (``service.limits``) and ``InvalidRequest``: INVALID_ARGUMENT, with a
  ``google.rpc.BadRequest`` of at most ``MAX_VIOLATIONS`` field violations in at most
  ``MAX_DETAIL_BYTES`` (the message counts the rest);
- ``NotFound``: NOT_FOUND; ``LimitExceeded``: RESOURCE_EXHAUSTED;
- ``BudgetSpent``: DEADLINE_EXCEEDED or CANCELLED, as the call ended;
- a database out of reach, or a worker process that died under the call's work (the pool is
  started anew, ``service.workers``): UNAVAILABLE (the call may be retried: uploads are
  idempotent);
- anything else: INTERNAL, with a reference that finds the traceback in the server's log.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any, NoReturn

import grpc
from google.protobuf.message import DecodeError
from google.rpc import (  # type: ignore[import-untyped]  # has .pyi files but no py.typed
    code_pb2,
    error_details_pb2,
    status_pb2,
)
from grpc_status import rpc_status
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from chaodipi.service.limits import MAX_DETAIL_BYTES, BadArgument, bounded
from chaodipi.v1 import audit_pb2

log = logging.getLogger("chaodipi.service")


class InvalidRequest(Exception):
    """A request with malformed fields: INVALID_ARGUMENT naming each."""

    def __init__(self, message: str, violations: Sequence[audit_pb2.FieldViolation]) -> None:
        super().__init__(message)
        self.message = message
        self.violations = violations


def not_readable(type_name: str, exc: DecodeError) -> str:
    """Why a request message does not parse as its type ``type_name`` (a full protobuf name)."""
    return f"not a readable {type_name} message: {exc}"


class Unreadable(InvalidRequest):
    """A request message that does not parse as its type: INVALID_ARGUMENT under ``request``."""

    def __init__(self, type_name: str, exc: DecodeError) -> None:
        why = audit_pb2.FieldViolation(field="request", description=not_readable(type_name, exc))
        super().__init__("the request cannot be read", [why])


class NotFound(Exception):
    """A well-formed name of nothing the caller's tenant holds: NOT_FOUND."""


class LimitExceeded(Exception):
    """A request past one of the server's limits: RESOURCE_EXHAUSTED."""


class BudgetSpent(Exception):
    """The call was cancelled or its deadline passed while it worked."""


async def abort_bad_request(
    context: grpc.aio.ServicerContext[Any, Any],
    message: str,
    violations: Sequence[audit_pb2.FieldViolation],
) -> NoReturn:
    """End the call INVALID_ARGUMENT with a ``google.rpc.BadRequest`` small enough for any
    client to read (``MAX_DETAIL_BYTES``); the message counts the violations left out."""
    shown = bounded(violations, MAX_DETAIL_BYTES)
    detail = error_details_pb2.BadRequest()
    for v in shown.violations:
        detail.field_violations.add(field=v.field, description=v.description)
    status = status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=message + shown.count_text())
    status.details.add().Pack(detail)
    await context.abort_with_status(rpc_status.to_status(status))
    raise AssertionError("abort_with_status returned")  # abort always raises


def _unreachable(exc: BaseException) -> bool:
    if isinstance(exc, (OperationalError, InterfaceError)):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


async def abort_for(
    context: grpc.aio.ServicerContext[Any, Any], exc: Exception, method: str
) -> NoReturn:
    """End the call with the status ``exc`` stands for (see the module's list)."""
    if isinstance(exc, grpc.aio.AbortError):
        raise exc  # the status is set already
    if isinstance(exc, BadArgument):
        violation = audit_pb2.FieldViolation(field=exc.field, description=exc.description)
        await abort_bad_request(context, f"bad {exc.field}", [violation])
    if isinstance(exc, InvalidRequest):
        await abort_bad_request(context, exc.message, exc.violations)
    if isinstance(exc, NotFound):
        await context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
    if isinstance(exc, LimitExceeded):
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
    if isinstance(exc, BudgetSpent):
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "the deadline passed")
        await context.abort(grpc.StatusCode.CANCELLED, "the call was cancelled")
    if _unreachable(exc):
        log.warning("%s: the database is out of reach: %s", method, exc)
        await context.abort(
            grpc.StatusCode.UNAVAILABLE, "the database is unavailable: try again shortly"
        )
    if isinstance(exc, BrokenProcessPool):
        log.warning("%s: a worker process died under the call's work", method)
        await context.abort(
            grpc.StatusCode.UNAVAILABLE,
            "a worker process of the server stopped and is started anew: try again (an upload's "
            "records that got no summary were not stored)",
        )
    reference = secrets.token_hex(4)
    log.error("%s failed (reference %s)", method, reference, exc_info=exc)
    await context.abort(
        grpc.StatusCode.INTERNAL,
        f"internal error (reference {reference}): the server's log has the details",
    )
    raise AssertionError("abort returned")  # abort always raises
