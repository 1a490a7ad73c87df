"""``chaodipi import`` and ``chaodipi export``: game logs in, records or annotated notation out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

from chaodipi.cli.console import Command, cell, count, error, stderr, stdout, user
from chaodipi.cli.options import ruleset_option
from chaodipi.importers import FORMATS, OUTPUTS

if TYPE_CHECKING:
    from chaodipi.importers import ImportProblem, ImportResult, RecordStream
    from chaodipi.v1 import records_pb2

_T = TypeVar("_T")

FilesArg = Annotated[
    list[Path], typer.Argument(metavar="FILE", help="Input files, in any supported format.")
]
FormatOpt = Annotated[
    str,
    typer.Option("--format", "-f", metavar="FORMAT", help=f"auto, {', '.join(FORMATS)}."),
]
StrictOpt = Annotated[
    bool, typer.Option("--strict", metavar="", help="Stop at the first error.")
]  # fmt: skip


class FileReader:
    """Reads a command's record files one at a time, printing each file's import problems;
    ``unreadable`` counts the files that could not be read, in whole or in part."""

    def __init__(self, format: str) -> None:
        self.format = format
        self.unreadable = 0

    def streams(self, files: Iterable[Path]) -> Iterator[tuple[Path, RecordStream]]:
        """Each readable file with its records, to be taken through ``records`` (a file that
        cannot be opened is skipped)."""
        from chaodipi import importers

        for path in files:
            try:
                stream = importers.stream(path, self.format)
            except (OSError, ValueError) as exc:
                error(f"{user(path)}: {user(_reason(exc))}")
                self.unreadable += 1
                continue
            yield path, stream

    def records(self, stream: RecordStream) -> Iterator[records_pb2.RecordFile]:
        """A file's records one at a time (a protobuf stream is read as they are taken), each
        problem printed as it is found, before the next record."""
        return self._given(stream, stream)

    def entries(
        self, stream: RecordStream, read: Callable[[bytes], tuple[_T, bool]]
    ) -> Iterator[records_pb2.RecordFile | _T]:
        """As ``records``, a game a protobuf stream's frame holds alone given as what ``read``
        makes of its encoding (``RecordStream.entries``): ``audit_encoded_game``'s report."""
        return self._given(stream, stream.entries(read))

    def _given(self, stream: RecordStream, items: Iterable[_T]) -> Iterator[_T]:
        errors = stream.result.errors
        shown = given = 0
        for item in items:
            if len(errors) > shown:
                shown = _show(errors, shown)
            given += 1
            yield item
        _show(errors, shown)
        self.unreadable += bool(errors) or not given

    def each(self, files: Iterable[Path]) -> Iterator[tuple[Path, ImportResult]]:
        """Each readable file with what it gave, its problems printed."""
        for path, stream in self.streams(files):
            stream.result.records = list(self.records(stream))
            yield path, stream.result


def _show(problems: list[ImportProblem], shown: int) -> int:
    """Print the problems after the first ``shown``; how many are shown now."""
    for problem in problems[shown:]:
        error(user(problem))
    return len(problems)


def _reason(exc: Exception) -> str:
    """What went wrong reading a file, without Python's exception name or errno."""
    if isinstance(exc, OSError):
        return exc.strerror or "cannot be read"
    return str(exc)


def _read(files: list[Path], format: str, strict: bool, title: str) -> ImportResult:
    """Every file read, with a table of what each gave; problems and notes on stderr."""
    from rich.table import Table

    from chaodipi import importers
    from chaodipi.importers.problems import ImportFailed, ImportProblem, ImportResult

    if format != "auto" and format not in FORMATS:
        raise typer.BadParameter(
            f"expected auto or one of {', '.join(FORMATS)}", param_hint="--format"
        )
    total = ImportResult()
    table = Table("file", "records", "errors", title=title)
    for path in files:
        try:
            result = importers.load(path, format, strict)
        except OSError as exc:
            problem = ImportProblem(str(path), "file", exc.strerror or "cannot be read")
            if strict:
                raise ImportFailed(problem) from None
            result = ImportResult(errors=[problem])
        table.add_row(cell(path), str(len(result.records)), str(len(result.errors)))
        total.extend(result)
    stderr().print(table)
    for note in total.notes:
        stderr().print(f"[dim]{user(note)}[/dim]")
    for problem in total.errors:
        error(user(problem))
    return total


def _nothing_read(files: list[Path], output: Path) -> NoReturn:
    """No record in any file: said (the files' problems are printed already), nothing written."""
    error(f"no record was read from {count(len(files), 'file')}: nothing written to {user(output)}")
    raise typer.Exit(2)


def _exit_code(result: ImportResult) -> int:
    """0 when every record was read, 1 when some were skipped, 2 when none was read."""
    if not result.records:
        return 2
    return 1 if result.errors else 0


def _read_or_exit(files: list[Path], format: str, strict: bool, title: str) -> ImportResult:
    from chaodipi.importers.problems import ImportFailed

    try:
        return _read(files, format, strict, title)
    except ImportFailed as failed:
        error(user(failed.problem))
        raise typer.Exit(2) from None


def import_command(
    files: FilesArg,
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Output file.")],
    format: FormatOpt = "auto",
    to: Annotated[
        str, typer.Option("--to", metavar="FORMAT", help=f"Output format: {', '.join(OUTPUTS)}.")
    ] = "pb",
    strict: StrictOpt = False,
) -> None:
    """Convert game logs to records: exit 0 ok, 1 if a record was skipped, 2 if none was read."""
    from chaodipi import importers

    if to not in OUTPUTS:
        raise typer.BadParameter(f"expected one of {', '.join(OUTPUTS)}", param_hint="--to")
    result = _read_or_exit(files, format, strict, "import")
    if not result.records:
        _nothing_read(files, output)
    importers.write(result.records, output, to)
    stdout().print(
        f"{count(len(result.records), 'record')} written to {user(output)} ({to}); "
        f"{count(len(result.errors), 'error')}"
    )
    raise typer.Exit(_exit_code(result))


def export_command(
    files: FilesArg,
    output: Annotated[
        Path, typer.Option("--output", "-o", metavar="FILE", help="Output notation file.")
    ],
    format: FormatOpt = "auto",
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            metavar="RULESET",
            help="Audit under this ruleset instead of each record's.",
        ),
    ] = None,
    strict: StrictOpt = False,
) -> None:
    """Audit records and write them as notation with each finding as a comment at its play."""
    from chaodipi.importers.annotate import export_text

    chosen = ruleset_option(ruleset)
    result = _read_or_exit(files, format, strict, "export")
    if not result.records:
        _nothing_read(files, output)
    output.write_text(export_text(result.records, chosen), encoding="utf-8")
    stdout().print(f"{count(len(result.records), 'record')} audited and written to {user(output)}")
    raise typer.Exit(_exit_code(result))


def register(app: typer.Typer) -> None:
    """Add ``import`` and ``export`` to the CLI app."""
    app.command("import", cls=Command)(import_command)
    app.command("export", cls=Command)(export_command)
