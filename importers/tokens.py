"""Card and rank tokens: reading them, and finding bad ones anywhere in a record."""

from __future__ import annotations

from google.protobuf.message import Message

from chaodipi.engine.cards import RANK_LETTERS, CardError, card_token, parse_card

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


def bad_token(message: Message, path: str, json_names: bool) -> tuple[str, str] | None:
    """The path and problem of the first bad card or rank token in ``message``, if any.

    Paths use JSON names (``dealtHands.hands[0].cards[3]``) when ``json_names``, else
    protobuf field names.
    """
    for fd, value in message.ListFields():
        name = fd.json_name if json_names else fd.name
        where = f"{path}.{name}" if path else name
        if fd.full_name in CARD_FIELDS:
            for i, token in enumerate(value):
                if not is_card(token):
                    return f"{where}[{i}]", f"bad card token {token!r}: {CARD_EXPECTED}"
        elif fd.full_name in RANK_FIELDS:
            try:
                rank(value)
            except ValueError as exc:
                return where, str(exc)
        elif fd.message_type is not None and not fd.message_type.GetOptions().map_entry:
            items = value if fd.is_repeated else [value]
            for i, item in enumerate(items):
                sub = f"{where}[{i}]" if fd.is_repeated else where
                found = bad_token(item, sub, json_names)
                if found:
                    return found
    return None
