"""Protobuf JSON (``google.protobuf.json_format``) of RecordFile, GameRecord or MatchRecord.

A file holds one object, an array of objects, or JSON Lines (one object per line). Each object
is checked field by field against the message schema first, so an error names its JSON path
(``$.tricks[3].plays[1].seat``) and what the schema expects there.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable
from typing import Any

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
    from chaodipi.auditor.jsondict import message_dict  # here: reading files does without it

    items = list(records)
    if len(items) == 1:
        return json.dumps(message_dict(items[0]), indent=2, ensure_ascii=False) + "\n"
    return "".join(json.dumps(message_dict(r), ensure_ascii=False) + "\n" for r in items)


def _scalar(fd: FieldDescriptor, value: Any, path: str) -> None:
    if fd.type == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise RecordError(path, f"expected a string, found {kind(value)}")
    elif fd.type == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise RecordError(path, f"expected true or false, found {kind(value)}")
    elif fd.type in _INTS:
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
    elif fd.type == FieldDescriptor.TYPE_ENUM:
        enum = fd.enum_type
        assert enum is not None
        names = [v.name for v in enum.values]
        if isinstance(value, str) and value not in names:
            raise RecordError(path, f"expected one of {', '.join(names)}, found {value!r}")
        if not isinstance(value, str) and (isinstance(value, bool) or not isinstance(value, int)):
            raise RecordError(path, f"expected an enum name ({names[1]}, ...), found {kind(value)}")
        if isinstance(value, int) and not -INT32 - 1 <= value <= INT32:
            raise RecordError(path, f"expected an enum name or a 32-bit number, found {value}")


def _check(descriptor: Descriptor, value: Any, path: str) -> None:
    """Raise ``RecordError`` at the first place ``value`` does not fit ``descriptor``."""
    if not isinstance(value, dict):
        raise RecordError(path, f"expected an object ({descriptor.name}), found {kind(value)}")
    fields: dict[str, FieldDescriptor] = {}
    for fd in descriptor.fields:
        fields[fd.json_name] = fd
        fields[fd.name] = fd
    oneofs: dict[str, str] = {}
    for key, item in value.items():
        where = f"{path}.{key}"
        if key not in fields:
            known = ", ".join(f.json_name for f in descriptor.fields)
            raise RecordError(where, f"unknown field of {descriptor.name}: expected one of {known}")
        fd = fields[key]
        if fd.containing_oneof is not None and item is not None:
            other = oneofs.setdefault(fd.containing_oneof.name, key)
            if other != key:
                raise RecordError(
                    where,
                    f"expected only one of the {fd.containing_oneof.name} "
                    f"fields, found both {other} and {key}",
                )
        if item is None:
            continue
        message = fd.message_type
        if message is not None and message.GetOptions().map_entry:
            if not isinstance(item, dict):
                raise RecordError(where, f"expected an object of strings, found {kind(item)}")
            for k, v in item.items():
                _scalar(message.fields_by_name["value"], v, f"{where}.{k}")
        elif fd.is_repeated:
            if not isinstance(item, list):
                raise RecordError(where, f"expected an array, found {kind(item)}")
            for i, element in enumerate(item):
                if message is not None:
                    _check(message, element, f"{where}[{i}]")
                else:
                    _scalar(fd, element, f"{where}[{i}]")
        elif message is not None:
            _check(message, item, where)
        else:
            _scalar(fd, item, where)


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
    _check(schema.DESCRIPTOR, value, path)
    from google.protobuf import json_format  # here: reading .pb files does without it

    try:
        message = json_format.ParseDict(value, schema())
    except json_format.ParseError as exc:
        raise RecordError(path, f"expected a {schema.DESCRIPTOR.name}: {exc}") from None
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
    when the text is none of these.
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
                return RecordError(
                    f"line {n} column {exc.colno}",
                    f"not valid JSON ({exc.msg}): expected one JSON value a line",
                )
        return values
    if isinstance(document, list) and not (one_document and one_document(document)):
        return [(f"$[{i}]", item) for i, item in enumerate(document)]
    return [("$", document)]


def read_json(text: str, file: str, strict: bool = False) -> ImportResult:
    """Records from protobuf JSON text; a bad record is reported with its JSON path and skipped."""
    out = Collector(file, strict)
    values = json_values(text)
    if isinstance(values, RecordError):
        out.problem(values.location, values.message)
        return out.result
    for path, value in values:
        try:
            out.add(record_from_json(value, path))
        except RecordError as exc:
            out.problem(exc.location, exc.message)
    return out.result
