"""Card and rank tokens: reading them, and finding bad ones anywhere in a record."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import cast

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.descriptor_pb2 import FieldDescriptorProto
from google.protobuf.message import DecodeError, Message

from chaodipi.auditor.wire import narrow_suits_hold
from chaodipi.engine.cards import KINDS, RANK_LETTERS, CardError, card_token, parse_card

CARD_EXPECTED = (
    "expected a card token: a suit letter S, H, C or D and a rank 2-9, T, J, Q, K, A "
    "(e.g. 'ST'), or LJ / BJ for the jokers"
)
RANK_EXPECTED = "expected a rank token 2-9, T, J, Q, K or A"

CARD_FIELDS = frozenset(
    {
        "chaodipi.v1.Hand.cards",
        "chaodipi.v1.DrawOrder.deck",
        "chaodipi.v1.DealtHands.kitty",
        "chaodipi.v1.BidEvent.cards",
        "chaodipi.v1.KittyExchange.picked_up",
        "chaodipi.v1.KittyExchange.buried",
        "chaodipi.v1.Unit.cards",
        "chaodipi.v1.Play.cards",
        "chaodipi.v1.Play.attempted",
    }
)
"""Fields holding card tokens."""

RANK_FIELDS = frozenset(
    {
        "chaodipi.v1.HandContext.team0_level",
        "chaodipi.v1.HandContext.team1_level",
        "chaodipi.v1.Trump.level",
        "chaodipi.v1.LevelResult.dealer_team_level_after",
        "chaodipi.v1.LevelResult.defender_team_level_after",
        "chaodipi.v1.MatchClaim.team0_final_level",
        "chaodipi.v1.MatchClaim.team1_final_level",
    }
)
"""Fields holding a rank token (or empty)."""


def card(token: str) -> str:
    """The canonical upper-case token of a card token; raises ``ValueError`` if it is not one."""
    canonical = _CARD_SPELLINGS.get(token)
    if canonical is None:
        try:
            canonical = card_token(parse_card(token))
        except CardError:
            raise ValueError(f"bad card token {token!r}: {CARD_EXPECTED}") from None
        if len(token) <= 3:
            _CARD_SPELLINGS[token] = canonical
    return canonical


_CARD_SPELLINGS: dict[str, str] = {}
"""The card tokens of at most 3 characters ``card`` has read, each with its canonical token: a
notation file's cards are a few spellings read again and again. Only cards are kept, and they
are a few hundred at most (each card in its cases, ``10`` for ``T``)."""


def rank(token: str) -> str:
    """The canonical rank token (``"10"`` reads as ``"T"``); empty stays empty."""
    text = "T" if token == "10" else token.upper()
    if text and (len(text) != 1 or text not in RANK_LETTERS):
        raise ValueError(f"bad rank {token!r}: {RANK_EXPECTED}")
    return text


def is_card(token: str) -> bool:
    """Whether a string is a card token (any case)."""
    try:
        parse_card(token)
    except CardError:
        return False
    return True


_CARDS, _RANK, _MESSAGE, _MESSAGES = range(4)
_CANONICAL = frozenset(card_token(k) for k in range(KINDS))
"""Every card's canonical token: a record holding only these has no bad card token."""
_RANKS = frozenset(t.encode() for t in ("", "10", *RANK_LETTERS, *RANK_LETTERS.lower()))
"""Rank tokens ``rank`` reads (some of them), as bytes: a record holding only these has no bad
rank."""
_Step = tuple[FieldDescriptor, str, int]
"""A field that may hold a token: itself, its name, and how it holds it."""
_PLANS: dict[Descriptor, list[_Step]] = {}
_SHADOWS: dict[str, tuple[type[Message], type[Message]]] = {}
"""By the full name of a record type: its shadow type (see ``_shadow``), and a shadow of many
records (``canonical_records``)."""


def _plan(message: Message) -> list[_Step]:
    """The fields of a message's type that may hold a token, in field-number order, and how."""
    # The C extension's descriptor has the pure-Python one's API; the stubs type them apart.
    descriptor = cast(Descriptor, message.DESCRIPTOR)
    plan = _PLANS.get(descriptor)
    if plan is None:
        plan = []
        for fd in sorted(descriptor.fields, key=lambda fd: fd.number):
            if fd.full_name in CARD_FIELDS:
                plan.append((fd, fd.name, _CARDS))
            elif fd.full_name in RANK_FIELDS:
                plan.append((fd, fd.name, _RANK))
            elif fd.message_type is not None and _holds_tokens(fd, set()):
                plan.append((fd, fd.name, _MESSAGES if fd.is_repeated else _MESSAGE))
        _PLANS[descriptor] = plan
    return plan


def _holds_tokens(fd: FieldDescriptor, seen: set[str]) -> bool:
    """Whether a field can hold a token at any depth (a map's entries never do).

    A message field that cannot (a trick's claim: three ints) is left out of the plans and the
    shadows, so its messages are never visited. ``seen`` holds the message types entered:
    recursion stops."""
    if fd.full_name in CARD_FIELDS or fd.full_name in RANK_FIELDS:
        return True
    kind = fd.message_type
    if kind is None or kind.GetOptions().map_entry or kind.full_name in seen:
        return False
    seen.add(kind.full_name)
    return any(_holds_tokens(inner, seen) for inner in kind.fields)


def _records_pool(
    file: descriptor_pb2.FileDescriptorProto, root: str
) -> descriptor_pool.DescriptorPool:
    """A pool of ``file`` with a message ``Records`` added, whose field 1 holds ``root`` (a
    message of ``file``): records one after another as field 1 (a repeated field's wire form)
    parse into one such message, merged."""
    file.message_type.add(name="Records").field.add(
        name="records",
        number=1,
        label=FieldDescriptorProto.LABEL_OPTIONAL,
        type=FieldDescriptorProto.TYPE_MESSAGE,
        type_name=f".{file.package}.{root}",
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return pool


def _shadow(descriptor: Descriptor) -> tuple[type[Message], type[Message]]:
    """A message type that reads the wire bytes of ``descriptor``'s type for its tokens, and
    keeps as unknown exactly the fields the record's type does not know.

    Every message field is singular: on the wire a singular message that occurs again is
    merged into the first, so a whole record parses into one message per field path, holding
    every token of that path in the record (a hand's 100 plays become one play's 108 cards).
    A *leaf* (a type with token fields and no message field: a play, a context) declares no
    token field: each of its token elements is kept as an unknown field, its bytes as read, in
    order (the parser's unknown fields are bytes, not a string a token); its other fields are
    declared with the wire types the record's take (``_declare_alike``), so that once they are
    cleared the leaf serializes to its token elements and whatever field the record's type does
    not know (``_canonical``). Any other type declares every field of the record's type: its
    token fields repeated (ranks as ``bytes``, the wire type of a string, cards as ``string``),
    its message fields as the shadow of their type when it holds tokens, else as its skeleton (a
    type declaring every field alike, message fields as skeletons, read for unknown fields
    only), the rest alike. So a field the record's type does not know, at any depth, is an
    unknown field here too, in a leaf beside its token elements or elsewhere, where no token
    is. A singular field that occurs twice (a oneof's two members, a context given twice) is
    kept once by the record and twice here: the shadow holds every token the record holds,
    perhaps more, never fewer. Returned with a type whose field 1 is such a message: records
    written one after another as its field 1 parse into one shadow holding the tokens of them
    all (``clean_records``).
    """
    shadows = _SHADOWS.get(descriptor.full_name)
    if shadows is None:
        file = descriptor_pb2.FileDescriptorProto(
            name=f"tokens/{descriptor.full_name}.proto", package="tokens", syntax="proto3"
        )
        names: dict[str, str] = {}
        leaves: dict[str, Callable[[bytes], object]] = {}
        skeletons: list[str] = []

        def skeleton(kind: Descriptor) -> str:
            name = names.get(f"skeleton {kind.full_name}")
            if name is None:
                name = names[f"skeleton {kind.full_name}"] = "Skeleton_" + kind.full_name.replace(
                    ".", "_"
                )
                skeletons.append(name)
                shape = file.message_type.add(name=name)
                for fd in kind.fields:
                    inner = None if fd.message_type is None else skeleton(fd.message_type)
                    _declare_alike(shape.field.add(name=fd.name, number=fd.number), fd, inner)
            return f".tokens.{name}"

        def add(kind: Descriptor) -> str:
            name = names.get(kind.full_name)
            if name is None:
                name = names[kind.full_name] = kind.full_name.replace(".", "_")
                shape = file.message_type.add(name=name)
                leaf = all(fd.message_type is None for fd in kind.fields)
                elements: list[bytes] = []
                card_tags: bytes | None = b""
                for fd in kind.fields:
                    if fd.full_name in CARD_FIELDS or fd.full_name in RANK_FIELDS:
                        is_rank = fd.full_name in RANK_FIELDS
                        tag = _tag(fd.number)
                        elements.append(
                            re.escape(tag) + (_RANK_ELEMENT if is_rank else _CARD_ELEMENT)
                        )
                        if card_tags is not None:
                            card_tags = None if is_rank or len(tag) > 1 else card_tags + tag
                        if not leaf:
                            _TOKEN_FIELDS[f"tokens.{name}.{fd.name}"] = (
                                _RANKS if is_rank else _CANONICAL
                            )
                            shape.field.add(
                                name=fd.name,
                                number=fd.number,
                                label=FieldDescriptorProto.LABEL_REPEATED,
                                type=FieldDescriptorProto.TYPE_BYTES
                                if is_rank
                                else FieldDescriptorProto.TYPE_STRING,
                            )
                    elif fd.message_type is not None and _holds_tokens(fd, set()):
                        shape.field.add(
                            name=fd.name,
                            number=fd.number,
                            label=FieldDescriptorProto.LABEL_OPTIONAL,
                            type=FieldDescriptorProto.TYPE_MESSAGE,
                            type_name=f".tokens.{add(fd.message_type)}",
                        )
                    else:
                        inner = None if fd.message_type is None else skeleton(fd.message_type)
                        _declare_alike(shape.field.add(name=fd.name, number=fd.number), fd, inner)
                if leaf:
                    leaves[name] = (
                        partial(_cards_canonical, card_tags)
                        if card_tags
                        else re.compile(b"(?:" + b"|".join(elements) + b")*").fullmatch
                    )
            return name

        root = add(descriptor)
        pool = _records_pool(file, root)
        for name, check in leaves.items():
            leaf = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tokens.{name}"))
            _LEAVES[leaf] = check
        for name in skeletons:
            _SKELETONS.add(
                message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tokens.{name}"))
            )
        shadows = _SHADOWS[descriptor.full_name] = (
            message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tokens.{root}")),
            message_factory.GetMessageClass(pool.FindMessageTypeByName("tokens.Records")),
        )
    return shadows


def _declare_alike(
    field: FieldDescriptorProto, fd: FieldDescriptor, message: str | None = None
) -> None:
    """Declare ``field`` so that it takes the wire types ``fd`` takes, holding as little as it
    can: a message field as a singular field of type ``message`` (a type name), or as singular
    ``bytes`` without one; a string field as a singular string (which the parser checks is
    UTF-8 each time it occurs, as it checks the record's), a bytes field as singular ``bytes``;
    any other field with its own type (an enum's as ``int32``: the same varint) and label. On
    the wire a singular message that occurs again is merged into the first and a singular
    scalar is overwritten."""
    if fd.message_type is not None and message is not None:
        field.label = FieldDescriptorProto.LABEL_OPTIONAL
        field.type = FieldDescriptorProto.TYPE_MESSAGE
        field.type_name = message
    elif fd.type == FieldDescriptor.TYPE_STRING:
        field.label = FieldDescriptorProto.LABEL_OPTIONAL
        field.type = FieldDescriptorProto.TYPE_STRING
    elif fd.message_type is not None or fd.type == FieldDescriptor.TYPE_BYTES:
        field.label = FieldDescriptorProto.LABEL_OPTIONAL
        field.type = FieldDescriptorProto.TYPE_BYTES
    else:
        field.label = (
            FieldDescriptorProto.LABEL_REPEATED
            if fd.is_repeated
            else FieldDescriptorProto.LABEL_OPTIONAL
        )
        # The descriptor's and the descriptor proto's type numbers are the same.
        field.type = (
            FieldDescriptorProto.TYPE_INT32
            if fd.type == FieldDescriptor.TYPE_ENUM
            else cast("FieldDescriptorProto.Type.ValueType", fd.type)
        )


def _tag(number: int) -> bytes:
    """The wire tag of a length-delimited field: its key as a base-128 varint."""
    key, out = number << 3 | 2, bytearray()
    while key > 0x7F:
        out.append(key & 0x7F | 0x80)
        key >>= 7
    return bytes(out) + bytes([key])


def _alternatives(tokens: frozenset[bytes]) -> bytes:
    """A pattern for one of ``tokens`` on the wire: its length (one byte) and its bytes.

    Tokens are grouped by all but their last byte, each group a character class of last bytes
    (the cards of spades: length 2, ``S``, one of ``23456789AJKQT``), since Python's matcher
    tries alternatives one by one. No two alternatives begin with the same two bytes, so at most
    one matches an element, and a leaf is matched in time linear in its bytes."""
    groups: dict[bytes, list[bytes]] = {}
    for token in sorted(tokens):
        wire = bytes([len(token)]) + token
        groups.setdefault(wire[:-1], []).append(re.escape(wire[-1:]))
    return (
        b"(?:"
        + b"|".join(re.escape(h) + b"[" + b"".join(t) + b"]" for h, t in groups.items())
        + b")"
    )


_CARD_ELEMENT = _alternatives(frozenset(t.encode() for t in _CANONICAL))
_RANK_ELEMENT = _alternatives(_RANKS)


assert {len(t) for t in _CANONICAL} == {2}  # ``_cards_canonical`` reads 4-byte elements
_SUIT_BYTES = bytes(sorted({t.encode()[0] for t in _CANONICAL}))
_RANK_BYTES = bytes(sorted({t.encode()[1] for t in _CANONICAL}))


def _cards_canonical(tags: bytes, data: bytes) -> bool:
    """Whether a leaf of card fields (tagged ``tags``, a byte each) holds canonical tokens only.

    A canonical card element is 4 bytes: a tag, the length 2, a suit letter and a rank letter.
    While every element is, they start every 4 bytes, and the first one that is not has at its
    second byte a length other than 2 (a longer length's varint starts at 0x80 or more). So the
    bytes are such elements exactly when their columns (every 4th byte) hold a tag, 2, a suit
    letter and a rank letter, each column checked whole in C, not element by element, and a
    joker's suit letter stands beside its own rank only (``narrow_suits_hold``).
    """
    lengths = data[1::4]
    if len(data) % 4 or lengths.count(2) != len(lengths) or data[::4].translate(None, tags):
        return False
    suits, ranks = data[2::4], data[3::4]
    if suits.translate(None, _SUIT_BYTES) or ranks.translate(None, _RANK_BYTES):
        return False
    return narrow_suits_hold(suits, ranks)


_LEAVES: dict[type[Message], Callable[[bytes], object]] = {}
"""The shadow types that are leaves (a play, a context), each with a check of its token
elements' bytes, true when every token in them is canonical: that they are its elements one
after another, each a token field's tag, a length and a canonical token (a pattern read from
the start, element by element, or ``_cards_canonical``). A match leaves no other element: a
field the record's type does not know fails it."""
_SKELETONS: set[type[Message]] = set()
"""The shadows' skeleton types: message fields that hold no token, read for unknown fields."""
_TOKEN_FIELDS: dict[str, frozenset[str] | frozenset[bytes]] = {}
"""The token fields a shadow type that is no leaf declares (a deal's kitty), by full name, with
the tokens they may hold."""
_TYPE_MESSAGE = FieldDescriptor.TYPE_MESSAGE


def _canonical(shadow: Message) -> bool:
    """Whether every token in a shadow message is canonical; a leaf's token elements are
    checked as bytes, in C, instead of each token made a string and looked up. Each leaf is
    emptied once checked (the shadow is read once): what stays unknown is what the record's
    type does not know outside the leaves (``clean_records``)."""
    for fd, value in shadow.ListFields():
        if fd.type == _TYPE_MESSAGE:
            if type(value) in _SKELETONS:
                continue
            check = _LEAVES.get(type(value))
            if check is None:
                if not _canonical(value):
                    return False
                continue
            for known, _ in value.ListFields():
                value.ClearField(known.name)
            if not check(value.SerializeToString()):  # the unknown fields: the token elements
                return False
            value.Clear()
        else:
            tokens = _TOKEN_FIELDS.get(fd.full_name)
            if tokens is not None and not tokens.issuperset(value[:]):
                return False  # a token field beside message fields (a deal's kitty)
    return True


def clean_records(kind: Descriptor, records: bytes) -> bool:
    """Whether many records of type ``kind`` hold canonical tokens only and no field their
    type does not know, at any depth (else some record may not: check each alone).

    ``records``: each record's bytes, length-delimited and tagged as field 1 (the wire form of
    a repeated field of them). They parse, in C, into one shadow (``_shadow``) holding every
    token of them all, checked once: a file's records cost one parse and one check of each leaf
    instead of one of each per record. Once the leaves are checked and emptied, every field left
    unknown in the shadow is one some record's type does not know (a leaf's such field failed
    its check), and merging only adds to them, never drops any (no oneof in the shadow clears
    a field); each is at least a tag's byte, so dropping them shrinks the shadow exactly when it
    had some. The shadow declares the record's other strings as strings, so a chunk that
    parses holds UTF-8 strings only, and a clean one canonical tokens only: a clean chunk's
    records parse by their own types. A chunk the shadow cannot parse (a record the
    parser rejects, or one nested too deep for the shadow, a level deeper) is checked record
    by record.
    """
    shadow = _shadow(kind)[1]()
    try:
        shadow.ParseFromString(records)
    except DecodeError:  # a record the parser rejects: each record is checked alone
        return False
    if not _canonical(shadow):
        return False
    size = shadow.ByteSize()
    shadow.DiscardUnknownFields()
    return shadow.ByteSize() == size


def bad_token(
    message: Message, path: str, json_names: bool, data: bytes | None = None
) -> tuple[str, str] | None:
    """The path and problem of the first bad card or rank token in ``message``, if any.

    Paths use JSON names (``dealtHands.hands[0].cards[3]``) when ``json_names``, else
    protobuf field names. ``data``: the bytes ``message`` was parsed from, if the caller has
    them (else it is serialized). Every token is first read from those bytes by the message's
    shadow type (``_shadow``) and checked against the canonical ones; the usual record, all
    canonical, ends there, since the shadow holds every token the message holds. Only a record
    with another token (or one on the wire that the message dropped) is walked in order. The
    check is linear in the record's bytes: one parse, and each leaf serialized and matched once.
    """
    shadow = _shadow(cast(Descriptor, message.DESCRIPTOR))[0]()
    try:
        shadow.ParseFromString(message.SerializeToString() if data is None else data)
    except DecodeError:  # not expected (the record's own bytes): the walk decides
        return _first_bad(message, path, json_names)
    if _canonical(shadow):
        return None
    return _first_bad(message, path, json_names)


def _first_bad(message: Message, path: str, json_names: bool) -> tuple[str, str] | None:
    """``bad_token``'s answer, field by field in field-number order."""
    for fd, name, how in _plan(message):
        if how == _MESSAGE and not message.HasField(name):
            continue
        value = getattr(message, name)
        found: tuple[str, str] | None = None
        if how == _CARDS:
            for i, token in enumerate(value):
                if not is_card(token):
                    found = f"[{i}]", f"bad card token {token!r}: {CARD_EXPECTED}"
                    break
        elif how == _RANK:
            try:
                rank(value)
            except ValueError as exc:
                found = "", str(exc)
        elif how == _MESSAGE:
            found = _first_bad(value, "", json_names)
            if found:
                found = f".{found[0]}", found[1]
        else:
            for i, item in enumerate(value):
                found = _first_bad(item, "", json_names)
                if found:
                    found = f"[{i}].{found[0]}", found[1]
                    break
        if found:
            shown = fd.json_name if json_names else name
            return (f"{path}.{shown}" if path else shown) + found[0], found[1]
    return None
