"""What a stored game records per seat, derived from the auditor's computed hand."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from chaodipi.v1 import audit_pb2, records_pb2

_DEALER_SIDE_WINS = (records_pb2.OUTCOME_DEALER_UP, records_pb2.OUTCOME_DEALER_WINS_MATCH)
_DEFENDERS_WIN = (
    records_pb2.OUTCOME_SWAP,
    records_pb2.OUTCOME_DEFENDERS_UP,
    records_pb2.OUTCOME_DEFENDERS_WIN_MATCH,
)


@dataclass(slots=True)
class SeatResult:
    """One seat's share of a hand: the columns of ``game_player`` besides the keys."""

    seat: int
    side: str = ""
    tricks_won: int = 0
    points_taken: int = 0
    throws_tried: int = 0
    throws_stood: int = 0
    throws_failed: int = 0
    kou_di_count: int = 0
    kou_di_points: int = 0
    levels_gained: int = 0
    levels_conceded: int = 0
    won: int | None = None
    level_after: str = ""


def short_level_result(result: records_pb2.LevelResult) -> str:
    """``D+2``, ``swap``, ``A+1``, ``D wins``, ``A win`` (empty when unset)."""
    outcome, levels = result.outcome, result.levels
    return {
        records_pb2.OUTCOME_DEALER_UP: f"D+{levels}",
        records_pb2.OUTCOME_SWAP: "swap",
        records_pb2.OUTCOME_DEFENDERS_UP: f"A+{levels}",
        records_pb2.OUTCOME_DEALER_WINS_MATCH: "D wins",
        records_pb2.OUTCOME_DEFENDERS_WIN_MATCH: "A win",
    }.get(outcome, "")


def seat_results(computed: audit_pb2.Computed) -> list[SeatResult]:
    """Tricks, points, throws, 抠底 and level changes of each seat (0..3) in one hand."""
    seats = [SeatResult(seat) for seat in range(4)]
    dealer = computed.dealer if computed.HasField("dealer") else None
    for trick in computed.tricks:
        if 0 <= trick.winner < 4:
            seats[trick.winner].tricks_won += 1
            seats[trick.winner].points_taken += trick.points
        if trick.throw_attempted and 0 <= trick.leader < 4:
            seats[trick.leader].throws_tried += 1
            if trick.throw_stood:
                seats[trick.leader].throws_stood += 1
            else:
                seats[trick.leader].throws_failed += 1
    if dealer is None:
        return seats
    for s in seats:
        s.side = "dealer" if s.seat % 2 == dealer % 2 else "defender"
    if computed.tricks and computed.kitty_points > 0:
        last = computed.tricks[-1].winner
        if 0 <= last < 4 and seats[last].side == "defender":
            seats[last].kou_di_count = 1
            seats[last].kou_di_points = computed.kitty_bonus
    if computed.HasField("level_result"):
        result = computed.level_result
        for s in seats:
            s.level_after = (
                result.dealer_team_level_after
                if s.side == "dealer"
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
                s.won = int(s.side == rising)
                if s.side == rising:
                    s.levels_gained = result.levels
                else:
                    s.levels_conceded = result.levels
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
