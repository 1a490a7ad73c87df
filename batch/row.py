"""One audited unit as the summary and the ledger keep it: counts and ids, no report or record."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Row:
    """The outcome of one unit: what the summary and the ledger keep (no report, no record)."""

    unit: str
    digest: str
    status: str  # "audited", "rejected" (not replayable), "unreadable" (import error), "failed"
    kind: str = ""  # "game" or "match"
    record_id: str = ""
    ruleset: str = ""
    hands: int = 0
    breaches: int = 0
    scoring_errors: int = 0
    warnings: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    players: dict[str, list[int]] = field(default_factory=dict)  # id -> [hands, breaches]
    error: str = ""
    analysed: int = 0  # hands whose end the solver analysed (``--analyze``)
    not_analysed: dict[str, int] = field(default_factory=dict)  # why -> hands
    endgame: dict[str, list[int]] = field(default_factory=dict)  # id -> [hands, points lost]

    def __reduce__(self) -> tuple[type[Row], tuple[object, ...]]:
        # Pickled as its values and rebuilt through __init__: the dataclass's own state
        # functions look its fields up for every row, and every row crosses between the
        # batch's processes.
        return Row, tuple([getattr(self, name) for name in self.__slots__])

    def to_json(self) -> dict[str, object]:
        """The row as a JSON object (the ledger's line)."""
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_json(cls, value: dict[str, object]) -> Row:
        """The row a ledger line holds."""
        return cls(**value)  # type: ignore[arg-type]
