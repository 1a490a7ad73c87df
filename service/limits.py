"""The service's one set of length and character rules, checked when a record or a request is
read, before any database sees it: SQLite and PostgreSQL then answer the same input alike (a
PostgreSQL text cannot hold NUL and its ``varchar(200)`` refuses 201 characters, while SQLite
takes both). The limits are listed in ``proto/chaodipi/v1/service.proto``, ``service/README.md``
and ``docs/reliability.md``.

>>> from chaodipi.v1 import records_pb2
>>> record = records_pb2.GameRecord(record_id="a\\x00b", played_at="0001-01-01T00:00:00+05:00")
>>> [(v.field, v.description) for v in record_violations(record)]  # doctest: +NORMALIZE_WHITESPACE
[('record_id', 'holds a control character (U+0000) at 1: ids are printable text'),
 ('played_at', 'out of range: it is before 0001-01-01 in UTC')]
>>> echo("x" * 50)
'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from chaodipi.v1 import audit_pb2, records_pb2

MAX_ID = 200
"""Characters in an id: record, match, game, player ids, a name's id, a filter's id."""
MAX_TEXT = 200
"""Characters in a player's display name, a venue, a client reference."""
MAX_PLAYERS = 4
"""Players of one game or match (a match needs exactly four: the auditor says so)."""
MAX_METADATA = 100
"""Entries of a record's metadata."""
MAX_METADATA_KEY = 200
MAX_METADATA_VALUE = 10_000
MAX_PLAYED_AT = 64
"""Characters of ``played_at`` (an RFC 3339 date-time needs about 35)."""
MAX_FILTER_IDS = 1000
"""Player ids in one statistics filter."""
MAX_PAGE_TOKEN = 512
"""Characters of a page token (the service's own are under 200)."""
MAX_VIOLATIONS = 100
"""Field violations in one error's details or one summary; the message counts the rest."""
MAX_DESCRIPTION = 300
"""Characters of one violation's description (a longer one is cut)."""
MAX_DETAIL_BYTES = 4096
"""Bytes of the violations an error status carries: gRPC sends them in a trailer, and clients
refuse trailers past 8 KiB (base64 makes 4 KiB about 5.5 KiB)."""
ECHO = 40
"""Characters of an id (or any caller's text) echoed back in a message."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


class BadArgument(ValueError):
    """A request argument that breaks the rules: INVALID_ARGUMENT, naming ``field``."""

    def __init__(self, field: str, description: str) -> None:
        super().__init__(f"{field}: {description}")
        self.field = field
        self.description = description


def echo(text: str, limit: int = ECHO) -> str:
    """Caller's text as a message may quote it: control characters escaped, cut to ``limit``
    characters (an ellipsis says it was cut)."""
    shown = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text[: limit + 1])
    return shown[:limit] + "…" if len(shown) > limit else shown


def id_problem(value: str, *, required: bool = True) -> str | None:
    """What is wrong with an id (None: nothing): empty when required, longer than ``MAX_ID``
    characters, or holding a control character."""
    if not value:
        return "is empty" if required else None
    if len(value) > MAX_ID:
        return f"has {len(value)} characters, at most {MAX_ID}"
    bad = _CONTROL.search(value)
    if bad is not None:
        return (
            f"holds a control character (U+{ord(bad.group()):04X}) at {bad.start()}: "
            "ids are printable text"
        )
    return None


def text_problem(value: str, limit: int) -> str | None:
    """What is wrong with a free text (None: nothing): longer than ``limit`` or holding NUL."""
    if len(value) > limit:
        return f"has {len(value)} characters, at most {limit}"
    if "\x00" in value:
        return f"holds a NUL character at {value.index(chr(0))}"
    return None


def played_at_problem(text: str) -> str | None:
    """What is wrong with a record's ``played_at`` (None: empty or a time both databases hold)."""
    if not text:
        return None
    if len(text) > MAX_PLAYED_AT:
        return f"has {len(text)} characters, at most {MAX_PLAYED_AT}"
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return "not an RFC 3339 date-time, e.g. 2026-10-01T19:30:00+08:00"
    if value.tzinfo is None:
        return None  # read as UTC: within 1..9999 as it is
    try:
        value.astimezone(UTC)
    except OverflowError:
        bound = "before 0001-01-01" if value.year == 1 else "after 9999-12-31"
        return f"out of range: it is {bound} in UTC"
    return None


def _players(players: Sequence[records_pb2.Player], prefix: str) -> Iterable[tuple[str, str]]:
    if len(players) > MAX_PLAYERS:
        yield f"{prefix}players", f"{len(players)} players, at most {MAX_PLAYERS}"
        return
    for i, player in enumerate(players):
        problem = id_problem(player.id, required=False)
        if problem:
            yield f"{prefix}players[{i}].id", problem
        problem = text_problem(player.display_name, MAX_TEXT)
        if problem:
            yield f"{prefix}players[{i}].display_name", problem


def _game(record: records_pb2.GameRecord, prefix: str) -> Iterable[tuple[str, str]]:
    problem = id_problem(record.record_id, required=False)
    if problem:
        yield f"{prefix}record_id", problem
    yield from _players(record.players, prefix)
    problem = played_at_problem(record.played_at)
    if problem:
        yield f"{prefix}played_at", problem
    problem = text_problem(record.venue, MAX_TEXT)
    if problem:
        yield f"{prefix}venue", problem
    if len(record.metadata) > MAX_METADATA:
        yield f"{prefix}metadata", f"{len(record.metadata)} entries, at most {MAX_METADATA}"
        return
    for key, value in record.metadata.items():
        problem = text_problem(key, MAX_METADATA_KEY)
        if problem:
            yield f"{prefix}metadata[{echo(key)}]", f"its key {problem}"
        problem = text_problem(value, MAX_METADATA_VALUE)
        if problem:
            yield f"{prefix}metadata[{echo(key)}]", problem


def record_violations(
    record: records_pb2.GameRecord | records_pb2.MatchRecord,
) -> list[audit_pb2.FieldViolation]:
    """The record's breaches of the service's rules (empty: it may be stored), each naming its
    field. O(size of the record's texts); nothing of the game itself is read (the auditor does
    that)."""
    found: list[tuple[str, str]] = []
    if isinstance(record, records_pb2.GameRecord):
        found.extend(_game(record, ""))
    else:
        problem = id_problem(record.match_id, required=False)
        if problem:
            found.append(("match_id", problem))
        found.extend(_players(record.players, ""))
        for i, hand in enumerate(record.hands):
            found.extend(_game(hand, f"hands[{i}]."))
    return [audit_pb2.FieldViolation(field=f, description=d) for f, d in found]


@dataclass(frozen=True, slots=True)
class Bounded:
    """Violations cut to ``MAX_VIOLATIONS`` (each description to ``MAX_DESCRIPTION``
    characters), and how many were left out."""

    violations: tuple[audit_pb2.FieldViolation, ...]
    left_out: int

    def count_text(self) -> str:
        """`` (and N more)`` when some were left out, else empty."""
        return f" (and {self.left_out} more)" if self.left_out else ""


def bounded(
    violations: Sequence[audit_pb2.FieldViolation], max_bytes: int | None = None
) -> Bounded:
    """At most ``MAX_VIOLATIONS`` violations (and, with ``max_bytes``, no more than fit in that
    many bytes serialized), each with a description of at most ``MAX_DESCRIPTION`` and a field
    of at most ``MAX_ID`` characters."""
    kept: list[audit_pb2.FieldViolation] = []
    size = 0
    for v in violations[:MAX_VIOLATIONS]:
        shown = audit_pb2.FieldViolation(
            field=echo(v.field, MAX_ID), description=echo(v.description, MAX_DESCRIPTION)
        )
        size += shown.ByteSize() + 3  # the field's tag and length in the repeated field
        if max_bytes is not None and size > max_bytes:
            break
        kept.append(shown)
    return Bounded(tuple(kept), len(violations) - len(kept))


def check_id(field: str, value: str, *, required: bool = True) -> str:
    """``value`` when it is a valid id, else ``BadArgument`` naming ``field``."""
    problem = id_problem(value, required=required)
    if problem:
        raise BadArgument(field, problem)
    return value


def check_ids(field: str, values: Sequence[str]) -> tuple[str, ...]:
    """Filter ids: at most ``MAX_FILTER_IDS``, each a valid id."""
    if len(values) > MAX_FILTER_IDS:
        raise BadArgument(field, f"{len(values)} ids, at most {MAX_FILTER_IDS}")
    for i, value in enumerate(values):
        check_id(f"{field}[{i}]", value)
    return tuple(values)
