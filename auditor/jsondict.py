"""Messages as ProtoJSON, planned per type: ``json_format.MessageToDict``'s dict, and its text.

``MessageToDict`` works out how to write a field from its descriptor each time it meets one
(its JSON name, whether it is a map, an enum, a 64-bit integer, a float); a hand's report holds
a few hundred fields, and that was most of the cost of ``chaodipi audit --json`` and of the
batch's JSON reports. Here each message type's fields are planned once, as a JSON name and a
conversion, and a message is read with ``ListFields`` (its set fields in field-number order, as
``MessageToDict`` reads them), so the dicts are equal and keep the same key order.

``message_json`` writes the text ``json.dumps`` gives for that dict (``ensure_ascii=False``,
one line) without making the dict: ``chaodipi audit --json`` spent about as long encoding a
report's dict as making it. Its plan gives each field its member's opening (``"name": ``) and
a writer of the value's text: a message's own text, a list or object of messages' texts, the
commonest scalars written directly, and any other value converted as for the dict and encoded
by ``json``'s encoder, so both say the same. The texts of a type of scalars only are kept by
their messages' encodings: such messages are small and repeat (a report's trick results, a
record's plays), and encoding one costs a fraction of reading its fields.

``MessageToDict``'s default options only: JSON names, enums by name (an unknown number as
itself), 64-bit integers as strings, bytes in base64, floats with ``NaN`` and ``Infinity`` as
strings, fields without presence left out when unset. A message of a type whose JSON form is
its own (the well-known types: timestamps, wrappers, ``Struct``…), of one with an enum value
that has options (which may rename it in JSON) or of one that can hold extensions is handed to
``MessageToDict``, so the answer is always the same.

>>> from chaodipi.v1 import audit_pb2
>>> message_dict(audit_pb2.FieldViolation(field="tricks[3]", description="no such card"))
{'field': 'tricks[3]', 'description': 'no such card'}
>>> message_json(audit_pb2.Finding(code="REVOKE", severity=audit_pb2.SEVERITY_BREACH))
'{"code": "REVOKE", "severity": "SEVERITY_BREACH"}'
"""

from __future__ import annotations

import json
import math
from base64 import b64encode
from collections.abc import Callable, Sequence
from json.encoder import encode_basestring
from typing import Any, Final, cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.internal.type_checkers import ToShortestFloat
from google.protobuf.message import Message

__all__ = ["message_dict", "message_json"]

_Convert = Callable[[Any], Any]
_Write = Callable[[Any], str]


class _Plan:
    """How a message type's set fields are written, by field."""

    def __init__(self, kind: type[Message]) -> None:
        # The type's own ListFields, called unbound: a message's attribute lookup tries its
        # field names first.
        self.list_fields: Callable[[Message], Sequence[tuple[FieldDescriptor, Any]]] = (
            kind.ListFields
        )
        self.values: dict[FieldDescriptor, tuple[str, _Convert | None]] = {}
        """Its JSON name and how its value is written in the dict (None: as it is)."""
        self.texts: dict[FieldDescriptor, tuple[str, _Write]] = {}
        """Its member's opening, ``"name": ``, and how its value is written as JSON text."""
        self.serialize: Callable[[Message], bytes] = kind.SerializeToString
        self.known: dict[bytes, str] | None = None
        """For a type of scalar fields only, the texts of its messages by their encodings."""


_PLANS: Final[dict[type[Message], _Plan]] = {}
"""Each message class's plan, made when first met (``_plan_of``)."""
_THEIRS: Final = _Plan(Message)
"""The plan of a type ``MessageToDict`` writes (its fields never followed)."""

_OWN_FORMS: Final = frozenset(
    f"google.protobuf.{name}"
    for name in (
        *("Any", "Duration", "FieldMask", "ListValue", "Struct", "Timestamp", "Value"),
        *("BoolValue", "BytesValue", "DoubleValue", "FloatValue", "Int32Value", "Int64Value"),
        *("StringValue", "UInt32Value", "UInt64Value"),
    )
)
"""The well-known types, whose JSON forms are their own."""

_INT64: Final = frozenset({FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64})

_KNOWN_COUNT: Final = 4096
_KNOWN_SIZE: Final = 64
"""At most so many texts kept for a type (then all forgotten), each of a message of at most
so many bytes encoded: the memory they take is bounded (a trick's result is about 10 bytes
encoded, 60 characters of text)."""

_encode: Final = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
"""``json.dumps(value, ensure_ascii=False)`` of a value fresh from a conversion (no cycles)."""


def message_dict(message: Message) -> dict[str, Any]:
    """``json_format.MessageToDict(message)`` for a message whose JSON form is an object (any
    but a well-known type's), at a fraction of its cost."""
    found = _message_value(message)
    assert isinstance(found, dict)
    return found


def message_json(message: Message) -> str:
    """``json.dumps(json_format.MessageToDict(message), ensure_ascii=False)``, written directly
    (any message)."""
    plan = _plan_of(message)
    if plan is _THEIRS:
        return _encode(_their_json(message))
    known = plan.known
    if known is None:
        return _object_text(plan, message)
    # A message of scalars: the same encoding, the same text.
    encoding = plan.serialize(message)
    text = known.get(encoding)
    if text is None:
        text = _object_text(plan, message)
        if len(encoding) <= _KNOWN_SIZE:
            if len(known) >= _KNOWN_COUNT:
                known.clear()
            known[encoding] = text
    return text


def _object_text(plan: _Plan, message: Message) -> str:
    members: list[str] = []
    for fd, value in plan.list_fields(message):
        opening, write = plan.texts[fd]
        members.append(opening + write(value))
    return "{" + ", ".join(members) + "}"


def _message_value(message: Message) -> Any:
    plan = _plan_of(message)
    if plan is _THEIRS:
        return _their_json(message)
    out: dict[str, Any] = {}
    for fd, value in plan.list_fields(message):
        name, convert = plan.values[fd]
        out[name] = value if convert is None else convert(value)
    return out


def _their_json(message: Message) -> Any:
    # Imported here: the usual report never needs it (start-up time, docs/benchmarks.md).
    from google.protobuf import json_format

    # Untyped: its stub says dict, but a well-known type's form may be a string or a list,
    # and compiled code would check the stub's type.
    to_json: Any = json_format.MessageToDict
    return to_json(message)


def _plan_of(message: Message) -> _Plan:
    kind = type(message)
    plan = _PLANS.get(kind)
    if plan is None:
        # The C extension's descriptor has the pure-Python one's API; the stubs type them apart.
        plan = _PLANS[kind] = _plan(kind, cast(Descriptor, message.DESCRIPTOR))
    return plan


def _plan(kind: type[Message], descriptor: Descriptor) -> _Plan:
    # A type with extension ranges: its extensions are among its set fields, and not planned.
    if descriptor.full_name in _OWN_FORMS or descriptor.extension_ranges:
        return _THEIRS
    plan = _Plan(kind)
    for fd in descriptor.fields:
        convert = _field_value(fd)
        if convert is None:
            return _THEIRS
        plan.values[fd] = (fd.json_name, None if convert is _same else convert)
        plan.texts[fd] = (encode_basestring(fd.json_name) + ": ", _field_text(fd))
    # Texts kept only for a type of scalars (a map's entries are messages: no maps either),
    # whose messages are small and often the same (a trick's result, a trump, a play).
    if all(fd.cpp_type != FieldDescriptor.CPPTYPE_MESSAGE for fd in descriptor.fields):
        plan.known = {}
    return plan


def _field_value(fd: FieldDescriptor) -> _Convert | None:
    """How a field's value is written (all its elements, for a repeated field or a map); None
    when ``MessageToDict`` must write its message."""
    kind = fd.message_type
    if kind is not None and kind.GetOptions().map_entry:
        value = _scalar(kind.fields_by_name["value"])
        return None if value is None else _map(value)
    one = _scalar(fd)
    if one is None or not fd.is_repeated:
        return one
    if one is _same:
        return list
    if one is _message_value:
        return _messages
    return _each(one)


def _field_text(fd: FieldDescriptor) -> _Write:
    """How a planned field's value is written as JSON text (``_field_value``'s, encoded)."""
    kind = fd.message_type
    if kind is not None and kind.GetOptions().map_entry:
        return _map_text(_scalar_text(kind.fields_by_name["value"]))
    one = _scalar_text(fd)
    return _list_text(one) if fd.is_repeated else one


def _messages(values: Any) -> list[Any]:
    return [_message_value(v) for v in values]


def _map(value: _Convert) -> _Convert:
    def write(entries: Any) -> dict[str, Any]:
        return {_map_key(key): value(entries[key]) for key in entries}

    return write


def _map_key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _each(one: _Convert) -> _Convert:
    def write(values: Any) -> list[Any]:
        return [one(v) for v in values]

    return write


def _list_text(one: _Write) -> _Write:
    def write(values: Any) -> str:
        return "[" + ", ".join([one(v) for v in values]) + "]"

    return write


def _map_text(value: _Write) -> _Write:
    def write(entries: Any) -> str:
        members = [f"{encode_basestring(_map_key(k))}: {value(entries[k])}" for k in entries]
        return "{" + ", ".join(members) + "}"

    return write


def _scalar(fd: FieldDescriptor) -> _Convert | None:
    """How one value of a field's type is written; None for an enum whose values have
    options."""
    cpp = fd.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        return _message_value
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        return _enum(cast(EnumDescriptor, fd.enum_type))  # an enum field's: never None
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        return _base64 if fd.type == FieldDescriptor.TYPE_BYTES else _same
    if cpp in _INT64:
        return str
    if cpp == FieldDescriptor.CPPTYPE_FLOAT:
        return _float32
    if cpp == FieldDescriptor.CPPTYPE_DOUBLE:
        return _double
    return _same  # int32, uint32, bool: as they are


def _scalar_text(fd: FieldDescriptor) -> _Write:
    """How one value of a planned field's type is written as JSON text: the commonest types
    directly, the others (64-bit integers, floats, bytes) as in the dict, encoded."""
    cpp = fd.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        return message_json
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        return _enum_text(cast(EnumDescriptor, fd.enum_type))
    if cpp == FieldDescriptor.CPPTYPE_STRING and fd.type != FieldDescriptor.TYPE_BYTES:
        return encode_basestring
    if cpp in (FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_UINT32):
        return str
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return _bool_text
    convert = cast(_Convert, _scalar(fd))  # a planned field's: never None

    def write(value: Any) -> str:
        return _encode(convert(value))

    return write


def _enum(enum: EnumDescriptor) -> _Convert | None:
    if enum.full_name == "google.protobuf.NullValue":
        return _null
    if any(value.has_options for value in enum.values):
        return None
    names = {value.number: value.name for value in enum.values}

    def write(number: int) -> Any:
        return names.get(number, number)

    return write


def _enum_text(enum: EnumDescriptor) -> _Write:
    if enum.full_name == "google.protobuf.NullValue":
        return _null_text
    names = {value.number: _encode(value.name) for value in enum.values}

    def write(number: int) -> str:
        return names.get(number) or str(number)

    return write


def _bool_text(value: bool) -> str:
    return "true" if value else "false"


def _null_text(value: Any) -> str:
    return "null"


def _same(value: Any) -> Any:
    return value


def _null(value: Any) -> None:
    return None


def _base64(value: bytes) -> str:
    return b64encode(value).decode("ascii")


def _double(value: float) -> Any:
    if math.isinf(value):
        return "-Infinity" if value < 0 else "Infinity"
    if math.isnan(value):
        return "NaN"
    return value


def _float32(value: float) -> Any:
    if math.isinf(value) or math.isnan(value):
        return _double(value)
    return ToShortestFloat(value)
