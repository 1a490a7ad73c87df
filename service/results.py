"""What a stored game records per seat (``game_player`` rows), from the auditor's computed hand."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from chaodipi.service.models import GamePlayer
from chaodipi.v1 import audit_pb2, records_pb2

_DEALER_SIDE_WINS = (records_pb2.OUTCOME_DEALER_UP, records_pb2.OUTCOME_DEALER_WINS_MATCH)
_DEFENDERS_WIN = (
    records_pb2.OUTCOME_SWAP,
    records_pb2.OUTCOME_DEFENDERS_UP,
    records_pb2.OUTCOME_DEFENDERS_WIN_MATCH,
)
_KEYS = ("game_id", "seat")
_DEFAULTS: Final[dict[str, Any]] = {
    name: field.default for name, field in GamePlayer.model_fields.items() if name not in _KEYS
}
"""Every other column of ``game_player`` at its default (0, "", or NULL)."""

SeatRow = dict[str, Any]
"""One ``game_player`` row: its columns by name, as the store inserts them."""


def seat_rows(
    computed: audit_pb2.Computed,
    game_id: str = "",
    players: Sequence[int | None] = (None, None, None, None),
) -> list[SeatRow]:
    """The four ``game_player`` rows of a hand: tricks, points, throws, 抠底 and level change.

    ``players`` are the player ids by seat. ``side`` is "dealer" or "defender" ("" when the
    dealer was not decided); ``won`` is 1 or 0 (NULL when the hand has no computed result).
    """
    seats: list[SeatRow] = [
        {"game_id": game_id, "seat": seat, **_DEFAULTS, "player_id": players[seat]}
        for seat in range(4)
    ]
    dealer = computed.dealer if computed.HasField("dealer") else None
    for trick in computed.tricks:
        if 0 <= trick.winner < 4:
            seats[trick.winner]["tricks_won"] += 1
            seats[trick.winner]["points_taken"] += trick.points
        if trick.throw_attempted and 0 <= trick.leader < 4:
            thrower = seats[trick.leader]
            thrower["throws_tried"] += 1
            if trick.throw_stood:
                thrower["throws_stood"] += 1
            else:
                thrower["throws_failed"] += 1
    if dealer is None:
        return seats
    for s in seats:
        s["side"] = "dealer" if s["seat"] % 2 == dealer % 2 else "defender"
    if computed.tricks and computed.kitty_points > 0:
        last = computed.tricks[-1].winner
        if 0 <= last < 4 and seats[last]["side"] == "defender":
            seats[last]["kou_di_count"] = 1
            seats[last]["kou_di_points"] = computed.kitty_bonus
    if computed.HasField("level_result"):
        result = computed.level_result
        for s in seats:
            s["level_after"] = (
                result.dealer_team_level_after
                if s["side"] == "dealer"
                else result.defender_team_level_after
            )
        rising = (
            "dealer"
            if result.outcome in _DEALER_SIDE_WINS
            else "defender"
            if result.outcome in _DEFENDERS_WIN
            else ""
        )
        if rising:
            for s in seats:
                s["won"] = int(s["side"] == rising)
                if s["side"] == rising:
                    s["levels_gained"] = result.levels
                else:
                    s["levels_conceded"] = result.levels
    return seats


def parse_played_at(text: str) -> datetime | None:
    """An RFC 3339 time in UTC (no offset given: taken as UTC); None when empty or unreadable."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return as_utc(value)


def as_utc(value: datetime) -> datetime:
    """``value`` in UTC; a naive value is taken as UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)
