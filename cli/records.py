"""The ``import`` and ``export`` commands of the ``chaodipi`` CLI (``register(app)`` adds them)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from chaodipi.engine.presets import get_ruleset
from chaodipi.engine.ruleset import RulesetError
from chaodipi.importers import FORMATS, OUTPUTS, ImportFailed, ImportResult, load, write
from chaodipi.importers.problems import ImportProblem

_console = Console(stderr=True)

FilesArg = Annotated[list[Path], typer.Argument(help="Input files, in any supported format.")]
FormatOpt = Annotated[
    str, typer.Option("--format", "-f", help=f"Input format: auto, {', '.join(FORMATS)}.")
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Stop at the first error.")]


def _read(files: list[Path], format: str, strict: bool) -> ImportResult:
    if format != "auto" and format not in FORMATS:
        raise typer.BadParameter(
            f"expected auto or one of {', '.join(FORMATS)}", param_hint="--format"
        )
    total = ImportResult()
    table = Table("file", "records", "errors", title="import")
    for path in files:
        try:
            result = load(path, format, strict)
        except OSError as exc:
            result = ImportResult(errors=[ImportProblem(str(path), "file", f"cannot read: {exc}")])
            if strict:
                raise ImportFailed(result.errors[0]) from None
        table.add_row(str(path), str(len(result.records)), str(len(result.errors)))
        total.extend(result)
    _console.print(table)
    for note in total.notes:
        _console.print(f"[dim]{note}[/dim]")
    for problem in total.errors:
        _console.print(f"[red]error[/red] {problem}", markup=True, highlight=False)
    return total


def _exit_code(result: ImportResult) -> int:
    if not result.records:
        return 2
    return 1 if result.errors else 0


def import_command(
    files: FilesArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="Output file.")],
    format: FormatOpt = "auto",
    to: Annotated[str, typer.Option("--to", help=f"Output format: {', '.join(OUTPUTS)}.")] = "pb",
    strict: StrictOpt = False,
) -> None:
    """Convert game logs to records: exit 0 ok, 1 if a record was skipped, 2 if none was read."""
    if to not in OUTPUTS:
        raise typer.BadParameter(f"expected one of {', '.join(OUTPUTS)}", param_hint="--to")
    try:
        result = _read(files, format, strict)
    except ImportFailed as failed:
        _console.print(f"[red]error[/red] {failed.problem}", highlight=False)
        raise typer.Exit(2) from None
    if result.records:
        write(result.records, output, to)
    _console.print(
        f"{len(result.records)} records written to {output} ({to}); {len(result.errors)} errors"
    )
    raise typer.Exit(_exit_code(result))


def export_command(
    files: FilesArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="Output notation file.")],
    format: FormatOpt = "auto",
    ruleset: Annotated[
        str | None,
        typer.Option("--ruleset", help="Audit under this ruleset instead of each record's own."),
    ] = None,
    strict: StrictOpt = False,
) -> None:
    """Audit records and write them as notation with each finding as a comment at its play."""
    from chaodipi.importers.annotate import export_text  # the auditor loads only when exporting

    try:
        chosen = get_ruleset(ruleset) if ruleset else None
    except RulesetError as exc:
        raise typer.BadParameter(str(exc), param_hint="--ruleset") from None
    try:
        result = _read(files, format, strict)
    except ImportFailed as failed:
        _console.print(f"[red]error[/red] {failed.problem}", highlight=False)
        raise typer.Exit(2) from None
    if result.records:
        output.write_text(export_text(result.records, chosen), encoding="utf-8")
    _console.print(f"{len(result.records)} records audited and written to {output}")
    raise typer.Exit(_exit_code(result))


def register(app: typer.Typer) -> None:
    """Add ``import`` and ``export`` to the CLI app."""
    app.command("import")(import_command)
    app.command("export")(export_command)
