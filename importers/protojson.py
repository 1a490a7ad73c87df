"""Protobuf JSON (``google.protobuf.json_format``) of RecordFile, GameRecord or MatchRecord.

A file holds one object, an array of objects, or JSON Lines (one object per line; a line that
is not JSON is a problem of its own). Each object is checked against the message schema field
by field as it is read, so an error names its JSON path (``$.tricks[3].plays[1].seat``) and
what the schema expects there.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from chaodipi.auditor.reading import load_json
from chaodipi.importers.jsonpath import INT32, kind
from chaodipi.importers.problems import Collector, ImportResult, RecordError
from chaodipi.importers.tokens import bad_token
from chaodipi.v1 import records_pb2

_INTS = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_FIXED64,
}
_MATCH_ONLY = {"matchId", "match_id", "hands", "claimedResult", "claimed_result"}


def write_json(records: Iterable[records_pb2.RecordFile]) -> str:
    """One pretty JSON object for a single record, else JSON Lines (one RecordFile a line)."""
    # Here: reading files does without them.
    from chaodipi.auditor.jsondict import message_dict, message_json

    items = list(records)
    if len(items) == 1:
        return json.dumps(message_dict(items[0]), indent=2, ensure_ascii=False) + "\n"
    return "".join(message_json(r) + "\n" for r in items)


def _scalar(fd: FieldDescriptor, value: Any, path: str) -> Any:
    """``value`` as field ``fd`` holds it (a number written as digits read as a number, an enum
    name as its number), or ``RecordError`` naming what the field expects."""
    if fd.type == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise RecordError(path, f"expected a string, found {kind(value)}")
        return value
    if fd.type == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise RecordError(path, f"expected true or false, found {kind(value)}")
        return value
    if fd.type in _INTS:
        number = value
        if isinstance(value, str) and value.lstrip("-").isdigit():
            with contextlib.suppress(ValueError):  # digits int() cannot read: "²", 4,301 of them
                number = int(value)
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        if isinstance(number, bool) or not isinstance(number, int):
            raise RecordError(path, f"expected a whole number, found {kind(value)}")
        if fd.type == FieldDescriptor.TYPE_INT32 and not -(2**31) <= number < 2**31:
            raise RecordError(path, f"expected a 32-bit whole number, found {number}")
        return number
    assert fd.type == FieldDescriptor.TYPE_ENUM  # the records' fields are of these types only
    enum = fd.enum_type
    assert enum is not None
    if isinstance(value, str):
        found = enum.values_by_name.get(value)
        if found is None:
            names = ", ".join(v.name for v in enum.values)
            raise RecordError(path, f"expected one of {names}, found {value!r}")
        return found.number
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(
            path, f"expected an enum name ({enum.values[1].name}, ...), found {kind(value)}"
        )
    if not -INT32 - 1 <= value <= INT32:
        raise RecordError(path, f"expected an enum name or a 32-bit number, found {value}")
    return value


_SCALAR, _MESSAGE, _SCALARS, _MESSAGES, _MAP = range(5)
_Key = tuple[FieldDescriptor, str, str | None, int, FieldDescriptor, bool, bool]
"""How a JSON key is read: its field, the field's name, its oneof's name (or None), how its
value is read (``_SCALAR`` … ``_MAP``), the field whose scalars it holds (a map's value),
whether they are strings, and whether the field has two keys (JSON and proto names differ:
an object could give it twice)."""


def _keys(message: Message) -> tuple[dict[str, _Key], Descriptor]:
    """A message type's fields by the keys that name them in JSON (JSON and proto names),
    each with how it is read, worked out once a type."""
    found = _KEYS.get(type(message))
    if found is None:
        # The C extension's descriptor has the pure-Python one's API; the stubs type them apart.
        descriptor = cast(Descriptor, message.DESCRIPTOR)
        keys: dict[str, _Key] = {}
        for fd in descriptor.fields:
            inner = fd.message_type
            scalar_fd = fd
            if inner is not None and inner.GetOptions().map_entry:
                how, scalar_fd = _MAP, inner.fields_by_name["value"]
            elif inner is not None:
                how = _MESSAGES if fd.is_repeated else _MESSAGE
            else:
                how = _SCALARS if fd.is_repeated else _SCALAR
            oneof = fd.containing_oneof
            text = scalar_fd.type == FieldDescriptor.TYPE_STRING
            keys[fd.json_name] = keys[fd.name] = (
                fd,
                fd.name,
                None if oneof is None else oneof.name,
                how,
                scalar_fd,
                text,
                fd.json_name != fd.name,
            )
        found = _KEYS[type(message)] = (keys, descriptor)
    return found


_KEYS: dict[type[Message], tuple[dict[str, _Key], Descriptor]] = {}


def _read(message: Message, value: Any, path: str) -> None:
    """Set ``value``, the JSON form of ``message``'s type, into ``message`` as
    ``json_format.ParseDict`` would (null leaves a field unset, a message given as ``{}`` is
    set), or raise ``RecordError`` at the first place it does not fit, with its JSON path and
    what the schema expects there. One walk of the value, each field read once; a key's path
    is written out only when a message is read below it or a problem names it."""
    keys, descriptor = _keys(message)
    if not isinstance(value, dict):
        raise RecordError(path, f"expected an object ({descriptor.name}), found {kind(value)}")
    oneofs: dict[str, str] = {}
    given: dict[str, str] = {}
    for key, item in value.items():
        found = keys.get(key)
        if found is None:
            known = ", ".join(f.json_name for f in descriptor.fields)
            raise RecordError(
                f"{path}.{key}", f"unknown field of {descriptor.name}: expected one of {known}"
            )
        fd, name, oneof, how, scalar_fd, text, aliased = found
        if oneof is not None and item is not None:
            other = oneofs.setdefault(oneof, key)
            if other != key:
                raise RecordError(
                    f"{path}.{key}",
                    f"expected only one of the {oneof} fields, found both {other} and {key}",
                )
        if aliased:
            twice = given.setdefault(name, key)
            if twice != key:
                raise RecordError(
                    f"{path}.{key}", f"expected {fd.json_name} once, found {twice} and {key}"
                )
        if item is None:
            continue
        if how == _SCALAR:
            scalar = item if text and type(item) is str else _scalar(fd, item, f"{path}.{key}")
            try:
                setattr(message, name, scalar)
            except ValueError as exc:
                raise _unfit(f"{path}.{key}", scalar, exc) from None
        elif how == _MESSAGES:
            if not isinstance(item, list):
                raise RecordError(f"{path}.{key}", f"expected an array, found {kind(item)}")
            elements = getattr(message, name)
            for i, element in enumerate(item):
                _read(elements.add(), element, f"{path}.{key}[{i}]")
        elif how == _SCALARS:
            if not isinstance(item, list):
                raise RecordError(f"{path}.{key}", f"expected an array, found {kind(item)}")
            _extend(getattr(message, name), fd, item, text, f"{path}.{key}")
        elif how == _MESSAGE:
            child = getattr(message, name)
            child.SetInParent()  # set, even when given as {}
            _read(child, item, f"{path}.{key}")
        else:
            where = f"{path}.{key}"
            if not isinstance(item, dict):
                raise RecordError(where, f"expected an object of strings, found {kind(item)}")
            entries = getattr(message, name)
            for k, v in item.items():
                scalar = _scalar(scalar_fd, v, f"{where}.{k}")
                try:
                    entries[k] = scalar
                except ValueError as exc:
                    raise _unfit(f"{where}.{k}", scalar, exc) from None


def _extend(elements: Any, fd: FieldDescriptor, items: list[Any], text: bool, where: str) -> None:
    """Append a repeated scalar field's JSON elements: strings, the usual, all at once."""
    if text:
        try:
            elements.extend(items)
            return
        except (TypeError, ValueError):  # one is no string, or not text: found at its index
            del elements[:]
    for i, item in enumerate(items):
        scalar = _scalar(fd, item, f"{where}[{i}]")
        try:
            elements.append(scalar)
        except ValueError as exc:
            raise _unfit(f"{where}[{i}]", scalar, exc) from None


def _unfit(where: str, scalar: Any, exc: ValueError) -> RecordError:
    """Why a value of the right type does not fit its field: a string that is not text (an
    unpaired surrogate, which no UTF-8 holds) or a number past the field's range."""
    if isinstance(exc, UnicodeEncodeError):
        return RecordError(where, "expected text, found a string with an unpaired surrogate")
    return RecordError(where, f"expected a number the field holds, found {scalar}")


def record_from_json(value: Any, path: str) -> records_pb2.RecordFile:
    """A RecordFile from the JSON form of a RecordFile, GameRecord or MatchRecord."""
    if not isinstance(value, dict):
        raise RecordError(path, f"expected an object (a record), found {kind(value)}")
    schema: type[Message]
    if "game" in value or "match" in value:
        schema = records_pb2.RecordFile
    elif _MATCH_ONLY & value.keys():
        schema = records_pb2.MatchRecord
    else:
        schema = records_pb2.GameRecord
    message = schema()
    _read(message, value, path)
    if isinstance(message, records_pb2.GameRecord):
        record = records_pb2.RecordFile(game=message)
    elif isinstance(message, records_pb2.MatchRecord):
        record = records_pb2.RecordFile(match=message)
    else:
        assert isinstance(message, records_pb2.RecordFile)
        record = message
        if record.WhichOneof("record") is None:
            raise RecordError(path, "expected a RecordFile holding a game or a match")
    found = bad_token(message, path, json_names=True)
    if found:
        raise RecordError(*found)
    return record


def json_values(
    text: str, one_document: Callable[[list[Any]], bool] | None = None
) -> list[tuple[str, Any]] | RecordError:
    """The JSON values of a file with their locations: one document, an array, or JSON Lines.

    A top-level array is a list of documents unless ``one_document`` says it is one (a
    format whose document is itself an array). Returns the error (with line and column)
    when the text is none of these. In JSON Lines (a first line that is a JSON value), a
    later line that is not is given as its error, in its place (``documents`` reports it).
    """
    try:
        document = load_json(text)
    except json.JSONDecodeError as whole:
        lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
        values: list[tuple[str, Any]] = []
        for n, line in lines:
            try:
                values.append((f"line {n}: $", load_json(line)))
            except json.JSONDecodeError as exc:
                if not values:
                    return RecordError(
                        f"line {whole.lineno} column {whole.colno}",
                        f"not valid JSON ({whole.msg}): expected one JSON value or JSON Lines",
                    )
                # JSON Lines with a bad line: that line is the problem, the others are read.
                bad = RecordError(
                    f"line {n} column {exc.colno}",
                    f"not valid JSON ({exc.msg}): expected one JSON value a line",
                )
                values.append((f"line {n}: $", bad))
        return values
    if isinstance(document, list) and not (one_document and one_document(document)):
        return [(f"$[{i}]", item) for i, item in enumerate(document)]
    return [("$", document)]


def documents(values: list[tuple[str, Any]], out: Collector) -> Iterator[tuple[int, str, Any]]:
    """The documents of ``json_values`` with their places; a JSON Lines line that is not JSON
    is reported to ``out`` where it stands, and the others are read."""
    for i, (path, value) in enumerate(values):
        if isinstance(value, RecordError):
            out.problem(value.location, value.message)
        else:
            yield i, path, value


def read_json(text: str, file: str, strict: bool = False) -> ImportResult:
    """Records from protobuf JSON text; a bad record is reported with its JSON path and skipped."""
    out = Collector(file, strict)
    values = json_values(text)
    if isinstance(values, RecordError):
        out.problem(values.location, values.message)
        return out.result
    for _, path, value in documents(values, out):
        try:
            out.add(record_from_json(value, path))
        except RecordError as exc:
            out.problem(exc.location, exc.message)
    return out.result
