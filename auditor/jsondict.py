"""Messages as ProtoJSON, planned per type: ``json_format.MessageToDict``'s dict, and its text.

``MessageToDict`` works out how to write a field from its descriptor each time it meets one
(its JSON name, whether it is a map, an enum, a 64-bit integer, a float); a hand's report holds
a few hundred fields, and that was most of the cost of ``chaodipi audit --json`` and of the
batch's JSON reports. Here each message type's fields are planned once, as a JSON name and a
conversion, and a message is read with ``ListFields`` (its set fields in field-number order, as
``MessageToDict`` reads them), so the dicts are equal and keep the same key order, but in a
map: a planned type's map gives its entries in key order, as a deterministic encoding writes
them, where ``MessageToDict`` gives them in the order the parser's map holds them, which changes
from process to process (a report's ``details`` came out in either order).

``message_json`` writes the text ``json.dumps`` gives for that dict (``ensure_ascii=False``,
one line) without making the dict: ``chaodipi audit --json`` spent about as long encoding a
report's dict as making it. A message of a type all of whose reachable types are planned so
(no maps, whose entries an encoding holds in an order of its own; no groups, closed enums,
extensions or well-known types: a report's ``computed``, a record's tricks) is written from its
encoding, one ``SerializeToString`` in C and one walk over its bytes, linear in their number:
its plan gives each tag a reader of the value after it (a varint, a fixed-width number, a
string's or a sub-message's bytes, a packed run of numbers) and a writer of its text. The
encoder writes a message's fields in field-number order, a repeated field's values as one run,
and its unknown fields last, so the walk meets the fields as ``ListFields`` gives them; a tag
without a reader is an unknown field (or a known number with another wire type, which the
parser kept as unknown), skipped, as ``MessageToDict`` leaves it out. An encoding the walk
cannot write exactly (a group among the unknown fields, a string that is not UTF-8) sends its
message to its fields. Reading a report's fields built a Python object for each sub-message and
value: ``chaodipi audit --json`` spent about 25 k instructions a hand compiled beyond the
plain command, against 82 k, and 100 k against 132 k in pure Python; in pure Python the walk's
commonest steps, made look-ups (a one-byte tag's field, a small number's member, a small
message's text) and run without a call, took a further fifth off. A message of any other
type is written from its fields (``ListFields``), each its member's opening (``"name": ``) and
its value's text: a message's own text, a list or object of messages' texts, the commonest
scalars written directly, and any other value converted as for the dict and encoded by
``json``'s encoder, so both say the same. The texts of a type of scalars only are kept by
their messages' encodings: such messages are small and repeat (a report's trick results, a
record's plays), and looking one up costs a fraction of writing it.

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
from struct import Struct
from typing import Any, Final, cast

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.internal.type_checkers import ToShortestFloat
from google.protobuf.message import Message

from chaodipi.auditor.wire import read_varint

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
        self.tags: dict[int, _Field] | None = None
        """How each field is read from an encoding, by tag (a packed repeated field has two);
        None for a type written from its fields."""
        self.near: list[_Field | None] = []
        """``tags`` as a list by the tags written in one byte (None: unknown), the commonest:
        an index costs less than a look-up (empty for a type written from its fields)."""


class _Field:
    """How a field is read from a message's encoding after one of its tags, and written."""

    def __init__(self, fd: FieldDescriptor, kind: int, write: _Write) -> None:
        self.opening: str = encode_basestring(fd.json_name) + ": "
        self.repeated: bool = fd.is_repeated
        self.kind = kind
        """What follows the tag: ``_VARINT``, ``_FIXED``, ``_BYTES``, ``_MESSAGE``, ``_PACKED``."""
        self.write = write
        """A value's text from what is read: a varint's 64 bits, a fixed-width number, a
        string's or bytes field's bytes (a message's is its plan's)."""
        self.fixed: Struct | None = None
        """A fixed-width number's layout (None: a varint)."""
        self.plan: _Plan = _THEIRS
        """A message field's type's plan."""
        self.members: dict[int, str] = {}
        """A singular varint field's member texts (opening and value) by the values met that
        are written in one byte: written once, then looked up."""


class _Unwritten(Exception):
    """An encoding the walk does not write exactly: its message is written from its fields."""


_VARINT: Final = 0
_FIXED: Final = 1
_BYTES: Final = 2
_MESSAGE: Final = 3
_PACKED: Final = 4

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

_FIXED_LAYOUTS: Final = {
    FieldDescriptor.TYPE_FIXED32: Struct("<I"),
    FieldDescriptor.TYPE_SFIXED32: Struct("<i"),
    FieldDescriptor.TYPE_FLOAT: Struct("<f"),
    FieldDescriptor.TYPE_FIXED64: Struct("<Q"),
    FieldDescriptor.TYPE_SFIXED64: Struct("<q"),
    FieldDescriptor.TYPE_DOUBLE: Struct("<d"),
}
"""The fixed-width types' layouts on the wire (little-endian), whose values they unpack."""

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
    if plan.tags is None:
        return _object_text(plan, message)
    encoding = plan.serialize(message)
    try:
        return _encoded_text(plan, encoding, 0, len(encoding))
    except _Unwritten:
        return _object_text(plan, message)


def _object_text(plan: _Plan, message: Message) -> str:
    members: list[str] = []
    for fd, value in plan.list_fields(message):
        opening, write = plan.texts[fd]
        members.append(opening + write(value))
    return f"{{{', '.join(members)}}}"


def _encoded_text(plan: _Plan, data: bytes, start: int, end: int) -> str:
    """The text of the message encoded in ``data[start:end]``: the one kept for its encoding
    (a type of scalars), or written from its fields' tags (``_walk``)."""
    known = plan.known
    if known is None:
        return _walk(plan, data, start, end)
    encoding = data[start:end] if start or end < len(data) else data
    text = known.get(encoding)
    if text is None:
        text = _walk(plan, encoding, 0, end - start)
        if end - start <= _KNOWN_SIZE:
            if len(known) >= _KNOWN_COUNT:
                known.clear()
            known[encoding] = text
    return text


def _walk(plan: _Plan, data: bytes, pos: int, end: int) -> str:
    """The text of the message encoded in ``data[pos:end]``, read tag by tag: each field's
    values once, and each unknown field skipped (``_skip``)."""
    near = plan.near
    members: list[str] = []
    while pos < end:
        tag = data[pos]
        if tag < 0x80:
            pos += 1
            field = near[tag]
        else:
            tag, pos = _varint(data, pos)
            field = cast(dict[int, _Field], plan.tags).get(tag)
        if field is None:  # an unknown field, or a known one's number with another wire type
            pos = _skip(data, pos, tag & 7)
            continue
        kind = field.kind
        if not field.repeated:
            value = data[pos]
            if kind == _VARINT and value < 0x80:  # the commonest value read here: a small int
                pos += 1
                try:
                    member = field.members[value]
                except KeyError:  # first met: written once
                    member = field.members[value] = field.opening + field.write(value)
                members.append(member)
                continue
            known = field.plan.known
            if known is not None and value < 0x80:  # a small message of scalars (a trump)
                start = pos + 1
                pos = start + value
                try:
                    text = known[data[start:pos]]
                except KeyError:  # a message first met (or forgotten, _KNOWN_COUNT)
                    text = _encoded_text(field.plan, data, start, pos)
            else:
                text, pos = _value(field, data, pos)
            members.append(field.opening + text)
            continue
        # A repeated field's values, tag after tag while the tag repeats.
        items: list[str] = []
        known = field.plan.known
        if known is not None and tag < 0x80:
            # The commonest run, of small messages of scalars (a report's trick results), in a
            # loop of its own, each looked up here by its encoding: a Python call costs more.
            pos -= 1  # at its first tag
            while True:
                length = data[pos + 1]
                if length < 0x80:
                    start = pos + 2
                    pos = start + length
                    try:
                        items.append(known[data[start:pos]])
                    except KeyError:  # rare: a message first met (or forgotten, _KNOWN_COUNT)
                        items.append(_encoded_text(field.plan, data, start, pos))
                else:  # too long to be kept (_KNOWN_SIZE)
                    text, pos = _value(field, data, pos + 1)
                    items.append(text)
                if pos >= end or data[pos] != tag:
                    break
        else:
            while True:
                if kind == _PACKED:
                    pos = _packed(field, data, pos, items)
                else:
                    text, pos = _value(field, data, pos)
                    items.append(text)
                if pos >= end:
                    break
                if tag < 0x80:
                    if data[pos] != tag:
                        break
                    pos += 1
                else:
                    following, after = _varint(data, pos)
                    if following != tag:
                        break
                    pos = after
        # Formatted: the text copied once, where each concatenation copies it again.
        members.append(f"{field.opening}[{', '.join(items)}]")
    if pos != end:
        raise _Unwritten
    return f"{{{', '.join(members)}}}"


def _value(field: _Field, data: bytes, pos: int) -> tuple[str, int]:
    """The text of one value of a field read at ``pos`` (after its tag), and where it ends."""
    kind = field.kind
    if kind == _VARINT:
        value = data[pos]
        if value < 0x80:
            return field.write(value), pos + 1
        value, pos = _varint(data, pos)
        return field.write(value), pos
    fixed = field.fixed
    if fixed is not None:
        return field.write(fixed.unpack_from(data, pos)[0]), pos + fixed.size
    length = data[pos]
    if length < 0x80:
        pos += 1
    else:
        length, pos = _varint(data, pos)
    end = pos + length
    if kind == _MESSAGE:
        return _encoded_text(field.plan, data, pos, end), end
    return field.write(data[pos:end]), end


def _packed(field: _Field, data: bytes, pos: int, items: list[str]) -> int:
    """Add the texts of a packed run of a repeated field's numbers read at ``pos`` (after its
    tag); where it ends."""
    length, pos = _varint(data, pos)
    end = pos + length
    write, fixed = field.write, field.fixed
    while pos < end:
        # Each branch writes its own value: compiled, one variable would be typed as the
        # varint's int and refuse a fixed-width float.
        if fixed is None:
            bits, pos = _varint(data, pos)
            items.append(write(bits))
        else:
            items.append(write(fixed.unpack_from(data, pos)[0]))
            pos += fixed.size
    if pos != end:
        raise _Unwritten
    return end


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    found = read_varint(data, pos)
    if found is None:
        raise _Unwritten
    return found


def _skip(data: bytes, pos: int, wire_type: int) -> int:
    """Where an unknown field's value read at ``pos`` (after its tag) ends."""
    if wire_type == 0:
        return _varint(data, pos)[1]
    if wire_type == 1:
        return pos + 8
    if wire_type == 5:
        return pos + 4
    if wire_type == 2:
        length, pos = _varint(data, pos)
        return pos + length
    raise _Unwritten  # a group, whose end is found by reading it through


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
    plan = _PLANS.get(type(message))
    return _new_plan(type(message)) if plan is None else plan


def _new_plan(kind: type[Message]) -> _Plan:
    # The C extension's descriptor has the pure-Python one's API; the stubs type them apart.
    descriptor = cast(Descriptor, kind.DESCRIPTOR)
    # Kept before its tags are planned: a type may hold its own (a tree of messages).
    plan = _PLANS[kind] = _plan(kind, descriptor)
    if plan is not _THEIRS and _encoding_planned(descriptor):
        plan.tags = _tags(descriptor)
        plan.near = [plan.tags.get(tag) for tag in range(0x80)]
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


def _encoding_planned(descriptor: Descriptor) -> bool:
    """Whether a type's messages are written from their encodings: whether every type they can
    hold (the type itself included) is planned (not ``_THEIRS``) and has no field the walk does
    not read as ``MessageToDict`` reads its value. A map's entries come in its encoding in an
    order of their own; a closed enum's unknown numbers are unknown fields; a group's tags are
    not planned. Linear in the fields of the types it can hold."""
    seen: set[str] = set()
    todo = [descriptor]
    while todo:
        kind = todo.pop()
        if kind.full_name in seen:
            continue
        seen.add(kind.full_name)
        if kind.full_name in _OWN_FORMS or kind.extension_ranges:
            return False
        for fd in kind.fields:
            if fd.type == FieldDescriptor.TYPE_GROUP:
                return False
            if fd.message_type is not None:
                if fd.message_type.GetOptions().map_entry:
                    return False
                todo.append(fd.message_type)
            enum = fd.enum_type
            if enum is not None and (enum.is_closed or any(v.has_options for v in enum.values)):
                return False
    return True


def _tags(descriptor: Descriptor) -> dict[int, _Field]:
    """How a type's fields are read from an encoding, by tag: a tag's field number and wire
    type, and a packed repeated field's second tag (wire type 2), for a run of its values."""
    tags: dict[int, _Field] = {}
    for fd in descriptor.fields:
        tag = fd.number << 3
        sub = fd.message_type
        if sub is not None:
            field = tags[tag | 2] = _Field(fd, _MESSAGE, message_json)
            kind = message_factory.GetMessageClass(sub)
            field.plan = _PLANS.get(kind) or _new_plan(kind)
        elif fd.cpp_type == FieldDescriptor.CPPTYPE_STRING:
            write = _utf8_text if fd.type == FieldDescriptor.TYPE_STRING else _scalar_text(fd)
            tags[tag | 2] = _Field(fd, _BYTES, write)
        else:
            fixed = _FIXED_LAYOUTS.get(fd.type)
            if fixed is None:
                field = tags[tag] = _Field(fd, _VARINT, _varint_text(fd))
            else:
                field = tags[tag | (5 if fixed.size == 4 else 1)] = _Field(
                    fd, _FIXED, _scalar_text(fd)
                )
                field.fixed = fixed
            if fd.is_repeated:
                packed = tags[tag | 2] = _Field(fd, _PACKED, field.write)
                packed.fixed = field.fixed
    return tags


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
        # In key order (``sorted`` of the keys as they are: numbers as numbers), as a
        # deterministic encoding writes them: the parser's map holds its entries in an order
        # that changes from process to process.
        return {_map_key(key): value(entries[key]) for key in sorted(entries)}

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
        members = [
            f"{encode_basestring(_map_key(k))}: {value(entries[k])}" for k in sorted(entries)
        ]  # in key order, as ``_map``'s
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


def _varint_text(fd: FieldDescriptor) -> _Write:
    """How a varint field's value is written from its 64 bits on the wire: read as its type
    reads them (the low 32 bits of a 32-bit integer, sign-extended when signed; zigzag for
    ``sint``), then as its value."""
    kind = fd.type
    if kind == FieldDescriptor.TYPE_INT32:
        return _int32_text
    if kind == FieldDescriptor.TYPE_BOOL:
        return _bool_text
    read = _VARINT_READS[kind]
    write = _scalar_text(fd)

    def read_write(bits: int) -> str:
        return write(read(bits))

    return read_write


def _int32(bits: int) -> int:
    return ((bits & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


def _int32_text(bits: int) -> str:
    return str(bits if bits < 0x80000000 else _int32(bits))


def _int64(bits: int) -> int:
    return ((bits & 0xFFFFFFFFFFFFFFFF) ^ 0x8000000000000000) - 0x8000000000000000


def _uint32(bits: int) -> int:
    return bits & 0xFFFFFFFF


def _uint64(bits: int) -> int:
    return bits & 0xFFFFFFFFFFFFFFFF


def _sint32(bits: int) -> int:
    bits &= 0xFFFFFFFF
    return (bits >> 1) ^ -(bits & 1)


def _sint64(bits: int) -> int:
    bits &= 0xFFFFFFFFFFFFFFFF
    return (bits >> 1) ^ -(bits & 1)


_VARINT_READS: Final[dict[int, Callable[[int], int]]] = {
    FieldDescriptor.TYPE_ENUM: _int32,
    FieldDescriptor.TYPE_UINT32: _uint32,
    FieldDescriptor.TYPE_INT64: _int64,
    FieldDescriptor.TYPE_UINT64: _uint64,
    FieldDescriptor.TYPE_SINT32: _sint32,
    FieldDescriptor.TYPE_SINT64: _sint64,
}
"""A varint type's value from its 64 bits on the wire (int32 and bool: ``_varint_text``)."""


def _utf8_text(value: bytes) -> str:
    try:
        return encode_basestring(value.decode())
    except UnicodeDecodeError:
        raise _Unwritten from None  # a proto2 string need not be UTF-8


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


def _bool_text(value: int) -> str:
    # A bool, or a varint's bits: any but 0 is true.
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
