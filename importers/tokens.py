"""Card and rank tokens: reading them, and finding bad ones anywhere in a record."""

from __future__ import annotations

from typing import cast

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

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
    try:
        return card_token(parse_card(token))
    except CardError:
        raise ValueError(f"bad card token {token!r}: {CARD_EXPECTED}") from None


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
_RANKS = frozenset({"", "10", *RANK_LETTERS, *RANK_LETTERS.lower()})
"""Rank tokens ``rank`` reads (some of them): a record holding only these has no bad rank."""
_Step = tuple[FieldDescriptor, str, int, tuple[str, ...]]
"""A field that may hold a token: itself, its name, how, and for repeated messages that hold
card fields only (a trick's plays) their names, read in one loop without a call per message."""
_PLANS: dict[Descriptor, list[_Step]] = {}


def _plan(message: Message) -> list[_Step]:
    """The fields of a message's type that may hold a token, in field-number order, and how."""
    # The C extension's descriptor has the pure-Python one's API; the stubs type them apart.
    descriptor = cast(Descriptor, message.DESCRIPTOR)
    plan = _PLANS.get(descriptor)
    if plan is None:
        plan = []
        for fd in sorted(descriptor.fields, key=lambda fd: fd.number):
            if fd.full_name in CARD_FIELDS:
                plan.append((fd, fd.name, _CARDS, ()))
            elif fd.full_name in RANK_FIELDS:
                plan.append((fd, fd.name, _RANK, ()))
            elif fd.message_type is not None and _holds_tokens(fd, set()):
                inner = [f for f in fd.message_type.fields if _holds_tokens(f, set())]
                leaves = tuple(f.name for f in inner if f.full_name in CARD_FIELDS)
                flat = fd.is_repeated and len(leaves) == len(inner)
                how = _MESSAGES if fd.is_repeated else _MESSAGE
                plan.append((fd, fd.name, how, leaves if flat else ()))
        _PLANS[descriptor] = plan
    return plan


def _holds_tokens(fd: FieldDescriptor, seen: set[str]) -> bool:
    """Whether a field can hold a token at any depth (a map's entries never do).

    A message field that cannot (a trick's claim: three ints) is left out of the plans, so its
    messages are never visited. ``seen`` holds the message types entered: recursion stops."""
    if fd.full_name in CARD_FIELDS or fd.full_name in RANK_FIELDS:
        return True
    kind = fd.message_type
    if kind is None or kind.GetOptions().map_entry or kind.full_name in seen:
        return False
    seen.add(kind.full_name)
    return any(_holds_tokens(inner, seen) for inner in kind.fields)


def _collect(message: Message, cards: list[str], ranks: list[str]) -> None:
    """Every card token and rank token in ``message``, visiting only fields that hold them."""
    # A repeated field is copied with a slice: in C, a third cheaper than iterating it.
    for _, name, how, leaves in _plan(message):
        if how == _CARDS:
            cards += getattr(message, name)[:]
        elif leaves:
            for item in getattr(message, name):
                for leaf in leaves:
                    cards += getattr(item, leaf)[:]
        elif how == _MESSAGES:
            for item in getattr(message, name):
                _collect(item, cards, ranks)
        elif how == _MESSAGE:
            if message.HasField(name):
                _collect(getattr(message, name), cards, ranks)
        else:
            ranks.append(getattr(message, name))


def bad_token(message: Message, path: str, json_names: bool) -> tuple[str, str] | None:
    """The path and problem of the first bad card or rank token in ``message``, if any.

    Paths use JSON names (``dealtHands.hands[0].cards[3]``) when ``json_names``, else
    protobuf field names. Every token is first gathered and looked up in two sets (the usual
    record, all canonical, ends there); only a record with another token is walked in order.
    """
    cards: list[str] = []
    ranks: list[str] = []
    _collect(message, cards, ranks)
    if _CANONICAL.issuperset(cards) and _RANKS.issuperset(ranks):
        return None
    return _first_bad(message, path, json_names)


def _first_bad(message: Message, path: str, json_names: bool) -> tuple[str, str] | None:
    """``bad_token``'s answer, field by field in field-number order."""
    for fd, name, how, _ in _plan(message):
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
