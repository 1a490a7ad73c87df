"""The one vocabulary between the protobuf records (``chaodipi.v1``) and the engine's values.

Each mapping between a protobuf enum or message and an engine value is written here once:
card tokens, suits and no-trump (``SUIT_NO_TRUMP`` on the wire, ``None`` in the engine), bid
kinds, level outcomes, and how a level result is written. The engine never imports protobuf;
the auditor, the service and the importers convert through this module.

>>> SUITS_BY_PROTO[records_pb2.SUIT_NO_TRUMP] is None, PROTO_SUITS[1] == records_pb2.SUIT_HEARTS
(True, True)
>>> result = records_pb2.LevelResult(outcome=records_pb2.OUTCOME_DEALER_UP, levels=2)
>>> describe_result(result), short_level_result(result), NOTATION_OUTCOMES[result.outcome]
('D+2', 'D+2', 'D')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from chaodipi.engine import (
    KINDS,
    NO_TRUMP_TOKEN,
    RANK_LETTERS,
    SUIT_NAMES,
    BidKind,
    LevelResult,
    Outcome,
    card_token,
    trump_token,
)
from chaodipi.v1 import records_pb2

TOKEN_KINDS: Final[dict[str, int]] = {card_token(k): k for k in range(KINDS)}
"""Card kinds by upper-case token: a record's cards resolve by one look-up."""


def _narrow_marks() -> list[tuple[bytes, bytes]]:
    tokens = [t.encode() for t in TOKEN_KINDS]
    ranks = {t[1] for t in tokens}
    letters_by_ranks: dict[frozenset[int], list[int]] = {}
    for suit in sorted({t[0] for t in tokens}):
        takes = frozenset(t[1] for t in tokens if t[0] == suit)
        if takes != ranks:
            letters_by_ranks.setdefault(takes, []).append(suit)
    return [
        (
            bytes(1 if b in letters else 0 for b in range(256)),
            bytes(0 if b in takes else 1 for b in range(256)),
        )
        for takes, letters in letters_by_ranks.items()
    ]


_NARROW_MARKS: Final = _narrow_marks()
"""For each set of ranks that some suit letters take alone (the jokers' ``L`` and ``B``, rank
``J`` only): a table marking those letters with 1, and one marking every other rank with 1."""


def narrow_suits_hold(suits: bytes, ranks: bytes) -> bool:
    """Whether every suit letter that takes some ranks only (a joker's) stands beside one of
    them, given card elements' suit letters and rank letters as two columns, a byte a card.

    Each column is marked a byte a card (``bytes.translate``), and the marks read as two
    numbers share a set bit exactly where such a letter stands beside another rank: linear in
    the cards, in C.

    >>> narrow_suits_hold(b"SLB", b"AJJ"), narrow_suits_hold(b"SLB", b"AJA")
    (True, False)
    """
    for letters, others in _NARROW_MARKS:
        if int.from_bytes(suits.translate(letters)) & int.from_bytes(ranks.translate(others)):
            return False
    return True


def tokens(kinds: Iterable[int]) -> list[str]:
    """Card tokens of kinds, for a record's or a report's repeated card field."""
    return [card_token(k) for k in kinds]


SUITS_BY_PROTO: Final[dict[records_pb2.Suit.ValueType, int | None]] = {
    records_pb2.SUIT_SPADES: 0,
    records_pb2.SUIT_HEARTS: 1,
    records_pb2.SUIT_CLUBS: 2,
    records_pb2.SUIT_DIAMONDS: 3,
    records_pb2.SUIT_NO_TRUMP: None,
}
"""The engine's trump suit (0-3, None for no-trump) of each protobuf suit but the unset one."""
PROTO_SUITS: Final[dict[int | None, records_pb2.Suit.ValueType]] = {
    v: k for k, v in SUITS_BY_PROTO.items()
}
SUIT_TOKENS: Final[dict[records_pb2.Suit.ValueType, str]] = {
    k: NO_TRUMP_TOKEN if v is None else trump_token(v) for k, v in SUITS_BY_PROTO.items()
}
"""The token of each protobuf suit: ``S``, ``H``, ``C``, ``D``, ``NT``."""

BID_KINDS: Final[dict[records_pb2.BidKind.ValueType, BidKind]] = {
    records_pb2.BID_KIND_DECLARE: BidKind.DECLARE,
    records_pb2.BID_KIND_LOCK: BidKind.LOCK,
    records_pb2.BID_KIND_OVERCALL: BidKind.OVERCALL,
    records_pb2.BID_KIND_CHAO_DI: BidKind.CHAO_DI,
    records_pb2.BID_KIND_KITTY_FLIP: BidKind.KITTY_FLIP,
}
PROTO_BID_KINDS: Final[dict[BidKind, records_pb2.BidKind.ValueType]] = {
    v: k for k, v in BID_KINDS.items()
}

OUTCOMES: Final[dict[Outcome, records_pb2.Outcome.ValueType]] = {
    Outcome.DEALER_UP: records_pb2.OUTCOME_DEALER_UP,
    Outcome.SWAP: records_pb2.OUTCOME_SWAP,
    Outcome.DEFENDERS_UP: records_pb2.OUTCOME_DEFENDERS_UP,
    Outcome.DEALER_WINS_MATCH: records_pb2.OUTCOME_DEALER_WINS_MATCH,
}


def fill_level(message: records_pb2.LevelResult, level: LevelResult) -> None:
    """Write the engine's level result into a protobuf one (levels after as rank tokens)."""
    if level.match_winner == "defenders":
        message.outcome = records_pb2.OUTCOME_DEFENDERS_WIN_MATCH
    elif level.match_winner == "dealer":
        message.outcome = records_pb2.OUTCOME_DEALER_WINS_MATCH
    else:
        message.outcome = OUTCOMES[level.outcome]
    message.levels = level.levels
    if level.match_winner is None:
        message.dealer_team_level_after = RANK_LETTERS[level.dealer_level_after]
        message.defender_team_level_after = RANK_LETTERS[level.defender_level_after]


@dataclass(frozen=True, slots=True)
class OutcomeWords:
    """How one level outcome is written (``{levels}`` stands for the levels moved).

    ``notation`` is the word of the text notation (docs/notation.md); ``stored`` the
    short form a stored game keeps and the service answers with; ``finding`` the form
    findings and summaries print. Each is a format already in files, databases and
    reports, so they differ only where they always did: the match-winning outcomes.
    """

    notation: str
    stored: str
    finding: str


LEVEL_RESULT_WORDS: Final[dict[records_pb2.Outcome.ValueType, OutcomeWords]] = {
    records_pb2.OUTCOME_UNSPECIFIED: OutcomeWords("-", "", "unset"),
    records_pb2.OUTCOME_DEALER_UP: OutcomeWords("D", "D+{levels}", "D+{levels}"),
    records_pb2.OUTCOME_SWAP: OutcomeWords("swap", "swap", "swap"),
    records_pb2.OUTCOME_DEFENDERS_UP: OutcomeWords("A", "A+{levels}", "A+{levels}"),
    records_pb2.OUTCOME_DEALER_WINS_MATCH: OutcomeWords(
        "D-wins", "D wins", "dealer side wins the match"
    ),
    records_pb2.OUTCOME_DEFENDERS_WIN_MATCH: OutcomeWords(
        "A-wins", "A win", "defenders win the match"
    ),
}
_UNSET: Final = LEVEL_RESULT_WORDS[records_pb2.OUTCOME_UNSPECIFIED]
NOTATION_OUTCOMES: Final[dict[records_pb2.Outcome.ValueType, str]] = {
    k: v.notation for k, v in LEVEL_RESULT_WORDS.items()
}
"""The notation's word of each outcome (``D+2`` is the word and the levels)."""


def describe_result(result: records_pb2.LevelResult) -> str:
    """``D+2``, ``swap``, ``A+1``, ``dealer side wins the match`` for findings and summaries."""
    words = LEVEL_RESULT_WORDS.get(result.outcome, _UNSET)
    return words.finding.format(levels=result.levels)


def short_level_result(result: records_pb2.LevelResult) -> str:
    """``D+2``, ``swap``, ``A+1``, ``D wins``, ``A win`` as a game is stored (empty when unset)."""
    words = LEVEL_RESULT_WORDS.get(result.outcome, _UNSET)
    return words.stored.format(levels=result.levels)


def trump_text(trump: records_pb2.Trump) -> str:
    """``level 6 hearts``, ``level 6 no-trump`` (an unset suit reads as no-trump)."""
    suit = SUITS_BY_PROTO.get(trump.suit)
    return f"level {trump.level or '?'} {'no-trump' if suit is None else SUIT_NAMES[suit]}"


VARINT: Final = 0
"""The wire type of an integer field."""
LEN: Final = 2
"""The wire type of a length-delimited field: bytes, strings, messages."""


def field_tag(message: Any, name: str, wire_type: int) -> int:
    """The tag of a message's field (its number and wire type): one byte up to field 15.

    >>> bytes((field_tag(records_pb2.Trick, "plays", LEN),))
    b'\\x12'
    """
    return int(message.DESCRIPTOR.fields_by_name[name].number << 3 | wire_type)


def encode_varint(value: int) -> bytes:
    """The base-128 varint encoding of a non-negative int: seven bits a byte, low first.

    >>> encode_varint(1), encode_varint(300)
    (b'\\x01', b'\\xac\\x02')
    """
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def read_varint(data: bytes, pos: int = 0) -> tuple[int, int] | None:
    """The base-128 varint at ``pos`` and the position after it, or None when it is cut off or
    longer than the 10 bytes of a 64-bit value.

    >>> read_varint(b"\\xac\\x02"), read_varint(b"\\x80")
    ((300, 2), None)
    """
    value, shift = 0, 0
    while pos < len(data) and shift < 70:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos
    return None


_GAME_TAG: Final = field_tag(records_pb2.RecordFile, "game", LEN)
_MATCH_TAG: Final = field_tag(records_pb2.RecordFile, "match", LEN)


def sole_game(data: bytes) -> bytes | None:
    """The game's encoding when a ``RecordFile``'s bytes hold its game alone (the field's tag,
    its length, its bytes), else None: the game without a parse.

    >>> game = records_pb2.GameRecord(record_id="g1")
    >>> data = records_pb2.RecordFile(game=game).SerializeToString()
    >>> sole_game(data) == game.SerializeToString(), sole_game(data + b"\\x10\\x01")
    (True, None)
    """
    return _sole(data, _GAME_TAG)


def sole_match(data: bytes) -> bool:
    """Whether a ``RecordFile``'s bytes hold its match alone (``sole_game``'s form).

    >>> match = records_pb2.RecordFile(match=records_pb2.MatchRecord(match_id="m1"))
    >>> sole_match(match.SerializeToString()), sole_match(b"")
    (True, False)
    """
    return _sole(data, _MATCH_TAG) is not None


def _sole(data: bytes, tag: int) -> bytes | None:
    if not data or data[0] != tag:
        return None
    length = read_varint(data, 1)
    if length is None or len(data) - length[1] != length[0]:
        return None
    return data[length[1] :]
