"""Cards, card tokens and count vectors.

A card *kind* is a small int: suited cards are ``suit * 13 + rank`` with suits
``S H C D`` (0–3) and ranks ``2``…``A`` (0–12); the little joker (小王) is 52 and
the big joker (大王) 53. Copies of a kind are interchangeable, so a hand is a
count vector of 54 ints.

>>> parse_card("ST") == kind_of(SPADES, rank_index("T"))
True
>>> format_cards(parse_cards("sa ha bj"))
'SA HA BJ'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

SPADES: Final = 0
HEARTS: Final = 1
CLUBS: Final = 2
DIAMONDS: Final = 3
SUIT_LETTERS: Final = "SHCD"
SUIT_SYMBOLS: Final = "♠♥♣♦"
RANK_LETTERS: Final = "23456789TJQKA"
LITTLE_JOKER: Final = 52
BIG_JOKER: Final = 53
KINDS: Final = 54
JOKER_TOKENS: Final = {"LJ": LITTLE_JOKER, "BJ": BIG_JOKER}

Counts = list[int]
"""A hand or a play as copies per kind (length 54)."""


class CardError(ValueError):
    """A card token or card set that cannot be read."""


def kind_of(suit: int, rank: int) -> int:
    """The kind of a suited card from its suit (0–3) and rank index (0–12)."""
    return suit * 13 + rank


def rank_index(rank: str) -> int:
    """Rank index 0–12 of a rank letter (``"2"``…``"A"``; ``"10"`` is read as ``"T"``)."""
    letter = "T" if rank == "10" else rank.upper()
    index = RANK_LETTERS.find(letter)
    if len(letter) != 1 or index < 0:
        raise CardError(f"bad rank {rank!r}: expected one of 2-9, T, J, Q, K, A")
    return index


def suit_of(kind: int) -> int | None:
    """The printed suit of a kind, or ``None`` for a joker."""
    return None if kind >= LITTLE_JOKER else kind // 13


def rank_of(kind: int) -> int | None:
    """The rank index of a kind, or ``None`` for a joker."""
    return None if kind >= LITTLE_JOKER else kind % 13


def is_joker(kind: int) -> bool:
    return kind >= LITTLE_JOKER


def parse_card(token: str) -> int:
    """The kind of one card token (case-insensitive): ``"S5"``, ``"ht"``, ``"LJ"``."""
    text = token.strip().upper()
    if text in JOKER_TOKENS:
        return JOKER_TOKENS[text]
    if len(text) in (2, 3) and text[0] in SUIT_LETTERS:
        try:
            return kind_of(SUIT_LETTERS.index(text[0]), rank_index(text[1:]))
        except CardError:
            pass
    raise CardError(
        f"bad card token {token!r}: expected a suit letter S, H, C or D and a rank "
        "2-9, T, J, Q, K, A (e.g. 'ST', 'HA'), or LJ / BJ for the jokers"
    )


def parse_cards(tokens: str | Iterable[str]) -> list[int]:
    """Kinds of several tokens, given as one space-separated string or an iterable."""
    items = tokens.split() if isinstance(tokens, str) else list(tokens)
    return [parse_card(t) for t in items]


def card_token(kind: int) -> str:
    """The upper-case token of a kind."""
    if kind == LITTLE_JOKER:
        return "LJ"
    if kind == BIG_JOKER:
        return "BJ"
    if not 0 <= kind < LITTLE_JOKER:
        raise CardError(f"bad card kind {kind}: expected 0-53")
    return SUIT_LETTERS[kind // 13] + RANK_LETTERS[kind % 13]


def card_label(kind: int) -> str:
    """A human label with the suit symbol: ``♣Q``, ``♠10``, ``小王``-free ``LJ``/``BJ``."""
    if kind >= LITTLE_JOKER:
        return card_token(kind)
    rank = RANK_LETTERS[kind % 13]
    return SUIT_SYMBOLS[kind // 13] + ("10" if rank == "T" else rank)


def format_cards(kinds: Iterable[int]) -> str:
    """Tokens of kinds, space-separated, in the given order."""
    return " ".join(card_token(k) for k in kinds)


def label_cards(kinds: Iterable[int]) -> str:
    """Labels of kinds (``♣Q ♣Q``), space-separated, for messages a referee reads."""
    return " ".join(card_label(k) for k in kinds)


def to_counts(kinds: Iterable[int]) -> Counts:
    """Count vector of a list of kinds."""
    counts = [0] * KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[int]:
    """Kinds of a count vector, in kind order."""
    return [k for k in range(KINDS) for _ in range(counts[k])]


def full_deck(decks: int) -> list[int]:
    """Every card of ``decks`` decks, in kind order."""
    return [k for k in range(KINDS) for _ in range(decks)]


def point_value(kind: int) -> int:
    """Points of one card: 5s are 5, 10s and Ks are 10 (分牌)."""
    rank = rank_of(kind)
    if rank == 3:
        return 5
    if rank in (8, 11):
        return 10
    return 0


def points_of(kinds: Iterable[int]) -> int:
    """Sum of the point values of kinds."""
    return sum(POINTS[k] for k in kinds)


POINTS: Final = tuple(point_value(k) for k in range(KINDS))
