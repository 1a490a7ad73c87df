"""``message_dict`` gives what ``json_format.MessageToDict`` gives: the same dict, keys in the
same order (a map's entries in key order), for the reports of every ruleset and for a message of
every kind of field; and ``message_json`` the text ``json.dumps`` makes of it, from a message's
encoding (any values of the report and record types, a tree of every kind of field, unknown
fields) or from its fields (a group among its unknown fields)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    json_format,
    message_factory,
    struct_pb2,
    timestamp_pb2,
    wrappers_pb2,
)
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.descriptor_pb2 import FieldDescriptorProto as F
from google.protobuf.message import DecodeError, Message
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.auditor import audit_game, audit_match
from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.auditor.jsondict import (
    _KNOWN_COUNT,
    _KNOWN_SIZE,
    _plan_of,
    message_dict,
    message_json,
)
from chaodipi.auditor.wire import encode_varint
from chaodipi.engine.presets import BUILTIN
from chaodipi.v1 import audit_pb2, records_pb2


def _in_key_order(kind: Descriptor, value: dict[str, Any]) -> dict[str, Any]:
    """``MessageToDict``'s dict of a message of type ``kind`` with each map's entries in key
    order (the keys as they are: numbers as numbers), as ``message_dict`` gives them; a
    well-known type's own form as it is."""
    if kind.full_name.startswith("google.protobuf."):
        return value
    fields = {fd.json_name: fd for fd in kind.fields}
    ordered: dict[str, Any] = {}
    for name, item in value.items():
        fd = fields[name]
        sub = fd.message_type
        if sub is not None and sub.GetOptions().map_entry:
            key_type = sub.fields_by_name["key"].cpp_type
            # Strings, and "false" before "true", sort as their texts; numbers as numbers.
            numbers = key_type not in (FieldDescriptor.CPPTYPE_STRING, FieldDescriptor.CPPTYPE_BOOL)
            entries = sorted(item.items(), key=lambda kv: int(kv[0]) if numbers else kv[0])
            held = sub.fields_by_name["value"].message_type
            ordered[name] = {k: v if held is None else _in_key_order(held, v) for k, v in entries}
        elif sub is not None and fd.is_repeated:
            ordered[name] = [_in_key_order(sub, v) for v in item]
        elif sub is not None:
            ordered[name] = _in_key_order(sub, item)
        else:
            ordered[name] = item
    return ordered


def _same(message: Message) -> None:
    expected = json_format.MessageToDict(message)
    found = message_dict(message)
    assert found == expected
    # The same key order, maps' entries in key order: the same JSON text, which message_json
    # writes without the dict.
    text = json.dumps(_in_key_order(message.DESCRIPTOR, expected), ensure_ascii=False)
    assert json.dumps(found, ensure_ascii=False) == text
    assert message_json(message) == text


@pytest.mark.parametrize("ruleset", sorted(BUILTIN))
def test_reports_of_every_ruleset_are_written_as_message_to_dict_writes_them(
    ruleset: str,
) -> None:
    rng = random.Random(ruleset)
    for seed in range(12):
        hand = generate_hand(ruleset, seed)
        if seed % 2:
            hand, _ = plant_any(hand, rng)  # findings, details maps, positions
        _same(audit_game(hand, steps=seed % 3 == 0))
    broken = generate_hand(ruleset, 99)
    broken.tricks[2].plays[1].cards.append("??")  # a rejection
    _same(audit_game(broken))
    _same(audit_match(generate_match(ruleset, 5)))


_POOL = descriptor_pool.DescriptorPool()
for _module in (timestamp_pb2, struct_pb2, wrappers_pb2):
    _file = descriptor_pb2.FileDescriptorProto()
    _module.DESCRIPTOR.CopyToProto(_file)
    _POOL.Add(_file)

_SCALARS = {
    "f_int32": F.TYPE_INT32,
    "f_int64": F.TYPE_INT64,
    "f_uint32": F.TYPE_UINT32,
    "f_uint64": F.TYPE_UINT64,
    "f_sint64": F.TYPE_SINT64,
    "f_fixed64": F.TYPE_FIXED64,
    "f_sfixed32": F.TYPE_SFIXED32,
    "f_bool": F.TYPE_BOOL,
    "f_string": F.TYPE_STRING,
    "f_bytes": F.TYPE_BYTES,
    "f_float": F.TYPE_FLOAT,
    "f_double": F.TYPE_DOUBLE,
}


def _field_adder(kind: descriptor_pb2.DescriptorProto) -> Callable[..., None]:
    """A function adding a field to ``kind``, numbered after the last one added (or ``at``)."""
    last = [0]

    def add(
        name: str, type_: int, label: int = F.LABEL_OPTIONAL, at: int = 0, **more: object
    ) -> None:
        last[0] = at or last[0] + 1
        kind.field.add(name=name, number=last[0], type=type_, label=label, **more)  # type: ignore[arg-type]

    return add


def _every_kind() -> type[Message]:
    """A proto3 message with a field of every kind: each scalar type singular, repeated and
    optional, an enum, nested and recursive messages, maps of several key and value types,
    a oneof, well-known types, and messages of a type of scalars only (``Scalars``, whose
    texts ``message_json`` keeps by their encodings)."""
    file = descriptor_pb2.FileDescriptorProto(
        name="every_kind.proto",
        package="kinds",
        syntax="proto3",
        dependency=[
            "google/protobuf/timestamp.proto",
            "google/protobuf/struct.proto",
            "google/protobuf/wrappers.proto",
        ],
    )
    file.enum_type.add(name="Colour").value.extend(
        [
            descriptor_pb2.EnumValueDescriptorProto(name="COLOUR_UNSET", number=0),
            descriptor_pb2.EnumValueDescriptorProto(name="COLOUR_RED", number=1),
            descriptor_pb2.EnumValueDescriptorProto(name="COLOUR_GREEN", number=2),
        ]
    )
    kind = file.message_type.add(name="Every")
    kind.oneof_decl.add(name="choice")
    kind.oneof_decl.add(name="_o_int32")  # proto3 optional's own oneof: after the others
    add = _field_adder(kind)

    for name, type_ in _SCALARS.items():
        add(name, type_)
        add(f"r_{name}", type_, F.LABEL_REPEATED)
    add("f_colour", F.TYPE_ENUM, type_name=".kinds.Colour")
    add("r_colour", F.TYPE_ENUM, F.LABEL_REPEATED, type_name=".kinds.Colour")
    add("o_int32", F.TYPE_INT32, proto3_optional=True, oneof_index=1)
    add("child", F.TYPE_MESSAGE, type_name=".kinds.Every")
    add("children", F.TYPE_MESSAGE, F.LABEL_REPEATED, type_name=".kinds.Every")
    add("when", F.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp")
    add("extra", F.TYPE_MESSAGE, type_name=".google.protobuf.Struct")
    add("maybe", F.TYPE_MESSAGE, type_name=".google.protobuf.Int64Value")
    for name, key, value, value_type in (
        ("m_string", F.TYPE_STRING, F.TYPE_STRING, ""),
        ("m_int64", F.TYPE_INT64, F.TYPE_STRING, ""),
        ("m_bool", F.TYPE_BOOL, F.TYPE_BOOL, ""),
        ("m_every", F.TYPE_INT32, F.TYPE_MESSAGE, ".kinds.Every"),
        ("m_colour", F.TYPE_UINT32, F.TYPE_ENUM, ".kinds.Colour"),
    ):
        entry_name = "".join(part.title() for part in name.split("_")) + "Entry"
        entry = kind.nested_type.add(name=entry_name)
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, label=F.LABEL_OPTIONAL, type=key)
        entry.field.add(name="value", number=2, label=F.LABEL_OPTIONAL, type=value)
        if value_type:
            entry.field[1].type_name = value_type
        add(name, F.TYPE_MESSAGE, F.LABEL_REPEATED, type_name=f".kinds.Every.{entry_name}")
    add("c_string", F.TYPE_STRING, oneof_index=0)
    add("c_child", F.TYPE_MESSAGE, oneof_index=0, type_name=".kinds.Every")
    scalars = file.message_type.add(name="Scalars")
    scalars.field.extend(f for f in kind.field if f.name[:2] in ("f_", "r_") and not f.type_name)
    scalars.field.extend(f for f in kind.field if f.name in ("f_colour", "r_colour"))
    add("r_scalars", F.TYPE_MESSAGE, F.LABEL_REPEATED, type_name=".kinds.Scalars")
    _POOL.Add(file)
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName("kinds.Every"))


Every = _every_kind()
Scalars = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("kinds.Scalars"))

_VALUES = {
    F.TYPE_INT32: st.integers(-(2**31), 2**31 - 1),
    F.TYPE_SFIXED32: st.integers(-(2**31), 2**31 - 1),
    F.TYPE_UINT32: st.integers(0, 2**32 - 1),
    F.TYPE_INT64: st.integers(-(2**63), 2**63 - 1),
    F.TYPE_SINT64: st.integers(-(2**63), 2**63 - 1),
    F.TYPE_UINT64: st.integers(0, 2**64 - 1),
    F.TYPE_FIXED64: st.integers(0, 2**64 - 1),
    F.TYPE_BOOL: st.booleans(),
    F.TYPE_STRING: st.text(max_size=6),
    F.TYPE_BYTES: st.binary(max_size=6),
    F.TYPE_FLOAT: st.floats(width=32),
    F.TYPE_DOUBLE: st.floats(),
}

_COLOURS = st.integers(0, 4)  # 3 and 4: numbers the enum does not name


def _set_scalars(draw: st.DrawFn, message: Message) -> None:
    for name, type_ in _SCALARS.items():
        if draw(st.booleans()):
            setattr(message, name, draw(_VALUES[type_]))
        getattr(message, f"r_{name}").extend(draw(st.lists(_VALUES[type_], max_size=3)))
    if draw(st.booleans()):
        message.f_colour = draw(_COLOURS)
    message.r_colour.extend(draw(st.lists(_COLOURS, max_size=3)))


@st.composite
def _scalars(draw: st.DrawFn) -> Message:
    message = Scalars()
    _set_scalars(draw, message)
    return message


@st.composite
def _every(draw: st.DrawFn, depth: int = 0) -> Message:
    message = Every()
    _set_scalars(draw, message)
    # Each twice: the second written from the text kept for its encoding.
    message.r_scalars.extend(draw(st.lists(_scalars(), max_size=2)) * 2)
    if draw(st.booleans()):
        message.o_int32 = draw(st.sampled_from([0, 7]))  # set to its default: still written
    if depth < 2:
        if draw(st.booleans()):
            message.child.CopyFrom(draw(_every(depth + 1)))
        for child in draw(st.lists(_every(depth + 1), max_size=2)):
            message.children.add().CopyFrom(child)
        for key in draw(st.lists(st.integers(-3, 3), max_size=2)):
            message.m_every[key].CopyFrom(draw(_every(depth + 1)))
        if draw(st.booleans()):
            message.c_child.CopyFrom(draw(_every(depth + 1)))
    if draw(st.booleans()):
        message.c_string = draw(st.text(max_size=3))
    for key in draw(st.lists(st.text(max_size=3), max_size=3)):
        message.m_string[key] = draw(st.text(max_size=3))
    for key in draw(st.lists(_VALUES[F.TYPE_INT64], max_size=2)):
        message.m_int64[key] = draw(_VALUES[F.TYPE_STRING])
    for key in draw(st.lists(st.booleans(), max_size=2)):
        message.m_bool[key] = draw(st.booleans())
    for key in draw(st.lists(st.integers(0, 9), max_size=2)):
        message.m_colour[key] = draw(_COLOURS)
    if draw(st.booleans()):
        message.when.seconds = draw(st.integers(0, 2**33))
        message.when.nanos = draw(st.integers(0, 999_999_999))
    if draw(st.booleans()):
        number = draw(st.floats(allow_nan=False, allow_infinity=False))
        message.extra.update({"a": number, "b": [True, None, "x"]})
    if draw(st.booleans()):
        message.maybe.value = draw(_VALUES[F.TYPE_INT64])
    return message


@settings(max_examples=150, deadline=None)
@given(_every())
def test_a_message_of_every_kind_of_field_is_written_as_message_to_dict_writes_it(
    message: Message,
) -> None:
    _same(message)  # NaN and the infinities are strings in both: the dicts compare


def test_infinities_nans_and_the_shortest_float_are_written_as_message_to_dict_writes_them() -> (
    None
):
    message = Every(f_float=0.1, f_double=float("-inf"))
    message.r_f_float.extend([float("nan"), float("inf"), 3.4e38, 1e-45])
    message.r_f_double.extend([float("nan"), 0.1, -0.0])
    found = message_dict(message)
    assert found["fFloat"] == 0.1  # float32's 0.1, written as its shortest decimal
    assert found["fDouble"] == "-Infinity"
    _same(message)


def test_well_known_types_keep_their_own_json_forms() -> None:
    message = Every()
    message.when.FromJsonString("2026-12-05T15:00:00.5Z")
    message.maybe.value = 2**60
    message.extra.update({"k": [1, "two"]})
    found = message_dict(message)
    assert found["when"] == "2026-12-05T15:00:00.500Z"
    assert found["maybe"] == str(2**60)
    assert found["extra"] == {"k": [1.0, "two"]}
    assert found == json_format.MessageToDict(message)
    assert message_json(message.when) == '"2026-12-05T15:00:00.500Z"'


def test_the_texts_kept_for_a_type_of_scalars_are_bounded() -> None:
    for n in range(_KNOWN_COUNT + 10):
        _same(Scalars(f_int32=n + 1))
    _same(Scalars(f_string="x" * _KNOWN_SIZE))  # encoded in more than _KNOWN_SIZE bytes
    known = _plan_of(Scalars()).known
    assert known is not None
    assert 0 < len(known) <= _KNOWN_COUNT
    assert all(len(encoding) <= _KNOWN_SIZE for encoding in known)


def _tree_kind() -> type[Message]:
    """A proto3 message written from its encoding: a field of each scalar type singular,
    repeated (packed, and unpacked for the numbers) and optional, an enum, a oneof, and
    messages of its own type and of a type of scalars (``Scalars``); no maps."""
    file = descriptor_pb2.FileDescriptorProto(
        name="tree.proto", package="kinds", syntax="proto3", dependency=["every_kind.proto"]
    )
    kind = file.message_type.add(name="Tree")
    kind.oneof_decl.add(name="choice")
    add = _field_adder(kind)

    for name, type_ in _SCALARS.items():
        add(name, type_)
        add(f"r_{name}", type_, F.LABEL_REPEATED)
        if type_ not in (F.TYPE_STRING, F.TYPE_BYTES):
            add(f"u_{name}", type_, F.LABEL_REPEATED)
            kind.field[-1].options.packed = False
    add("f_sint32", F.TYPE_SINT32)
    add("f_sfixed64", F.TYPE_SFIXED64)
    add("f_fixed32", F.TYPE_FIXED32)
    add("f_colour", F.TYPE_ENUM, type_name=".kinds.Colour")
    add("r_colour", F.TYPE_ENUM, F.LABEL_REPEATED, type_name=".kinds.Colour")
    add("child", F.TYPE_MESSAGE, type_name=".kinds.Tree")
    add("children", F.TYPE_MESSAGE, F.LABEL_REPEATED, type_name=".kinds.Tree")
    add("r_scalars", F.TYPE_MESSAGE, F.LABEL_REPEATED, type_name=".kinds.Scalars")
    add("c_string", F.TYPE_STRING, oneof_index=0)
    add("c_child", F.TYPE_MESSAGE, oneof_index=0, type_name=".kinds.Tree")
    # Numbers past 15 have tags of two bytes.
    add("far_int32", F.TYPE_INT32, F.LABEL_REPEATED, at=2001)
    add("far_child", F.TYPE_MESSAGE, F.LABEL_REPEATED, type_name=".kinds.Tree")
    _POOL.Add(file)
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName("kinds.Tree"))


Tree = _tree_kind()

_MORE_VALUES = {
    F.TYPE_SINT32: st.integers(-(2**31), 2**31 - 1),
    F.TYPE_FIXED32: st.integers(0, 2**32 - 1),
    F.TYPE_SFIXED64: st.integers(-(2**63), 2**63 - 1),
    F.TYPE_STRING: st.text(max_size=6),  # any Unicode: CJK, astral, controls, quotes
}


def _field_values(fd: FieldDescriptor) -> st.SearchStrategy[object]:
    if fd.type == F.TYPE_ENUM:
        # Its names, and numbers it does not name (open enums: kept, written as numbers).
        return st.sampled_from([v.number for v in fd.enum_type.values]) | st.integers(
            -(2**31), 2**31 - 1
        )
    return _MORE_VALUES[fd.type] if fd.type in _MORE_VALUES else _VALUES[fd.type]


@st.composite
def _any_message(draw: st.DrawFn, kind: type[Message], depth: int = 0) -> Message:
    """A message of a type with any of its fields set, to any values, two levels deep."""
    message = kind()
    for fd in kind.DESCRIPTOR.fields:
        found = getattr(message, fd.name) if fd.is_repeated else None
        sub = fd.message_type
        if sub is not None and sub.GetOptions().map_entry:
            key, value = sub.fields_by_name["key"], sub.fields_by_name["value"]
            for k in draw(st.lists(_field_values(key), max_size=2)):
                found[k] = draw(_field_values(value))  # type: ignore[index]
        elif sub is not None:
            sub_kind = message_factory.GetMessageClass(sub)
            if depth < 2 and fd.is_repeated:
                for child in draw(st.lists(_any_message(sub_kind, depth + 1), max_size=2)):
                    found.add().CopyFrom(child)  # type: ignore[union-attr]
            elif depth < 2 and draw(st.booleans()):
                getattr(message, fd.name).CopyFrom(draw(_any_message(sub_kind, depth + 1)))
        elif fd.is_repeated:
            found.extend(draw(st.lists(_field_values(fd), max_size=3)))  # type: ignore[union-attr]
        elif draw(st.booleans()):
            setattr(message, fd.name, draw(_field_values(fd)))  # 0, "": set, as proto3 has it
    return message


_UNKNOWN_FIELDS = [
    b"\xb8\x3e\x05",  # field 1000, a varint
    b"\xba\x3e\x03\xe7\x89\x8c",  # field 1000, a string
    b"\xba\x3e\x02\x08\x07",  # field 1000, bytes that would read as field 1 = 7
    b"\xb9\x3e\x08\x07\x10\x01\x18\x01\x20\x01",  # field 1000, 64 bits, likewise
    b"\x35\x00\x08\x87\x01",  # field 6, 32 bits (a known number, another wire type), likewise
    b"\x0a\x00",  # field 1 as a string: known, of another type in most messages
]
"""Unknown fields, each a tag and its value: the parser keeps them and they are encoded again."""
_UNKNOWN = st.lists(st.sampled_from(_UNKNOWN_FIELDS), max_size=3)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(
        [audit_pb2.AuditReport, audit_pb2.MatchAuditReport, records_pb2.RecordFile, Tree]
    ).flatmap(_any_message),
    _UNKNOWN,
)
def test_report_and_record_messages_of_any_values_are_written_as_message_to_dict_writes_them(
    message: Message, unknown: list[bytes]
) -> None:
    _same(message)
    # Unknown fields (kept by the parser and written again): never written.
    with_unknown = type(message)()
    try:
        with_unknown.ParseFromString(message.SerializeToString() + b"".join(unknown))
    except DecodeError:
        return  # field 1 is a sub-message in some: not every fragment parses
    _same(with_unknown)


@settings(max_examples=150, deadline=None)
@given(_any_message(Tree))
def test_a_tree_of_every_kind_of_field_is_written_from_its_encoding_as_message_to_dict_writes_it(
    message: Message,
) -> None:
    assert _plan_of(message).tags is not None  # its encoding is walked
    _same(message)


def _tag(name: str, wire_type: int) -> bytes:
    return encode_varint(Tree.DESCRIPTOR.fields_by_name[name].number << 3 | wire_type)


def test_unknown_fields_deep_in_an_encoding_and_groups_are_never_written() -> None:
    for unknown in _UNKNOWN_FIELDS:
        encoded = Tree(f_int32=-1, c_string="牌").SerializeToString() + unknown
        parent = Tree()
        parent.MergeFromString(_tag("far_child", 2) + bytes([len(encoded)]) + encoded)
        assert parent.far_child[0].f_int32 == -1
        _same(parent)
    # A group among the unknown fields (field 1001: start, a varint, end): written from the
    # message's fields.
    grouped = Tree()
    grouped.MergeFromString(Tree(f_string="x").SerializeToString() + b"\xcb\x3e\x08\x01\xcc\x3e")
    _same(grouped)
    assert message_json(grouped) == '{"fString": "x"}'


def test_a_repeated_field_in_two_runs_is_written_as_one_list() -> None:
    # An unpacked run, another field, a packed run: the parser makes one list of them, and
    # its encoding again has one run.
    message = Tree()
    message.MergeFromString(
        _tag("r_f_int64", 0) + b"\x01" + _tag("f_int32", 0) + b"\x02"
        + _tag("r_f_int64", 2) + b"\x02\x03\x7f"
    )  # fmt: skip
    _same(message)
    assert message_json(message) == '{"fInt32": 2, "rFInt64": ["1", "3", "127"]}'


def test_a_maps_entries_are_written_in_key_order_whatever_order_the_map_holds_them_in() -> None:
    # The parser's maps hold their entries in an order that changes from process to process
    # (a report's details came out in either order): written in key order, the same report is
    # the same text every time, as a deterministic encoding is the same bytes.
    keys = [f"key_{n:02}" for n in range(30)]
    random.Random(1).shuffle(keys)
    evidence = audit_pb2.Evidence(details={key: key.upper() for key in keys})
    record = records_pb2.GameRecord(metadata={key: "" for key in keys})
    in_order = sorted(keys)
    assert list(message_dict(evidence)["details"]) == in_order
    assert list(json.loads(message_json(evidence))["details"]) == in_order
    assert list(json.loads(message_json(record))["metadata"]) == in_order
    numbered = Every()
    for n in (10, 9, 100, -1, 2):
        numbered.m_int64[n] = str(n)  # in the keys' order, not their texts'
    assert list(message_dict(numbered)["mInt64"]) == ["-1", "2", "9", "10", "100"]
    assert list(json.loads(message_json(numbered))["mInt64"]) == ["-1", "2", "9", "10", "100"]
