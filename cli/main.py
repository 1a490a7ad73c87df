"""The ``chaodipi`` command line: audit, generate, and the commands of each subsystem."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated

import typer
from google.protobuf import json_format
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from chaodipi import importers
from chaodipi.auditor import audit_game, audit_match, describe_position, describe_result
from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.cli import batch, dashboard, records, service
from chaodipi.engine.presets import BUILTIN, get_ruleset, ruleset_from_text
from chaodipi.engine.ruleset import Ruleset, RulesetError
from chaodipi.v1 import audit_pb2, records_pb2

app = typer.Typer(
    help="Audit and replay recorded games of 炒地皮 (Chao Di Pi).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
out = Console()
err = Console(stderr=True)

SEVERITY = {
    audit_pb2.SEVERITY_BREACH: "[red]breach[/]",
    audit_pb2.SEVERITY_SCORING_ERROR: "[yellow]scoring[/]",
    audit_pb2.SEVERITY_WARNING: "[cyan]warning[/]",
}
OUTPUT_BY_SUFFIX = {".pb": "pb", ".bin": "pb", ".json": "json", ".jsonl": "json", ".txt": "text"}


def _phase(position: audit_pb2.Position) -> str:
    return audit_pb2.Phase.Name(position.phase).removeprefix("PHASE_").lower()


def _ruleset_option(value: str | None) -> Ruleset | None:
    """A preset id or a TOML/JSON house-variant file, resolved once for every record."""
    if value is None:
        return None
    path = Path(value)
    try:
        if path.suffix in (".toml", ".json") and path.exists():
            return ruleset_from_text(path.read_text(encoding="utf-8"), str(path))
        return get_ruleset(value)
    except RulesetError as exc:
        err.print(f"[red]error:[/] --ruleset: {exc}")
        raise typer.Exit(2) from None


def _print_report(name: str, report: audit_pb2.AuditReport) -> None:
    computed = report.computed
    head = f"[bold]{name}[/] {report.record_id} ({report.ruleset})"
    if report.rejections:
        out.print(f"{head}: [red]not replayable[/]")
        for v in report.rejections:
            out.print(f"  {v.field}: {v.description}")
        return
    summary = (
        f"defenders {computed.defenders_points}, {describe_result(computed.level_result)}"
        if computed.HasField("level_result")
        else "not scored"
    )
    verdict = (
        "[green]clean[/]"
        if not report.findings
        else (
            f"{report.breaches} breaches, {report.scoring_errors} scoring errors, "
            f"{report.warnings} warnings"
        )
    )
    out.print(f"{head}: {verdict}; {summary}")
    if report.findings:
        table = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
        for column in ("code", "severity", "where", "message"):
            table.add_column(column, overflow="fold")
        for f in report.findings:
            table.add_row(
                f.code,
                SEVERITY.get(f.severity, "?"),
                describe_position(f.position) or _phase(f.position),
                f.message,
            )
        out.print(table)
    for note in report.notes:
        out.print(f"  [dim]note: {note}[/]")


@app.command()
def audit(
    files: Annotated[list[Path], typer.Argument(help="Record files in any importer format.")],
    fmt: Annotated[
        str, typer.Option("--format", help="auto, text, pb, json, eighty, botzone")
    ] = "auto",
    ruleset: Annotated[
        str | None, typer.Option(help="Audit under this preset or TOML/JSON variant instead.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the reports as JSON.")] = False,
) -> None:
    """Replay records and report every breach. Exit 0 clean, 1 findings, 2 unreadable input."""
    chosen = _ruleset_option(ruleset)
    reports: list[dict[str, object]] = []
    unreadable = findings = 0
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=len(files) < 2 or not err.is_terminal,
    )
    with progress:
        task = progress.add_task("auditing", total=len(files))
        for path in files:
            try:
                loaded = importers.load(path, fmt)
            except (OSError, ValueError) as exc:
                err.print(f"[red]error:[/] {path}: {exc}")
                unreadable += 1
                progress.advance(task)
                continue
            for problem in loaded.errors:
                err.print(f"[red]error:[/] {problem}")
            unreadable += bool(loaded.errors) or not loaded.records
            for entry in loaded.records:
                for name, report in _audit_entry(entry, chosen):
                    bad = bool(report.findings) or bool(report.rejections)
                    findings += bad
                    if as_json:
                        reports.append(json_format.MessageToDict(report))
                    else:
                        _print_report(f"{path.name} {name}".strip(), report)
            progress.advance(task)
    if as_json:
        json.dump(reports, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    raise typer.Exit(2 if unreadable else 1 if findings else 0)


def _audit_entry(
    entry: records_pb2.RecordFile, ruleset: Ruleset | None
) -> list[tuple[str, audit_pb2.AuditReport]]:
    """Reports for one game, or for each hand of a match (match findings as an extra report)."""
    if entry.WhichOneof("record") == "game":
        return [("", audit_game(entry.game, ruleset=ruleset))]
    match = audit_match(entry.match, ruleset=ruleset)
    rows = [(f"hand {i + 1}", r) for i, r in enumerate(match.hands)]
    if match.findings or match.rejections:
        summary = audit_pb2.AuditReport(record_id=match.match_id, ruleset=entry.match.ruleset)
        summary.findings.extend(match.findings)
        summary.rejections.extend(match.rejections)
        summary.breaches = sum(f.severity == audit_pb2.SEVERITY_BREACH for f in match.findings)
        summary.scoring_errors = len(match.findings) - summary.breaches
        rows.append(("match", summary))
    return rows


@app.command()
def generate(
    out_file: Annotated[Path, typer.Argument(help="Output: .pb, .json/.jsonl or .txt")],
    ruleset: Annotated[
        str, typer.Option(help=f"One of {', '.join(BUILTIN)} (or a variant), or all")
    ] = "classic",
    count: Annotated[int, typer.Option(min=1, help="How many records.")] = 10,
    faults: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of records given one planted fault.")
    ] = 0.0,
    matches: Annotated[bool, typer.Option(help="Generate whole matches instead of hands.")] = False,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same records.")] = 1,
) -> None:
    """Write generated legal hands (or matches), some with a labelled planted fault."""
    to = OUTPUT_BY_SUFFIX.get(out_file.suffix)
    if to is None:
        err.print(f"[red]error:[/] {out_file}: expected a .pb, .json, .jsonl or .txt file name")
        raise typer.Exit(2)
    names = list(BUILTIN) if ruleset == "all" else [ruleset]
    for name in names:
        _ruleset_option(name)
    rng = random.Random(seed)
    records: list[records_pb2.RecordFile] = []
    planted = 0
    with Progress(console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task("generating", total=count)
        for i in range(count):
            name = names[i % len(names)]
            if matches:
                records.append(
                    records_pb2.RecordFile(match=generate_match(name, seed * 100_003 + i))
                )
            else:
                hand = generate_hand(name, seed * 100_003 + i)
                if rng.random() < faults:
                    hand, _ = plant_any(hand, rng)
                    planted += 1
                records.append(records_pb2.RecordFile(game=hand))
            progress.advance(task)
    importers.write(records, out_file, to)
    what = "matches" if matches else "hands"
    out.print(f"wrote {len(records)} {what} to {out_file} ({planted} with a planted fault)")


records.register(app)
service.register(app)
dashboard.register(app)
batch.register(app)
