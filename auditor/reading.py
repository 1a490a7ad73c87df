"""Reading a ``GameRecord`` into plain values, collecting every malformed field.

A record that cannot be replayed at all (an unknown ruleset, a bad card token,
a seat out of range, a bid kind outside the enum) is *rejected* with one violation
per field, each naming the field's path; nothing here raises on a bad record.

Repeated fields are bounded by the ruleset (``Limits``), above any real hand but low enough
that a hostile record (10,000 tricks, 5,000 cards in a play) is rejected at once instead of
replayed for seconds: ``tricks: 10000 tricks, at most 33``.

The draw order, the bids, the kitty exchanges and the tricks, most of a record, are read
from their encoding (``_RECORD_READ``): a deck card, a single card or a pair played is one
look-up of its bytes. Anything but the form a canonical writer gives valid fields (an unknown
token or field, a seat out of range, a declared split) is read again field by field, so a bad
record's violations are the same either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol, TypeVar, cast

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import DecodeError, Message

from chaodipi.auditor.wire import (
    BID_KINDS,
    LEN,
    SUITS_BY_PROTO,
    TOKEN_KINDS,
    VARINT,
    field_tag,
    narrow_suits_hold,
)
from chaodipi.engine import (
    KINDS,
    POINTS,
    RANK_LETTERS,
    BidKind,
    CardError,
    Ruleset,
    RulesetError,
    get_ruleset,
    parse_card,
    ruleset_from_mapping,
)
from chaodipi.v1 import records_pb2

PLAYS_PER_TRICK = 8
"""Plays a trick may hold: twice a table's four, so a repeated play is still audited."""
INCOMPLETE_KEY = "audit.incomplete"
"""Metadata an importer sets when its source says the record stops early: the reason.

The audit then reports ``RECORD_INCOMPLETE`` with it, reads the record as far as it goes
and reports no breach that only the missing end causes (a short last trick, no bury)."""
UNSUPPORTED_KEY = "audit.unsupported"
"""Metadata an importer sets when the record needs rules no ruleset field models: what.

The audit then reports ``UNSUPPORTED`` with it and checks nothing (no false finding)."""
MAX_HANDS = 1000
"""Hands a match may hold (``audit_match``)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How long a record's repeated fields may be under a ruleset.

    ``held``: the most cards a seat ever holds (a hand and the kitty, 33 or 45). It limits
    the tricks (a hand has at most ``hand_size``), the cards of a play, an attempted throw, a
    split (and its units), a bid, a pick-up and a bury: a card beyond it is not in hand
    anyway (and the engine refuses more copies of a card than the decks before any search).
    ``deal``: two decks' worth (216 or 324), the limit of the deck, a dealt hand and the
    kitty, so a deal with every card twice is still audited (as DEAL_INVALID). ``items``:
    one deck (108 or 162), the limit of the bids and kitty exchanges (cheap to replay). A
    trick holds at most ``PLAYS_PER_TRICK`` plays.
    """

    held: int
    deal: int
    items: int

    @classmethod
    def of(cls, ruleset: Ruleset) -> Limits:
        deck = 54 * ruleset.decks
        return cls(ruleset.hand_size + ruleset.kitty_size, 2 * deck, deck)  # held, deal, items


@dataclass(frozen=True, slots=True)
class Violation:
    """A malformed field: its path in the record and what is wrong."""

    field: str
    description: str


@dataclass(slots=True)
class ReadBid:
    seat: int
    kind: BidKind
    cards: list[int]
    names_trump: bool  # the bid names a trump: trump_choice, a suit 0-3 or None for no-trump
    trump_choice: int | None
    drawn_count: int | None

    def __init__(
        self,
        seat: int,
        kind: BidKind,
        cards: list[int],
        names_trump: bool,
        trump_choice: int | None,
        drawn_count: int | None,
    ) -> None:
        self.seat = seat
        self.kind = kind
        self.cards = cards
        self.names_trump = names_trump
        self.trump_choice = trump_choice
        self.drawn_count = drawn_count


@dataclass(slots=True)
class ReadExchange:
    seat: int
    picked_up: list[int]
    buried: list[int]

    def __init__(self, seat: int, picked_up: list[int], buried: list[int]) -> None:
        self.seat = seat
        self.picked_up = picked_up
        self.buried = buried


@dataclass(frozen=True, slots=True)
class TrickClaims:
    """What a record claims of a trick (its ``TrickClaim``): None for a field left unset.

    Immutable, so the reader keeps one for each encoding (``_claims_from_wire``): every hand
    shares it, where a message would be its own (messages can be changed) and cost a parse.
    """

    winner: int | None
    points: int | None
    penalty: int | None

    @classmethod
    def of(cls, claim: records_pb2.TrickClaim) -> TrickClaims:
        return cls(
            claim.winner if claim.HasField("winner") else None,
            claim.points if claim.HasField("points") else None,
            claim.penalty if claim.HasField("penalty") else None,
        )


# ReadTrick is built ~25 times a hand, ReadPlay for the plays not shared (throws, tractors,
# triples, records not written canonically). Their ``__init__`` is written out because mypyc
# compiles a hand-written one to native code, while the one @dataclass generates stays
# interpreted (@dataclass keeps a hand-written ``__init__``).
@dataclass(slots=True)
class ReadPlay:
    """A play as read: never changed once made, since ``read_game`` gives the same one (its
    lists too) for every play of one or two cards a seat makes, in every record it reads."""

    seat: int
    cards: list[int]
    attempted: list[int]
    # Read once from the cards (a shared play's once for every record): their points, which a
    # trick adds up, and the card when they are copies of one (a single, pair or triple: most
    # plays), else -1.
    points: int = field(init=False)
    one_kind: int = field(init=False)

    def __init__(self, seat: int, cards: list[int], attempted: list[int]) -> None:
        self.seat = seat
        self.cards = cards
        self.attempted = attempted
        self.points = sum([POINTS[k] for k in cards])
        self.one_kind = cards[0] if cards and cards.count(cards[0]) == len(cards) else -1


@dataclass(slots=True)
class ReadTrick:
    leader: int
    plays: list[ReadPlay]
    declared_split: list[list[int]] | None
    claim: TrickClaims | None

    def __init__(
        self,
        leader: int,
        plays: list[ReadPlay],
        declared_split: list[list[int]] | None,
        claim: TrickClaims | None,
    ) -> None:
        self.leader = leader
        self.plays = plays
        self.declared_split = declared_split
        self.claim = claim


@dataclass(slots=True)
class ReadHand:
    """A record's content as card kinds and ints, ready to replay."""

    ruleset: Ruleset
    hands: list[list[int]]
    kitty: list[int]
    # The seat dealt the first card when the record gives the draw order (then ``hands`` hold
    # each seat's cards in the order drawn), None for dealt hands.
    first_drawer: int | None
    team_levels: tuple[int, int]
    dealer: int | None
    first_hand: bool
    bids: list[ReadBid]
    exchanges: list[ReadExchange]
    tricks: list[ReadTrick]
    claim: records_pb2.HandClaim | None
    violations: list[Violation]
    incomplete: str  # INCOMPLETE_KEY: why the source says the record stops early
    unsupported: str  # UNSUPPORTED_KEY: rules the record needs that no field models
    record_id: str
    # Read from an encoding whose draw order (if any), bids, kitty exchanges and tricks a
    # canonical writer wrote: each read from its bytes, so every token in them is canonical
    # and no field unknown.
    canonical: bool

    def __init__(
        self,
        ruleset: Ruleset,
        hands: list[list[int]],
        kitty: list[int],
        first_drawer: int | None,
        team_levels: tuple[int, int],
        dealer: int | None,
        first_hand: bool,
        bids: list[ReadBid],
        exchanges: list[ReadExchange],
        tricks: list[ReadTrick],
        claim: records_pb2.HandClaim | None,
        violations: list[Violation] | None = None,
        incomplete: str = "",
        unsupported: str = "",
        record_id: str = "",
        canonical: bool = False,
    ) -> None:
        self.ruleset = ruleset
        self.hands = hands
        self.kitty = kitty
        self.first_drawer = first_drawer
        self.team_levels = team_levels
        self.dealer = dealer
        self.first_hand = first_hand
        self.bids = bids
        self.exchanges = exchanges
        self.tricks = tricks
        self.claim = claim
        self.violations = [] if violations is None else violations
        self.incomplete = incomplete
        self.unsupported = unsupported
        self.record_id = record_id
        self.canonical = canonical


_KIND_OF = TOKEN_KINDS.__getitem__


def _fast_kinds(tokens: Sequence[str]) -> list[int] | None:
    """Kinds of upper-case tokens by look-up, or None when one needs the full reader."""
    try:
        # A slice copies a protobuf repeated field to a list in C, faster than iterating it.
        return list(map(_KIND_OF, tokens[:]))
    except KeyError:
        return None


class _Reader:
    def __init__(self, limits: Limits) -> None:
        self.violations: list[Violation] = []
        self.limits = limits

    def too_many(self, count: int, limit: int, what: str, path: str) -> bool:
        """Whether a repeated field is over its limit (a violation when it is)."""
        if count <= limit:
            return False
        self.violations.append(Violation(path, f"{count} {what}, at most {limit}"))
        return True

    def cards(self, tokens: Sequence[str], path: str, deal: bool = False) -> list[int]:
        limit = self.limits.deal if deal else self.limits.held
        if self.too_many(len(tokens), limit, "cards", path):
            return []
        fast = _fast_kinds(tokens)
        if fast is not None:
            return fast
        kinds: list[int] = []
        for i, token in enumerate(tokens):
            kind = TOKEN_KINDS.get(token)
            if kind is None:
                try:
                    kind = parse_card(token)
                except CardError as exc:
                    self.violations.append(Violation(f"{path}[{i}]", str(exc)))
                    continue
            kinds.append(kind)
        return kinds

    def seat(self, value: int, path: str) -> int:
        if not 0 <= value < 4:
            self.violations.append(Violation(path, f"seat {value} is not 0-3"))
            return 0
        return value

    def level(self, token: str, path: str) -> int:
        text = "T" if token == "10" else token.strip().upper()
        if not text:
            return 0  # an unset level reads as the first level, 2
        index = RANK_LETTERS.find(text)
        if len(text) != 1 or index < 0:
            self.violations.append(
                Violation(path, f"bad level {token!r}: expected a rank 2-9, T, J, Q, K or A")
            )
            return 0
        return index


def resolve_ruleset(ruleset_id: str, overrides_json: str, path: str = "") -> Ruleset | Violation:
    """The ruleset a record names, with its JSON overrides applied."""
    prefix = f"{path}." if path else ""
    overrides = f"{prefix}ruleset_overrides_json"
    try:
        ruleset = get_ruleset(ruleset_id or "classic")
        if overrides_json.strip():
            data = load_json(overrides_json)
            if not isinstance(data, dict):
                return Violation(overrides, "expected a JSON object")
            data.setdefault("base", ruleset.id)
            ruleset = ruleset_from_mapping(data)
    except json.JSONDecodeError as exc:
        return Violation(overrides, f"not valid JSON: {exc}")
    except RulesetError as exc:
        field_name = "ruleset_overrides_json" if overrides_json.strip() else "ruleset"
        return Violation(f"{prefix}{field_name}", str(exc))
    return ruleset


def load_json(text: str) -> Any:
    """``json.loads``, raising ``json.JSONDecodeError`` for every text it cannot read.

    ``json.loads`` itself raises ``RecursionError`` for arrays or objects nested about a
    thousand deep and a plain ``ValueError`` for a number of more than 4,300 digits.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None
    except ValueError:
        raise json.JSONDecodeError("a number with too many digits", text, 0) from None


def read_game(
    record: records_pb2.GameRecord | bytes, ruleset: Ruleset | None = None, path: str = ""
) -> ReadHand | list[Violation]:
    """Read a record (under ``ruleset`` when given, else its own); violations reject it.

    ``record`` is a ``GameRecord`` or its encoding: bytes are read once (``_RECORD_READ``),
    never built into the record's messages, so a caller holding them should pass them.

    >>> from chaodipi.auditor.generate import generate_hand
    >>> read = read_game(generate_hand("classic", seed=1).SerializeToString())
    >>> len(read.tricks)
    22
    >>> read_game(b"\\x0a\\xff")
    [Violation(field='record', description='not a GameRecord: its bytes do not parse')]
    """
    prefix = f"{path}." if path else ""
    fields: _RecordFields
    wire: _RecordWire
    canonical = isinstance(record, bytes)  # until a trick or the deck is read another way
    if isinstance(record, bytes):
        read = _parsed(_RECORD_READ, record)
        if read is None:
            return _unparsed(path)
        fields = wire = cast(_RecordRead, read)
        if len(wire.draw_order) > 1 or (wire.draw_order and fields.HasField("dealt_hands")):
            # A deal the wire merges or overrides (a draw order given twice, or beside dealt
            # hands): the record's own parse settles it.
            parsed = _parsed(records_pb2.GameRecord, record)
            return _unparsed(path) if parsed is None else read_game(parsed, ruleset, path)
    else:
        fields = record
        wire = cast(_RecordWire, _RECORD_WIRE.FromString(record.SerializeToString()))
    if ruleset is None:
        resolved = resolve_ruleset(fields.ruleset, fields.ruleset_overrides_json, path)
        if isinstance(resolved, Violation):
            return [resolved]
        ruleset = resolved
    limits = Limits.of(ruleset)
    reader = _Reader(limits)
    ctx = fields.context
    team_levels = (
        reader.level(ctx.team0_level, f"{prefix}context.team0_level"),
        reader.level(ctx.team1_level, f"{prefix}context.team1_level"),
    )
    dealer = reader.seat(ctx.dealer, f"{prefix}context.dealer") if ctx.HasField("dealer") else None
    hands: list[list[int]] = [[], [], [], []]
    kitty: list[int] = []
    first_drawer: int | None = None
    if fields.HasField("dealt_hands"):
        dealt = fields.dealt_hands
        if len(dealt.hands) != 4:
            reader.violations.append(
                Violation(
                    f"{prefix}dealt_hands.hands", f"expected 4 hands, found {len(dealt.hands)}"
                )
            )
        for seat, hand in enumerate(dealt.hands[:4]):
            hands[seat] = reader.cards(
                hand.cards, f"{prefix}dealt_hands.hands[{seat}].cards", deal=True
            )
        kitty = reader.cards(dealt.kitty, f"{prefix}dealt_hands.kitty", deal=True)
    elif wire.draw_order:
        encoded = wire.draw_order[0]
        deck_read = _deck_from_wire(encoded, limits.deal)
        if deck_read is None:
            canonical = False
            order = _parsed(records_pb2.DrawOrder, encoded)
            if order is None:
                reader.violations.append(
                    Violation(f"{prefix}draw_order", "not a DrawOrder: its bytes do not parse")
                )
                order = records_pb2.DrawOrder()
            deck_read = (
                reader.cards(order.deck, f"{prefix}draw_order.deck", deal=True),
                order.first_drawer,
            )
        deck, first_seat = deck_read
        first = reader.seat(first_seat, f"{prefix}draw_order.first_drawer")
        dealt_count = max(len(deck) - ruleset.kitty_size, 0)
        # Card i goes to seat (first + i) % 4: each seat's cards are every fourth, in C.
        hands = [deck[(seat - first) % 4 : dealt_count : 4] for seat in range(4)]
        kitty = deck[dealt_count:]
        first_drawer = first
    else:
        reader.violations.append(
            Violation(f"{prefix}deal", "missing: give draw_order or dealt_hands")
        )
    bids, bids_from_wire = _read_each(
        reader, wire.bids, limits.items, "bids", f"{prefix}bids",
        _bid_from_wire, records_pb2.BidEvent, _read_bid,
    )  # fmt: skip
    exchanges, exchanges_from_wire = _read_each(
        reader, wire.kitty_exchanges, limits.items, "kitty exchanges",
        f"{prefix}kitty_exchanges", _exchange_from_wire, records_pb2.KittyExchange,
        _read_exchange,
    )  # fmt: skip
    tricks, tricks_from_wire = _read_each(
        reader, wire.tricks, limits.held, "tricks", f"{prefix}tricks",
        _trick_from_wire, records_pb2.Trick, _read_trick,
    )  # fmt: skip
    canonical = canonical and bids_from_wire and exchanges_from_wire and tricks_from_wire
    if reader.violations:
        return reader.violations
    metadata = fields.metadata
    # Its fields in order, not by keyword: pure Python makes a dict of the keywords for each
    # call of a class (as for the bids and exchanges read, and ``Limits``).
    return ReadHand(
        ruleset,
        hands,
        kitty,
        first_drawer,
        team_levels,
        dealer,
        ctx.first_hand,
        bids,
        exchanges,
        tricks,
        fields.claim if fields.HasField("claim") else None,
        None,  # violations: none
        metadata.get(INCOMPLETE_KEY, ""),  # incomplete
        metadata.get(UNSUPPORTED_KEY, ""),  # unsupported
        fields.record_id,
        canonical,
    )


def _unparsed(path: str) -> list[Violation]:
    return [Violation(path or "record", "not a GameRecord: its bytes do not parse")]


def record_names(record: records_pb2.GameRecord | bytes) -> tuple[str, str]:
    """A record's id and ruleset as written, for a report that rejects it (empty when its
    bytes do not parse)."""
    if not isinstance(record, bytes):
        return record.record_id, record.ruleset
    read = _parsed(_RECORD_READ, record)
    if read is None:
        return "", ""
    names = cast(_RecordRead, read)
    return names.record_id, names.ruleset


_M = TypeVar("_M", bound=Message)


def _parsed(kind: type[_M], data: bytes) -> _M | None:
    """A field's message from its bytes, or None when they do not parse (only bytes a caller
    gave can fail: an encoding ``SerializeToString`` made always parses)."""
    try:
        return kind.FromString(data)
    except DecodeError:
        return None


def _read_trick(reader: _Reader, trick: records_pb2.Trick, path: str) -> ReadTrick:
    """A trick read field by field, every malformed field a violation (``_trick_from_wire``
    reads the usual ones)."""
    plays = []
    all_plays: Sequence[records_pb2.Play] = trick.plays
    play_count = len(all_plays)
    if reader.too_many(play_count, PLAYS_PER_TRICK, "plays", f"{path}.plays"):
        all_plays = all_plays[:0]
    for p, play in enumerate(all_plays):
        seat = reader.seat(play.seat, f"{path}.plays[{p}].seat")
        cards = reader.cards(play.cards, f"{path}.plays[{p}].cards")
        # Only a lead carries a failed throw's attempt; a follow's is never read.
        attempted: list[int] = []
        if p == 0 and play.attempted:
            attempted = reader.cards(play.attempted, f"{path}.plays[{p}].attempted")
        plays.append(ReadPlay(seat, cards, attempted))
    if not play_count:
        reader.violations.append(Violation(f"{path}.plays", "a trick needs at least the lead"))
    units = trick.declared_split
    split = (
        [reader.cards(u.cards, f"{path}.declared_split[{i}].cards") for i, u in enumerate(units)]
        if units
        and not reader.too_many(len(units), reader.limits.held, "units", f"{path}.declared_split")
        else None
    )
    leader = reader.seat(trick.leader, f"{path}.leader")
    claim = TrickClaims.of(trick.claim) if trick.HasField("claim") else None
    return ReadTrick(leader, plays, split, claim)


class _RecordFields(Protocol):
    """The fields of a record read from its messages: a ``GameRecord``'s, or ``_RECORD_READ``'s."""

    @property
    def record_id(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def ruleset_overrides_json(self) -> str: ...
    @property
    def context(self) -> records_pb2.HandContext: ...
    @property
    def dealt_hands(self) -> records_pb2.DealtHands: ...
    @property
    def claim(self) -> records_pb2.HandClaim: ...
    @property
    def metadata(self) -> Mapping[str, str]: ...
    def HasField(self, field_name: Literal["claim", "dealt_hands"]) -> bool: ...


class _RecordWire(Protocol):
    """The fields of a record read from their bytes (``_RECORD_WIRE``, ``_RECORD_READ``): the
    draw order (repeated, so that one given twice is seen), the bids, the kitty exchanges and
    the tricks."""

    @property
    def draw_order(self) -> Sequence[bytes]: ...
    @property
    def bids(self) -> Sequence[bytes]: ...
    @property
    def kitty_exchanges(self) -> Sequence[bytes]: ...
    @property
    def tricks(self) -> Sequence[bytes]: ...


class _RecordRead(_RecordFields, _RecordWire, Protocol):
    """A record's encoding read by ``_RECORD_READ``."""


def _view(
    name: str,
    source: Descriptor,
    edit: Callable[[descriptor_pb2.DescriptorProto, str], None],
    needs: tuple[str, ...] = (),
) -> Descriptor:
    """A copy of a ``chaodipi.v1`` message type named ``chaodipi.auditor.<name>``, changed by
    ``edit`` (given the copy and its full name), in the default pool: added once, then found
    (``needs``: the files of other views it names)."""
    pool = descriptor_pool.Default()
    full_name = f"chaodipi.auditor.{name}"
    try:
        return pool.FindMessageTypeByName(full_name)
    except KeyError:
        pass
    file = descriptor_pb2.FileDescriptorProto(
        name=f"chaodipi/auditor/{name}.proto",
        package="chaodipi.auditor",
        syntax="proto3",
        dependency=[records_pb2.DESCRIPTOR.name, *needs],
    )
    message = file.message_type.add()
    source.CopyToProto(message)
    message.name = name
    edit(message, full_name)
    pool.AddSerializedFile(file.SerializeToString())
    return pool.FindMessageTypeByName(full_name)


_READ_FROM_WIRE: Final = ("draw_order", "bids", "kitty_exchanges", "tricks")
"""The record's fields read from their bytes."""


def _bytes_view(name: str, whole: bool) -> type[Message]:
    """``GameRecord`` with its draw order, bids, kitty exchanges and tricks declared ``bytes``,
    which the wire allows; ``whole``: with every other field of the record, else without.

    Parsed in C, any other field is the record's own message; the deck, the bids, the
    exchanges and the tricks, most of a record, are read from their bytes (``_deck_from_wire``,
    ``_bid_from_wire``, ``_exchange_from_wire``, ``_trick_from_wire``) at a fraction of
    building a message for each and reading its fields. The draw order is repeated and
    out of the ``deal`` oneof, so a record whose wire gives it twice, or beside dealt hands,
    is seen (``read_game`` then lets the record's own parse settle it).
    """

    def edit(message: descriptor_pb2.DescriptorProto, full_name: str) -> None:
        deal = [d.name for d in message.oneof_decl].index("deal")
        del message.oneof_decl[deal]
        kept = []
        for fd in message.field:
            if fd.name in _READ_FROM_WIRE:
                fd.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
                fd.label = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
                fd.ClearField("type_name")
            elif not whole:
                continue
            elif fd.type_name.startswith(".chaodipi.v1.GameRecord."):  # nested: the metadata map
                fd.type_name = f".{full_name}.{fd.type_name.rsplit('.', 1)[1]}"
            if fd.HasField("oneof_index"):
                if fd.oneof_index == deal:
                    fd.ClearField("oneof_index")
                elif fd.oneof_index > deal:
                    fd.oneof_index -= 1
            kept.append(fd)
        del message.field[:]
        message.field.extend(kept)
        if not whole:
            del message.nested_type[:]
            del message.oneof_decl[:]

    return message_factory.GetMessageClass(_view(name, records_pb2.GameRecord.DESCRIPTOR, edit))


_RECORD_READ: Final = _bytes_view("RecordRead", whole=True)
"""A record's encoding read once: a caller's bytes (``read_game``)."""
_RECORD_WIRE: Final = _bytes_view("RecordWire", whole=False)
"""A ``GameRecord``'s fields read from their bytes, read again from its encoding (``read_game``)."""


def _game_as_read(message: descriptor_pb2.DescriptorProto, full_name: str) -> None:
    for fd in message.field:
        if fd.name == "game":
            fd.type_name = f".{_RECORD_READ.DESCRIPTOR.full_name}"


RECORD_FILE_READ: Final = _view(
    "RecordFileRead",
    records_pb2.RecordFile.DESCRIPTOR,
    _game_as_read,
    (_RECORD_READ.DESCRIPTOR.file.name,),
)
"""``RecordFile`` with its game as ``_RECORD_READ`` reads it, its draw order, bids, kitty
exchanges and tricks ``bytes``: what a reader of records still checks of a game
``audit_encoded_game`` reads, whose read vouches for the rest (``ReadHand.canonical``)."""


_LEADER_TAG: Final = field_tag(records_pb2.Trick, "leader", VARINT)
_PLAY_TAG: Final = field_tag(records_pb2.Trick, "plays", LEN)
_CLAIM_TAG: Final = field_tag(records_pb2.Trick, "claim", LEN)
_SEAT_TAG: Final = field_tag(records_pb2.Play, "seat", VARINT)
_CARD_TAG: Final = field_tag(records_pb2.Play, "cards", LEN)
_ATTEMPT_TAG: Final = field_tag(records_pb2.Play, "attempted", LEN)
_FIRST_DRAWER_TAG: Final = field_tag(records_pb2.DrawOrder, "first_drawer", VARINT)
_BID_SEAT_TAG: Final = field_tag(records_pb2.BidEvent, "seat", VARINT)
_BID_KIND_TAG: Final = field_tag(records_pb2.BidEvent, "kind", VARINT)
_BID_CARD_TAG: Final = field_tag(records_pb2.BidEvent, "cards", LEN)
_BID_TRUMP_TAG: Final = field_tag(records_pb2.BidEvent, "trump_chosen", VARINT)
_BID_DRAWN_TAG: Final = field_tag(records_pb2.BidEvent, "drawn_count", VARINT)
_BID_KINDS_BY_BYTE: Final = cast(Mapping[int, BidKind], BID_KINDS)
_SUITS_BY_BYTE: Final = cast(Mapping[int, "int | None"], SUITS_BY_PROTO)
"""The bid kinds and suits by their numbers, looked up by a byte read (an enum's number is an
int on the wire)."""
_EXCHANGE_SEAT_TAG: Final = field_tag(records_pb2.KittyExchange, "seat", VARINT)
_PICKED_UP_TAG: Final = field_tag(records_pb2.KittyExchange, "picked_up", LEN)
_BURIED_TAG: Final = field_tag(records_pb2.KittyExchange, "buried", LEN)
_PICKED_UP_TAGS: Final = bytes((_PICKED_UP_TAG,))
"""The tag a card picked up has, as bytes: what an exchange's column of tags starts with."""


_NO_CARD: Final = 0xFF


def _kinds_by_code() -> bytes:
    kinds = bytearray([_NO_CARD]) * 0x10000
    for token, kind in TOKEN_KINDS.items():
        kinds[ord(token[0]) << 8 | ord(token[1])] = kind
    return bytes(kinds)


_KINDS_BY_CODE: Final = _kinds_by_code()
"""Card kinds by a token's two bytes (``first << 8 | second``), ``_NO_CARD`` for no token: bytes,
which the garbage collector never walks."""
_DECK_TAG: Final = field_tag(records_pb2.DrawOrder, "deck", LEN)
_NOT_A_LETTER: Final = 64
"""Past every suit's base plus rank's step (at most 56), and two of it stay under 256."""


def _deck_letters() -> tuple[bytes, bytes]:
    """``_deck_from_wire``'s tables: each suit letter's base and each rank letter's step, as
    ``bytes.translate`` tables (a card's kind is its suit's base plus its rank's step, every
    other byte ``_NOT_A_LETTER``)."""
    steps = {t[1]: k - TOKEN_KINDS["S2"] for t, k in TOKEN_KINDS.items() if t[0] == "S"}
    bases = {t[0]: k - steps[t[1]] for t, k in TOKEN_KINDS.items()}
    assert all(bases[t[0]] + steps[t[1]] == k for t, k in TOKEN_KINDS.items())
    suit_table, rank_table = bytearray([_NOT_A_LETTER]) * 256, bytearray([_NOT_A_LETTER]) * 256
    for letter, base in bases.items():
        suit_table[ord(letter)] = base
    for letter, step in steps.items():
        rank_table[ord(letter)] = step
    return bytes(suit_table), bytes(rank_table)


_SUIT_BASES, _RANK_STEPS = _deck_letters()
_CARD_KINDS: Final = bytes(range(KINDS))
"""Every card kind as a byte: what ``bytes.translate`` deletes to leave any other byte."""


def _plays_by_code() -> dict[bytes, ReadPlay]:
    """A single card or a pair played, as a canonical writer encodes it: the seat when not 0
    (tag, seat), then each card (tag, length 2, token); by its bytes, the play read."""
    cards = [(bytes((_CARD_TAG, 2)) + t.encode(), k) for t, k in TOKEN_KINDS.items()]
    seats = [b"", *(bytes((_SEAT_TAG, seat)) for seat in range(1, 4))]
    return {
        seats[seat] + card * copies: ReadPlay(seat, [kind] * copies, [])
        for seat in range(4)
        for card, kind in cards
        for copies in (1, 2)
    }


_PLAYS_BY_CODE: Final = _plays_by_code()
"""Plays of one or two cards (most plays) by their encodings: each read once, and the same
``ReadPlay`` given for it in every record. Single cards and pairs are read when the module is;
two cards of two kinds (a follow to a pair, most often) when first met: at most 54 × 54 for
each of the five ways ``_play_from_wire`` reads a seat (left out for seat 0, or written 0-3)."""


_CLAIMS_KEPT: Final = 4096

_CLAIMS_BY_CODE: Final[dict[bytes, TrickClaims]] = {}
"""Trick claims by their encodings, each read once (a few hundred encodings make most tricks'
claims: a winner, points in fives, rarely a penalty), up to ``_CLAIMS_KEPT`` of them; past
that, an encoding not kept is read each time. Looked up where a trick is read: a dict's
look-up costs a fraction of a call through ``functools.lru_cache``."""


def _claims_from_wire(data: bytes) -> TrickClaims | None:
    """A trick's claims from their encoding, kept in ``_CLAIMS_BY_CODE`` while it has room
    (None: the bytes do not parse, or hold more than the claims read)."""
    message = _parsed(records_pb2.TrickClaim, data)
    if message is None:
        return None
    # Bytes holding more than the values read (a field unknown, or one written twice or at
    # its default) are read field by field: a trick read from its bytes holds no field
    # unknown (``ReadHand.canonical``).
    message.DiscardUnknownFields()
    if message.ByteSize() != len(data):
        return None
    claims = TrickClaims.of(message)
    if len(_CLAIMS_BY_CODE) < _CLAIMS_KEPT:
        _CLAIMS_BY_CODE[data] = claims
    return claims


def _deck_from_wire(data: bytes, max_cards: int) -> tuple[list[int], int] | None:
    """The deck and first drawer of a draw order a canonical writer wrote (its cards, each in
    four bytes, then the first drawer when not 0, in two), or None: then the full reader
    reads it. No card's four bytes end with the first drawer's tag, a control character."""
    first_drawer = 0
    end = len(data)
    if end % 4 == 2 and data[-2] == _FIRST_DRAWER_TAG and 0 < data[-1] < 128:
        first_drawer = data[-1]
        end -= 2
    if end % 4 or end // 4 > max_cards:
        return None
    cards = end // 4
    body = data[:end]
    if body[::4].count(_DECK_TAG) != cards or body[1::4].count(2) != cards:
        return None  # not every card is a tag, the length 2 and two letters
    kinds = _kinds_of_columns(body[2::4], body[3::4])
    return None if kinds is None else (list(kinds), first_drawer)


def _kinds_of_columns(suits: bytes, ranks: bytes) -> bytes | None:
    """The kinds of cards whose tokens' first letters are ``suits`` and second ``ranks``, a
    byte a card; None when one is not a card's token."""
    # Every card's suit base plus rank step at once, in C: the two columns as numbers of a
    # byte a card, added. No byte carries into the next, each sum being under 256.
    bases, steps = suits.translate(_SUIT_BASES), ranks.translate(_RANK_STEPS)
    kinds = (int.from_bytes(bases) + int.from_bytes(steps)).to_bytes(len(suits))
    if kinds.translate(None, _CARD_KINDS):
        return None  # a letter that no token has, or a sum past the last card
    if not narrow_suits_hold(suits, ranks):
        return None  # a joker's letter beside another rank
    return kinds


def _cards_from_wire(data: bytes, i: int, tag: int, kinds: list[int]) -> int:
    """The cards written from ``i`` on under ``tag`` (each its tag, the length 2 and its token)
    read into ``kinds``; where they end, or -1 at a token that is no card's."""
    size = len(data)
    while i + 3 < size and data[i] == tag and data[i + 1] == 2:
        kind = _KINDS_BY_CODE[data[i + 2] << 8 | data[i + 3]]
        if kind == _NO_CARD:
            return -1
        kinds.append(kind)
        i += 4
    return i


def _bid_from_wire(data: bytes, max_cards: int) -> ReadBid | None:
    """A bid read from its bytes when a canonical writer wrote them and every field is valid,
    or None: then the full reader reads it and names what is wrong.

    Canonical: the seat (when not 0) and the kind, then each card (tag, length 2, token),
    then the trump named and the cards drawn when given, each number in one byte (the cards
    drawn in up to two); no field unknown to the reader.
    """
    size = len(data)
    seat = i = 0
    if size > 1 and data[0] == _BID_SEAT_TAG:
        seat = data[1]
        if seat > 3:  # a seat out of range, or more than one byte
            return None
        i = 2
    if i + 1 >= size or data[i] != _BID_KIND_TAG:
        return None  # no kind: the full reader says it is not set
    kind = _BID_KINDS_BY_BYTE.get(data[i + 1])
    if kind is None:
        return None
    cards: list[int] = []
    i = _cards_from_wire(data, i + 2, _BID_CARD_TAG, cards)
    if i < 0 or len(cards) > max_cards:
        return None
    names_trump = False
    trump = None
    if i + 1 < size and data[i] == _BID_TRUMP_TAG:
        if data[i + 1] not in _SUITS_BY_BYTE:  # no suit, or more than one byte
            return None
        names_trump, trump = True, _SUITS_BY_BYTE[data[i + 1]]
        i += 2
    drawn = None
    if i + 1 < size and data[i] == _BID_DRAWN_TAG:
        drawn = data[i + 1]
        i += 2
        if drawn > 127:  # in two bytes: three decks deal more than 127 cards
            if i >= size or data[i] > 127:
                return None
            drawn = drawn & 0x7F | data[i] << 7
            i += 1
    if i != size:
        return None
    return ReadBid(seat, kind, cards, names_trump, trump, drawn)


def _exchange_from_wire(data: bytes, max_cards: int) -> ReadExchange | None:
    """A kitty exchange read from its bytes when a canonical writer wrote them and every field
    is valid, or None: then the full reader reads it and names what is wrong.

    Canonical: the seat (when not 0), then each card picked up and each card buried, in four
    bytes a card (tag, length 2, token); no field unknown to the reader.
    """
    seat = 0
    body = data
    if len(data) > 1 and data[0] == _EXCHANGE_SEAT_TAG:
        seat = data[1]
        if seat > 3:  # a seat out of range, or more than one byte
            return None
        body = data[2:]
    if len(body) % 4:
        return None
    tags = body[::4]
    cards = len(tags)
    # The cards picked up come first: the tags up to the first that is not theirs.
    picked = cards - len(tags.lstrip(_PICKED_UP_TAGS))
    if (
        tags.count(_BURIED_TAG) != cards - picked
        or body[1::4].count(2) != cards
        or max(picked, cards - picked) > max_cards
    ):
        return None  # not every card is a tag, the length 2 and two letters, in order
    kinds = _kinds_of_columns(body[2::4], body[3::4])
    if kinds is None:
        return None
    return ReadExchange(seat, list(kinds[:picked]), list(kinds[picked:]))


def _play_from_wire(data: bytes, lead: bool, max_cards: int) -> ReadPlay | None:
    """A play read from its encoding as a canonical writer encodes a valid one (seat 0-3,
    upper-case tokens, an attempt on a lead only), or None: the full reader reads it."""
    size = len(data)
    seat = 0
    i = 0
    if size > 1 and data[0] == _SEAT_TAG:
        seat = data[1]
        if seat > 3:  # a seat out of range, or more than one byte
            return None
        i = 2
    cards: list[int] = []
    attempted: list[int] = []
    i = _cards_from_wire(data, i, _CARD_TAG, cards)
    if 0 <= i < size:  # more: a failed throw's attempt, on a lead
        i = _cards_from_wire(data, i, _ATTEMPT_TAG, attempted)
    if i != size or len(cards) > max_cards or len(attempted) > max_cards:
        return None
    if attempted and not lead:
        return None
    return ReadPlay(seat, cards, attempted)


def _trick_from_wire(data: bytes, max_cards: int) -> ReadTrick | None:
    """A trick read from its bytes when a canonical writer wrote them and every field is
    valid, or None: then the full reader reads it and names what is wrong.

    Canonical: the leader (when not 0) in one byte, then the plays, each under 128 bytes,
    then the claim, if any; no declared split, no field unknown to the reader. The bytes may
    be any a caller gave: a tag with nothing after it, or a length past the end, is not read.
    """
    size = len(data)
    leader = 0
    i = 0
    if size > 1 and data[0] == _LEADER_TAG:
        leader = data[1]
        if leader > 3:  # a seat out of range, or more than one byte
            return None
        i = 2
    plays: list[ReadPlay] = []
    while i + 1 < size and data[i] == _PLAY_TAG:
        end = i + 2 + data[i + 1]
        encoded = data[i + 2 : end]
        shared = _PLAYS_BY_CODE.get(encoded)
        if shared is not None:  # most plays
            # Its length byte was a whole length (a key is under 128 bytes), or the slice ran
            # short at the end: then ``end`` is past it, and the trick is not read (below).
            plays.append(shared)
        else:
            if data[i + 1] > 127:  # a length of more than one byte
                return None
            play = _play_from_wire(encoded, not plays, max_cards)
            if play is None:
                return None
            if len(play.cards) == 2 and not play.attempted:
                _PLAYS_BY_CODE[encoded] = play
            plays.append(play)
        i = end
    if not plays or len(plays) > PLAYS_PER_TRICK:
        return None
    claim = None
    if i + 1 < size and data[i] == _CLAIM_TAG:
        length = data[i + 1]
        if length > 127 or i + 2 + length != size:
            return None
        encoded = data[i + 2 :]
        claim = _CLAIMS_BY_CODE.get(encoded) or _claims_from_wire(encoded)
        if claim is None:
            return None
        i = size
    if i != size:
        return None
    return ReadTrick(leader, plays, None, claim)


_E = TypeVar("_E")


def _read_each(
    reader: _Reader,
    encodings: Sequence[bytes],
    limit: int,
    what: str,
    path: str,
    from_wire: Callable[[bytes, int], _E | None],
    kind: type[_M],
    read: Callable[[_Reader, _M, str], _E],
) -> tuple[list[_E], bool]:
    """A record's bids, kitty exchanges or tricks (at most ``limit``), each read from its bytes
    (``from_wire``) or, when they are not as a canonical writer writes them, parsed as ``kind``
    and read field by field (``read``), every malformed field a violation; and whether each was
    read from its bytes."""
    if reader.too_many(len(encodings), limit, what, path):
        return [], False
    items: list[_E] = []
    from_bytes = True
    max_cards = reader.limits.held
    # Walked as a list made in C (a slice): cheaper than the field's iterator.
    for i, encoded in enumerate(encodings[:]):
        item = from_wire(encoded, max_cards)
        if item is None:
            from_bytes = False
            where = f"{path}[{i}]"
            message = _parsed(kind, encoded)
            if message is None:
                name = kind.DESCRIPTOR.name
                reader.violations.append(Violation(where, f"not a {name}: its bytes do not parse"))
                continue
            item = read(reader, message, where)
        items.append(item)
    return items, from_bytes


def _read_bid(reader: _Reader, bid: records_pb2.BidEvent, path: str) -> ReadBid:
    names_trump = bid.HasField("trump_chosen")
    if names_trump and bid.trump_chosen not in SUITS_BY_PROTO:
        reader.violations.append(
            Violation(f"{path}.trump_chosen", "expected a suit or SUIT_NO_TRUMP")
        )
    kind = bid.kind
    if kind == records_pb2.BID_KIND_UNSPECIFIED:
        reader.violations.append(Violation(f"{path}.kind", "bid kind not set"))
    elif kind not in BID_KINDS:
        reader.violations.append(
            Violation(f"{path}.kind", f"bid kind {kind} is not one of 1-5 (BidKind)")
        )
    return ReadBid(
        reader.seat(bid.seat, f"{path}.seat"),
        # An unknown kind is a violation above, which rejects the record.
        BID_KINDS.get(kind, BidKind.DECLARE),
        reader.cards(bid.cards, f"{path}.cards"),
        names_trump,
        SUITS_BY_PROTO.get(bid.trump_chosen) if names_trump else None,
        bid.drawn_count if bid.HasField("drawn_count") else None,
    )


def _read_exchange(reader: _Reader, ex: records_pb2.KittyExchange, path: str) -> ReadExchange:
    return ReadExchange(
        reader.seat(ex.seat, f"{path}.seat"),
        reader.cards(ex.picked_up, f"{path}.picked_up"),
        reader.cards(ex.buried, f"{path}.buried"),
    )


def read_bid(
    ruleset: Ruleset, bid: records_pb2.BidEvent, path: str = "bid"
) -> ReadBid | list[Violation]:
    """One bid read as ``read_game`` reads a record's bids (violations: it cannot be)."""
    reader = _Reader(Limits.of(ruleset))
    read = _read_bid(reader, bid, path)
    return reader.violations or read


def read_exchange(
    ruleset: Ruleset, ex: records_pb2.KittyExchange, path: str = "kitty_exchange"
) -> ReadExchange | list[Violation]:
    """One kitty exchange read as ``read_game`` reads a record's."""
    reader = _Reader(Limits.of(ruleset))
    read = _read_exchange(reader, ex, path)
    return reader.violations or read


def read_play(
    ruleset: Ruleset,
    play: records_pb2.Play,
    split: Sequence[records_pb2.Unit],
    *,
    lead: bool,
    path: str = "play",
) -> tuple[ReadPlay, list[list[int]] | None] | list[Violation]:
    """One play (and a lead's declared split) read as ``read_game`` reads a trick's plays."""
    reader = _Reader(Limits.of(ruleset))
    seat = reader.seat(play.seat, f"{path}.seat")
    cards = reader.cards(play.cards, f"{path}.cards")
    # Only a lead carries a failed throw's attempt or a split.
    attempted = reader.cards(play.attempted, f"{path}.attempted") if lead else []
    units = (
        [reader.cards(u.cards, f"{path}.declared_split[{i}].cards") for i, u in enumerate(split)]
        if lead
        and split
        and not reader.too_many(len(split), reader.limits.held, "units", f"{path}.declared_split")
        else None
    )
    return reader.violations or (ReadPlay(seat, cards, attempted), units)
