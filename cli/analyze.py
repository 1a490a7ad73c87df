"""``chaodipi analyze``: what each play of a hand's last tricks cost, by the endgame solver.

Costs are analysis, not findings: a hand's audit and its breach counts never read them.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from chaodipi.cli.console import Command, cell, count, progress_bar, stdout, user, warning
from chaodipi.cli.records import FilesArg, FormatOpt

if TYPE_CHECKING:
    from chaodipi.auditor.analysis import HandAnalysis
    from chaodipi.v1 import records_pb2


def _games(entry: records_pb2.RecordFile) -> list[tuple[str, records_pb2.GameRecord]]:
    """The hands of one record: a game, or each hand of a match."""
    if entry.WhichOneof("record") == "game":
        return [("", entry.game)]
    return [(f"hand {i + 1}", hand) for i, hand in enumerate(entry.match.hands)]


def _cards(tokens: tuple[str, ...]) -> str:
    from chaodipi.engine import label_cards, parse_cards

    return label_cards(parse_cards(list(tokens))) if tokens else "—"


def _print(name: str, analysis: HandAnalysis) -> None:
    from rich.table import Table

    head = f"[bold]{user(name)}[/] {user(analysis.record_id)} ({user(analysis.ruleset)})"
    if not analysis.analysed:
        stdout().print(f"{head}: [yellow]not analysed[/]: {user(analysis.reason)}")
        return
    first = analysis.first_trick + 1
    last = analysis.first_trick + len({p.trick for p in analysis.plays})
    stdout().print(
        f"{head}: tricks {first}–{last} ({count(analysis.nodes, 'position')} searched); "
        f"defenders {analysis.points_before} points before, {analysis.actual} as played, "
        f"{analysis.perfect} under perfect play from trick {first}"
    )
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
    for column in ("trick", "seat", "played", "cost", "best", "line"):
        table.add_column(column, overflow="fold")
    for play in analysis.plays:
        line = ", ".join(f"{seat}: {_cards(cards)}" for seat, cards in play.line)
        side = "defender" if play.defender else "dealer side"
        cost = str(play.cost) if play.cost else "[green]0[/]"
        best = _cards(play.best) if play.cost else ""
        where = f"{play.trick + 1}.{play.play + 1}"
        table.add_row(
            where, f"{play.seat} ({side})", cell(_cards(play.cards)), cost, cell(best), cell(line)
        )
    stdout().print(table)
    if analysis.kitty is not None:
        stdout().print(f"  [bold]{user(analysis.kitty.text())}[/]")
    lost = ", ".join(f"seat {seat} {points}" for seat, points in enumerate(analysis.lost_by_seat()))
    stdout().print(f"  points lost: {lost}")


def analyze_command(
    files: FilesArg,
    fmt: FormatOpt = "auto",
    window: Annotated[
        int | None,
        typer.Option(
            metavar="K",
            min=1,
            help="Tricks to analyse at each hand's end (default: the ruleset's window, 4 or 5).",
        ),
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            min=1,
            # The solver's default, written here: importing it would load the solver at start-up
            # (a test keeps the two the same).
            help="Positions one hand may search before it stops (default: 60,000).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="Print the analyses as JSON.")
    ] = False,
) -> None:
    """Solve each hand's last tricks and give every play its cost.

    Exit 0 when every hand was analysed, 1 when one was not, 2 on unreadable input.
    """
    from chaodipi.auditor.analysis import BUDGET, analyse_game
    from chaodipi.cli.records import FileReader

    limit = budget or BUDGET
    results: list[dict[str, object]] = []
    skipped = stopped = 0
    reader = FileReader(fmt)
    for path, loaded in reader.each(files):
        with progress_bar(f"analysing {path.name}", len(loaded.records), quiet=as_json) as advance:
            for entry in loaded.records:
                for name, game in _games(entry):
                    analysis = analyse_game(game, window=window, budget=limit)
                    skipped += not analysis.analysed
                    stopped += analysis.why == "budget"
                    if as_json:
                        results.append({"file": path.name, "hand": name, **analysis.as_dict()})
                    else:
                        _print(f"{path.name} {name}".strip(), analysis)
                advance()
    if as_json:
        json.dump(results, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    if stopped:
        # What to do about it: the search grows steeply with the tricks left (docs/analysis.md).
        warning(
            f"{count(stopped, 'hand')} stopped at the search budget of "
            f"{count(limit, 'position')}: a smaller --window or a larger --budget "
            f"may analyse {'it' if stopped == 1 else 'them'}"
        )
    raise typer.Exit(2 if reader.unreadable else 1 if skipped else 0)


def register(app: typer.Typer) -> None:
    """Add ``analyze`` to the CLI app."""
    app.command("analyze", cls=Command)(analyze_command)
