"""Cards, card tokens, ``Cards`` (cards in order) and ``Hand`` (cards held, as counts).

A card *kind* is a small int: suited cards are ``suit * 13 + rank`` with suits
``S H C D`` (0–3) and ranks ``2``…``A`` (0–12); the little joker (小王) is 52 and
the big joker (大王) 53. Copies of a kind are interchangeable, so a hand is a
count vector of 54 ints: the ``Hand`` type, never a bare list. A trump suit is a
suit 0–3, or ``None`` for no-trump (无主), whose token is ``NT``.

>>> parse_card("ST") == kind_of(SPADES, rank_index("T"))
True
>>> format_cards(parse_cards("sa ha bj"))
'SA HA BJ'
>>> parse_trump("nt") is None, trump_token(HEARTS)
(True, 'H')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final, overload

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
NO_TRUMP_TOKEN: Final = "NT"
"""The token of no-trump (无主); its value is ``None`` wherever a trump suit is held."""

Counts = list[int]
"""Copies per kind (length 54): what a ``Hand`` holds."""


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
    """The kind of one card token (case-insensitive): ``"S5"``, ``"ht"``, ``"LJ"``.

    >>> parse_card("ht") == kind_of(HEARTS, rank_index("T")), parse_card("BJ")
    (True, 53)
    """
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
    """Kinds of several tokens, given as one space-separated string or an iterable.

    >>> parse_cards("S2 S3") == parse_cards(["s2", "s3"]) == [0, 1]
    True
    """
    items = tokens.split() if isinstance(tokens, str) else list(tokens)
    return [parse_card(t) for t in items]


def parse_trump(token: str) -> int | None:
    """The trump suit of a token (case-insensitive): ``S H C D`` (0–3), or ``NT`` (None).

    >>> parse_trump("c") == CLUBS, parse_trump("NT")
    (True, None)
    """
    text = token.strip().upper()
    if text == NO_TRUMP_TOKEN:
        return None
    if len(text) == 1 and text in SUIT_LETTERS:
        return SUIT_LETTERS.index(text)
    raise CardError(f"bad trump {token!r}: expected a suit S, H, C or D, or NT for no-trump")


def trump_token(trump: int | None) -> str:
    """The token of a trump suit: ``S``, ``H``, ``C``, ``D``, or ``NT`` for None.

    >>> trump_token(DIAMONDS), trump_token(None)
    ('D', 'NT')
    """
    if trump is None:
        return NO_TRUMP_TOKEN
    if not 0 <= trump < 4:
        raise CardError(f"bad trump suit {trump}: expected 0-3, or None for no-trump")
    return SUIT_LETTERS[trump]


def parse_level(level: int | str) -> int:
    """A level as a rank index 0–12, from its rank token (``"6"``, ``"T"``) or an index.

    >>> parse_level("6"), parse_level("10"), parse_level(12)
    (4, 8, 12)
    """
    if isinstance(level, str):
        return rank_index(level.strip())
    if not 0 <= level < 13:
        raise CardError(f"bad level {level}: expected a rank index 0-12")
    return level


def card_token(kind: int) -> str:
    """The upper-case token of a kind.

    >>> card_token(kind_of(CLUBS, rank_index("Q"))), card_token(LITTLE_JOKER)
    ('CQ', 'LJ')
    """
    if kind == LITTLE_JOKER:
        return "LJ"
    if kind == BIG_JOKER:
        return "BJ"
    if not 0 <= kind < LITTLE_JOKER:
        raise CardError(f"bad card kind {kind}: expected 0-53")
    return SUIT_LETTERS[kind // 13] + RANK_LETTERS[kind % 13]


def card_label(kind: int) -> str:
    """A human label with the suit symbol; jokers keep their tokens.

    >>> card_label(parse_card("CQ")), card_label(parse_card("ST")), card_label(BIG_JOKER)
    ('♣Q', '♠10', 'BJ')
    """
    if kind >= LITTLE_JOKER:
        return card_token(kind)
    rank = RANK_LETTERS[kind % 13]
    return SUIT_SYMBOLS[kind // 13] + ("10" if rank == "T" else rank)


def format_cards(kinds: Iterable[int]) -> str:
    """Tokens of kinds, space-separated, in the given order.

    >>> format_cards([BIG_JOKER, 0])
    'BJ S2'
    """
    return " ".join(card_token(k) for k in kinds)


def label_cards(kinds: Iterable[int]) -> str:
    """Labels of kinds, space-separated, for messages a referee reads.

    >>> label_cards(parse_cards("CQ CQ"))
    '♣Q ♣Q'
    """
    return " ".join(card_label(k) for k in kinds)


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
    """Sum of the point values of kinds (5s count 5, 10s and Ks 10).

    >>> points_of(parse_cards("S5 HT DK C9"))
    25
    """
    return sum(POINTS[k] for k in kinds)


POINTS: Final = tuple(point_value(k) for k in range(KINDS))

_KIND_SET: Final = frozenset(range(KINDS))
"""Every card kind, 0-53: what a ``Hand`` may be built of."""


class Cards(Sequence[int]):
    """Cards in the order given (a play, a lead, a legal alternative), printed as tokens.

    Built from kinds or from tokens; equal to another ``Cards`` or a tuple of the same kinds
    in the same order.

    >>> play = Cards("C6 C6 lj")
    >>> str(play), play.label(), play.points, len(play)
    ('C6 C6 LJ', '♣6 ♣6 LJ', 0, 3)
    >>> play
    Cards('C6 C6 LJ')
    """

    kinds: tuple[int, ...]

    def __init__(self, cards: Iterable[int] | str = ()) -> None:
        self.kinds = tuple(parse_cards(cards)) if isinstance(cards, str) else tuple(cards)

    def __len__(self) -> int:
        return len(self.kinds)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Cards: ...
    def __getitem__(self, index: int | slice) -> int | Cards:
        if isinstance(index, slice):
            return Cards(self.kinds[index])
        return self.kinds[index]

    def __iter__(self) -> Iterator[int]:
        return iter(self.kinds)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cards):
            return self.kinds == other.kinds
        if isinstance(other, tuple):
            return self.kinds == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.kinds)

    def __str__(self) -> str:
        return format_cards(self.kinds)

    def __repr__(self) -> str:
        return f"Cards({format_cards(self.kinds)!r})"

    def label(self) -> str:
        """The cards with suit symbols (``♣Q ♣Q``), for messages a referee reads."""
        return label_cards(self.kinds)

    @property
    def points(self) -> int:
        """The point cards' total (分): 5s count 5, 10s and Ks 10."""
        return points_of(self.kinds)


class Hand:
    """The cards one seat holds, as copies per kind (``counts``, 54 ints): a count type.

    Built from cards (kinds or tokens) or from a count vector (``from_counts``); it prints
    its cards as tokens in kind order. A hand changes as cards are added and removed.

    >>> hand = Hand("C6 C6 LJ LJ SA")
    >>> len(hand), hand.count(parse_card("C6")), parse_card("SA") in hand
    (5, 2, True)
    >>> format_cards(hand.missing(parse_cards("C6 C6 C6 SK")))
    'C6 SK'
    >>> hand.remove(parse_cards("SA C6"))
    []
    >>> hand
    Hand('C6 LJ LJ')
    """

    counts: Counts

    def __init__(self, cards: Iterable[int] | str = ()) -> None:
        kinds = parse_cards(cards) if isinstance(cards, str) else list(cards)
        # One set look-up a card: cheaper than min() and max(), which compare every card twice.
        if not _KIND_SET.issuperset(kinds):
            raise CardError(f"bad card kind in {kinds}: expected 0-53")
        counts = [0] * KINDS
        for k in kinds:
            counts[k] += 1
        self.counts = counts

    @classmethod
    def from_counts(cls, counts: Iterable[int]) -> Hand:
        """A hand from copies per kind (54 ints from 0); ``CardError`` names what is wrong."""
        vector = list(counts)
        if len(vector) != KINDS:
            raise CardError(
                f"a hand's counts are one per card kind (54), not {len(vector)}: "
                "build a Hand from a list of cards with Hand(cards)"
            )
        if min(vector) < 0:
            raise CardError(f"a hand holds no negative count: {min(vector)}")
        hand = cls()
        hand.counts = vector
        return hand

    def __len__(self) -> int:
        return sum(self.counts)

    def __contains__(self, kind: object) -> bool:
        return isinstance(kind, int) and 0 <= kind < KINDS and self.counts[kind] > 0

    def __iter__(self) -> Iterator[int]:
        """Every card held, copies repeated, in kind order."""
        counts = self.counts
        return iter([k for k in range(KINDS) for _ in range(counts[k])])

    def __str__(self) -> str:
        return format_cards(self)

    def __repr__(self) -> str:
        return f"Hand({format_cards(self)!r})"

    def count(self, kind: int) -> int:
        """Copies of one kind held."""
        return self.counts[kind]

    def add(self, cards: Iterable[int]) -> None:
        """Take cards in (drawn, or picked up from the kitty)."""
        counts = self.counts
        for k in cards:
            counts[k] += 1

    def missing(self, cards: Sequence[int]) -> list[int]:
        """The cards of ``cards`` this hand does not hold, copies counted."""
        counts = self.counts
        if len(cards) == 1:
            return [] if counts[cards[0]] else list(cards)
        if len(cards) == 2:
            first, second = cards[0], cards[1]
            if counts[first] >= (2 if first == second else 1) and counts[second]:
                return []  # both held (most plays to a pair): no tally needed
        need: dict[int, int] = {}
        for k in cards:
            need[k] = need.get(k, 0) + 1
        absent: list[int] = []
        for k, n in need.items():
            if n > counts[k]:
                absent += [k] * (n - counts[k])
        return absent

    def remove(self, cards: Iterable[int]) -> list[int]:
        """Give cards up (played or buried); returns those not held, which stay missing."""
        counts = self.counts
        absent: list[int] = []
        for k in cards:
            if counts[k]:
                counts[k] -= 1
            else:
                absent.append(k)
        return absent
