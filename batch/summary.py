"""The end-of-batch summary: hands, findings by code, the worst tables and players, the time taken.

Memory is bounded by the number of finding codes and distinct players, never by the corpus: the
worst tables are kept as a short list, trimmed as rows arrive.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from chaodipi.batch.row import Row

TOP = 10
"""Tables and players listed in the summary."""


def _table_key(table: dict[str, Any]) -> tuple[int, int, str]:
    return (-table["breaches"], -table["findings"], table["unit"])


@dataclass
class Summary:
    """Totals over every row added; rows of earlier runs (``--resume``) count as not new."""

    backend: str = ""
    workers: int = 0
    records: int = 0
    hands: int = 0
    new_records: int = 0
    new_hands: int = 0
    rejected: int = 0
    unreadable: int = 0
    failed: int = 0
    breaches: int = 0
    scoring_errors: int = 0
    warnings: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    players: dict[str, list[int]] = field(default_factory=dict)  # id -> [hands, breaches]
    tables: list[dict[str, Any]] = field(default_factory=list)
    elapsed: float = 0.0
    interrupted: bool = False
    destination: str = ""
    analysed: int = 0
    not_analysed: Counter[str] = field(default_factory=Counter)
    endgame: dict[str, list[int]] = field(default_factory=dict)  # id -> [hands, points lost]

    @property
    def findings(self) -> int:
        """Findings of every severity so far."""
        return self.breaches + self.scoring_errors + self.warnings

    def add(self, row: Row, *, new: bool) -> None:
        """Count one unit's row."""
        self.records += 1
        self.hands += row.hands
        if new:
            self.new_records += 1
            self.new_hands += row.hands
        if row.status == "rejected":
            self.rejected += 1
        elif row.status == "unreadable":
            self.unreadable += 1
        elif row.status == "failed":
            self.failed += 1
        self.breaches += row.breaches
        self.scoring_errors += row.scoring_errors
        self.warnings += row.warnings
        if row.codes:  # most rows have none; Counter.update is Python, even when empty
            self.codes.update(row.codes)
        for pid, (hands, breaches) in row.players.items():
            tally = self.players.setdefault(pid, [0, 0])
            tally[0] += hands
            tally[1] += breaches
        if row.breaches:
            self.tables.append(
                {
                    "unit": row.unit,
                    "record_id": row.record_id,
                    "kind": row.kind,
                    "hands": row.hands,
                    "breaches": row.breaches,
                    "findings": row.breaches + row.scoring_errors + row.warnings,
                    "codes": row.codes,
                }
            )
            if len(self.tables) > 4 * TOP:
                self.tables = sorted(self.tables, key=_table_key)[:TOP]
        self.analysed += row.analysed
        if row.not_analysed:
            self.not_analysed.update(row.not_analysed)
        for pid, (hands, lost) in row.endgame.items():
            tally = self.endgame.setdefault(pid, [0, 0])
            tally[0] += hands
            tally[1] += lost

    def worst_tables(self) -> list[dict[str, Any]]:
        """Records with the most breaches (then most findings, then by unit id)."""
        return sorted(self.tables, key=_table_key)[:TOP]

    def worst_players(self) -> list[dict[str, Any]]:
        """Players with the most breaches per hand played (breaches at their seat)."""
        return _ranked(self.players, "breaches", 4)

    def endgame_players(self) -> list[dict[str, Any]]:
        """Players who lost the most points per analysed hand's end (their side's loss against
        its best play, summed over their own plays)."""
        return _ranked(self.endgame, "points_lost", 2)

    @property
    def hands_per_second(self) -> float:
        """New hands audited per second of this run."""
        return self.new_hands / self.elapsed if self.elapsed > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON object (``--json``)."""
        return {
            "backend": self.backend,
            "workers": self.workers,
            "destination": self.destination,
            "interrupted": self.interrupted,
            "records": self.records,
            "hands": self.hands,
            "new_records": self.new_records,
            "new_hands": self.new_hands,
            "resumed_records": self.records - self.new_records,
            "rejected": self.rejected,
            "unreadable": self.unreadable,
            "failed": self.failed,
            "findings": {
                "total": self.findings,
                "breaches": self.breaches,
                "scoring_errors": self.scoring_errors,
                "warnings": self.warnings,
                "by_code": dict(sorted(self.codes.items(), key=lambda c: (-c[1], c[0]))),
            },
            "worst_tables": self.worst_tables(),
            "worst_players": self.worst_players(),
            "endgame": {
                "analysed": self.analysed,
                "not_analysed": dict(sorted(self.not_analysed.items())),
                "players": self.endgame_players(),
            },
            "elapsed_seconds": round(self.elapsed, 3),
            "hands_per_second": round(self.hands_per_second, 1),
        }

    def render(self, console: Console) -> None:
        """Print the summary as Rich tables (ids and file names from the input shown as written)."""
        state = "[yellow]interrupted[/]" if self.interrupted else "[green]done[/]"
        console.print(
            f"{state}: {_count(self.records, 'record')}, {_count(self.hands, 'hand')} "
            f"({self.new_hands:,} audited now, {self.records - self.new_records:,} records "
            f"done before); {self.rejected:,} not replayable, {self.unreadable:,} unreadable"
        )
        if self.failed:
            console.print(
                f"[red]{_count(self.failed, 'record')} failed in the auditor[/] (see the ledger)"
            )
        console.print(
            f"findings: {self.findings:,} ({_count(self.breaches, 'breach', 'breaches')}, "
            f"{_count(self.scoring_errors, 'scoring error')}, "
            f"{_count(self.warnings, 'warning')})"
        )
        if self.codes:
            codes = Table("code", "findings", title="Findings by code")
            for code, count in sorted(self.codes.items(), key=lambda c: (-c[1], c[0])):
                codes.add_row(Text(code), f"{count:,}")
            console.print(codes)
        tables = self.worst_tables()
        if tables:
            worst = Table("record", "unit", "hands", "breaches", "findings", title="Worst tables")
            for t in tables:
                worst.add_row(
                    Text(t["record_id"]),
                    Text(t["unit"]),
                    str(t["hands"]),
                    str(t["breaches"]),
                    str(t["findings"]),
                )
            console.print(worst)
        players = self.worst_players()
        if players:
            ranked = Table("player", "hands", "breaches", "per hand", title="Worst players")
            for p in players:
                ranked.add_row(
                    Text(p["player"]),
                    f"{p['hands']:,}",
                    f"{p['breaches']:,}",
                    f"{p['breaches_per_hand']:.4f}",
                )
            console.print(ranked)
        if self.analysed or self.not_analysed:
            self._render_endgame(console)
        console.print(
            f"{self.elapsed:.1f} s, {self.hands_per_second:,.0f} hands/s "
            f"({self.backend}, {_count(self.workers, 'worker')}) → {escape(self.destination)}"
        )

    def _render_endgame(self, console: Console) -> None:
        why = ", ".join(f"{n:,} {reason}" for reason, n in sorted(self.not_analysed.items()))
        console.print(
            f"endgame analysis: {_count(self.analysed, 'hand')} analysed"
            + (f"; not analysed: {why}" if why else "")
        )
        players = self.endgame_players()
        if players:
            ranked = Table(
                "player", "hands", "points lost", "per hand", title="Points lost in endgames"
            )
            for p in players:
                ranked.add_row(
                    Text(p["player"]),
                    f"{p['hands']:,}",
                    f"{p['points_lost']:,}",
                    f"{p['points_lost_per_hand']:.2f}",
                )
            console.print(ranked)


def _ranked(tallies: dict[str, list[int]], figure: str, digits: int) -> list[dict[str, Any]]:
    """The ``TOP`` players by ``figure`` per hand (tallies: id -> [hands, figure]), highest
    first; players whose figure is 0 are left out."""
    ranked = sorted(
        ((pid, hands, n) for pid, (hands, n) in tallies.items() if n),
        key=lambda p: (-p[2] / p[1], -p[2], p[0]),
    )
    return [
        {"player": pid, "hands": hands, figure: n, f"{figure}_per_hand": round(n / hands, digits)}
        for pid, hands, n in ranked[:TOP]
    ]


def _count(n: int, word: str, plural: str = "") -> str:
    return f"{n:,} {word if n == 1 else plural or word + 's'}"
