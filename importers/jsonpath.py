"""Typed access to parsed JSON that fails with the JSON path and what was expected there."""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any

from chaodipi.auditor.reading import load_json
from chaodipi.importers.problems import RecordError

ENVELOPE = "gzip+base64"
ENVELOPE_LIMIT = 16 << 20
"""Bytes of JSON an envelope may inflate to (the 80-fen program stores at most 128 KiB)."""
INT32 = 2**31 - 1
"""The largest value of a record's int32 fields."""


def kind(value: Any) -> str:
    """A JSON type name for messages: ``a string``, ``an array``, ``null`` …"""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def key_path(path: str, key: str | int) -> str:
    """``$.a`` + ``b`` → ``$.a.b``; an index or a non-identifier key goes in brackets."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def obj(value: Any, path: str, what: str = "an object") -> dict[str, Any]:
    """``value`` as an object."""
    if not isinstance(value, dict):
        raise RecordError(path, f"expected {what}, found {kind(value)}")
    return value


def field(parent: dict[str, Any], key: str, path: str, what: str) -> Any:
    """A present member of an object."""
    if key not in parent:
        raise RecordError(key_path(path, key), f"missing: expected {what}")
    return parent[key]


def integer(value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a whole number within ``lo``..``hi``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(path, f"expected a whole number, found {kind(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if hi is None:
            bounds = f"at least {lo}"
        elif lo is None:
            bounds = f"at most {hi}"
        else:
            bounds = f"{lo} to {hi}" if lo < 0 else f"{lo}-{hi}"
        raise RecordError(path, f"expected a number {bounds}, found {value}")
    return value


def array(value: Any, path: str, length: int | None = None) -> list[Any]:
    """``value`` as an array, of ``length`` items when given."""
    if not isinstance(value, list):
        raise RecordError(path, f"expected an array, found {kind(value)}")
    if length is not None and len(value) != length:
        raise RecordError(path, f"expected {length} items, found {len(value)}")
    return value


def text(value: Any, path: str) -> str:
    """``value`` as a string."""
    if not isinstance(value, str):
        raise RecordError(path, f"expected a string, found {kind(value)}")
    return value


def parse_embedded(value: Any, path: str) -> Any:
    """A JSON value stored as a string (parsed) or directly."""
    if not isinstance(value, str):
        return value
    try:
        return load_json(value)
    except json.JSONDecodeError as exc:
        raise RecordError(path, f"expected JSON text inside the string: {exc.msg}") from None


def is_envelope(value: Any) -> bool:
    """Whether a value is a ``{"encoding": "gzip+base64", "data": …}`` envelope."""
    return isinstance(value, dict) and value.get("encoding") == ENVELOPE


def _gunzip(data: bytes, limit: int) -> bytes | None:
    """The gzip members of ``data`` inflated, or None beyond ``limit`` bytes (a zip bomb)."""
    out = bytearray()
    while data:
        member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        out += member.decompress(data, limit + 1 - len(out))
        if len(out) > limit:
            return None
        if not member.eof:
            raise EOFError("compressed data ended before the end-of-stream marker")
        data = member.unused_data
    return bytes(out)


def open_envelope(value: dict[str, Any], path: str) -> Any:
    """The JSON value inside a gzip+base64 envelope (at most ``ENVELOPE_LIMIT`` bytes of it)."""
    where = key_path(path, "data")
    data = text(field(value, "data", path, "base64 text of gzip data"), where)
    try:
        raw = _gunzip(base64.b64decode(data, validate=True), ENVELOPE_LIMIT)
        if raw is None:
            raise RecordError(
                where,
                f"expected at most {ENVELOPE_LIMIT} bytes of JSON inside "
                "the envelope: it inflates to more",
            )
        return load_json(raw.decode("utf-8"))
    except (binascii.Error, ValueError, EOFError, zlib.error) as exc:
        raise RecordError(where, f"expected base64 of gzip-compressed JSON: {exc}") from None
