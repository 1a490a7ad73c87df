"""The ``chaodipi`` command line: audit, generate, and the commands of each subsystem.

Each command imports what it needs when it runs, and the commands of the other modules are
loaded only when named (``Commands``), so that ``chaodipi audit FILE`` does not pay for the
database, the server or the dashboard (start-up time: docs/benchmarks.md).

Annotations here are evaluated where they are written (no ``from __future__ import
annotations``): Typer reads the commands' annotations on every run, and strings would cost
it a compile and an eval each, more than a millisecond of every run. Names imported for type
checking only are quoted.
"""

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, ClassVar

import typer

from chaodipi.cli import records
from chaodipi.cli.console import (
    Command,
    Group,
    cell,
    count,
    error,
    is_terminal,
    progress_bar,
    stdout,
    user,
)
from chaodipi.cli.options import ruleset_option
from chaodipi.cli.words import describe_level_result, position_text, severity_text

if TYPE_CHECKING:
    from rich.console import Console

    from chaodipi.engine.ruleset import Ruleset
    from chaodipi.v1 import audit_pb2, records_pb2

    _ReadGame = Callable[[bytes], tuple[audit_pb2.AuditReport, bool]]
    _AuditEntry = Callable[
        [records_pb2.RecordFile | audit_pb2.AuditReport], list[tuple[str, audit_pb2.AuditReport]]
    ]


class Commands(Group):
    """``chaodipi``'s commands: ``audit`` and ``generate`` here, the rest loaded when named."""

    lazy: ClassVar[dict[str, tuple[str, ...]]] = {
        "chaodipi.cli.records": ("import", "export"),
        "chaodipi.cli.service": ("serve", "upload", "replay", "stats", "sample", "keys"),
        "chaodipi.cli.dashboard": ("dashboard", "up"),
        "chaodipi.cli.batch": ("audit-batch",),
        "chaodipi.cli.dump": ("dump",),
        "chaodipi.cli.analyze": ("analyze",),
    }


app = typer.Typer(
    cls=Commands,
    help="Audit and replay recorded games of 炒地皮 (Chao Di Pi).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

OUTPUT_BY_SUFFIX = {".pb": "pb", ".bin": "pb", ".json": "json", ".jsonl": "json", ".txt": "text"}

CONTROL_CODES = dict.fromkeys((7, 8, 11, 12, 13))
"""Bell, backspace, vertical tab, form feed and carriage return: the control codes Rich drops
from what it prints (``rich.control.STRIP_CONTROL_CODES``), dropped from plain lines here."""

Piece = str | tuple[str, str]
"""A piece of a report's line: text (from a record or ours), or such text and its Rich style."""


class _ReportPrinter:
    """The reports' lines on stdout: one console for the command, and plain lines off a terminal.

    On a terminal the lines go through Rich (styles, wrapped to its width). Into a file or a
    pipe, where Rich would only strip the styles and cut lines at 80 columns, a line is written
    as plain text at about a quarter of Rich's cost (a clean hand is one line, and printing it
    through Rich cost about a third of its audit); one line per report is also what ``grep``
    wants. Findings tables go through Rich either way; plain lines need no Rich at all, and a
    clean report off a terminal is printed without importing it (start-up time).
    """

    def __init__(self) -> None:
        self.plain = not is_terminal()
        self._console: Console | None = None

    @property
    def console(self) -> "Console":
        """The command's one console, made when first printed to."""
        if self._console is None:
            self._console = stdout()
        return self._console

    def line(self, *pieces: Piece) -> None:
        """Print one line of pieces: through Rich each piece's text is escaped (never read as
        markup) and given its style; as plain text the pieces' text is written as it is."""
        if self.plain:
            # As Rich would print it, but never wrapped: control codes dropped, tabs expanded
            # (a printable line has neither: the usual one is written as it is).
            text = "".join([p if isinstance(p, str) else p[0] for p in pieces])
            if not text.isprintable():
                text = text.translate(CONTROL_CODES).expandtabs(8)
            sys.stdout.write(text + "\n")
        else:
            self.console.print(
                "".join(
                    user(p) if isinstance(p, str) else f"[{p[1]}]{user(p[0])}[/]" for p in pieces
                )
            )

    def report(self, name: str, report: "audit_pb2.AuditReport") -> bool:
        """Print a report; whether it has findings or rejections (for the exit code)."""
        # Each field read once, here: a report's first read of a field builds its Python
        # wrapper, and a clean report's line is read from a report fresh from the audit.
        head: list[Piece] = [(name, "bold")]
        record_id, ruleset = report.record_id, report.ruleset
        if record_id:
            head += [" ", record_id]
        if ruleset:
            head += [" (", ruleset, ")"]
        rejections = report.rejections
        if rejections:
            self.line(*head, ": ", ("not replayable", "red"))
            for v in rejections:
                self.line("  ", v.field, ": ", v.description)
            return True
        computed, findings = report.computed, report.findings
        if computed.HasField("level_result"):
            summary = (
                f"defenders {computed.defenders_points} points, "
                f"{describe_level_result(computed.level_result)}"
            )
        elif computed.tricks and all(f.code != "RECORD_INCOMPLETE" for f in findings):
            # Played out and scored, but the table moves no level (match points, in the notes).
            summary = f"defenders {computed.defenders_points} points"
        else:
            summary = "not scored"
        if findings:
            verdict: Piece = ", ".join(
                (
                    count(report.breaches, "breach"),
                    count(report.scoring_errors, "scoring error"),
                    count(report.warnings, "warning"),
                )
            )
        else:
            verdict = ("clean", "green")
        self.line(*head, ": ", verdict, "; ", summary)
        if findings:
            from rich.table import Table  # here: a clean report is one line, and needs no table

            table = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
            for column in ("code", "severity", "where", "message"):
                table.add_column(column, overflow="fold")
            for f in findings:
                table.add_row(
                    cell(f.code), severity_text(f.severity), cell(position_text(f.position)),
                    cell(f.message),
                )  # fmt: skip
            self.console.print(table)
        for note in report.notes:
            self.line("  ", (f"note: {note}", "dim"))
        return bool(findings)


class _JsonArray:
    """A JSON array written to stdout as its elements come, one a line: memory holds a report,
    not the file's, and an element is given as its one-line text (``message_json``; an
    indented dump would go through ``json``'s Python encoder, at four times the cost)."""

    def __init__(self) -> None:
        self.written = 0

    def add(self, element: str) -> None:
        """Write an element given as its JSON text, on one line."""
        sys.stdout.write(("[\n" if not self.written else ",\n") + element)
        self.written += 1

    def close(self) -> None:
        sys.stdout.write("\n]\n" if self.written else "[]\n")


def _entry_auditor(ruleset: "Ruleset | None") -> "tuple[_ReadGame, _AuditEntry]":
    """What reads a game a stream gives as its encoding (``RecordStream.entries``), and what
    gives an entry's reports (the auditor imported once, not for every record)."""
    from chaodipi.auditor import audit_encoded_game, audit_game, audit_match
    from chaodipi.v1 import audit_pb2

    def read(data: bytes) -> tuple[audit_pb2.AuditReport, bool]:
        return audit_encoded_game(data, ruleset=ruleset)

    def audit_entry(
        entry: "records_pb2.RecordFile | audit_pb2.AuditReport",
    ) -> list[tuple[str, audit_pb2.AuditReport]]:
        """Reports for one game (a record, or a game's report read from its encoding), or for
        each hand of a match (match findings as an extra report)."""
        if isinstance(entry, audit_pb2.AuditReport):
            return [("", entry)]
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

    return read, audit_entry


@app.command(cls=Command)
def audit(
    files: records.FilesArg,
    fmt: records.FormatOpt = "auto",
    ruleset: Annotated[
        str | None,
        typer.Option(
            metavar="RULESET", help="Audit under this ruleset or TOML/JSON variant file instead."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="Print the reports as JSON.")
    ] = False,
) -> None:
    """Replay records and report every breach. Exit 0 clean, 1 findings, 2 unreadable input.

    With --json, stdout is one JSON array of the reports, a report a line."""
    chosen = ruleset_option(ruleset)
    findings = 0
    printer = _ReportPrinter()
    array = _JsonArray()
    reader = records.FileReader(fmt)
    read, audit_entry = _entry_auditor(chosen)
    if as_json:
        from chaodipi.auditor.jsondict import message_json
    for path, stream in reader.streams(files):
        file = path.name
        # A protobuf stream is read record by record: the bar's total drops as records are
        # rejected on the way, to what reading the file whole would have made it.
        with progress_bar(f"auditing {file}", stream.expected, quiet=as_json) as advance:
            for entry in reader.entries(stream, read):
                for name, report in audit_entry(entry):
                    if as_json:
                        findings += bool(report.findings or report.rejections)
                        array.add(message_json(report))
                    else:
                        findings += printer.report(f"{file} {name}" if name else file, report)
                advance(stream.expected)
    if as_json:
        array.close()
    raise typer.Exit(2 if reader.unreadable else 1 if findings else 0)


@app.command(cls=Command)
def generate(
    out_file: Annotated[
        Path, typer.Argument(metavar="FILE", help="Output: .pb, .json/.jsonl or .txt")
    ],
    ruleset: Annotated[
        str,
        typer.Option(metavar="RULESET", help="A ruleset's id (or a variant file), or all."),
    ] = "classic",
    number: Annotated[
        int, typer.Option("--count", metavar="N", min=1, help="How many records.")
    ] = 10,
    faults: Annotated[
        float,
        typer.Option(
            metavar="SHARE", min=0.0, max=1.0, help="Share of records given one planted fault."
        ),
    ] = 0.0,
    matches: Annotated[
        bool, typer.Option(metavar="", help="Generate whole matches instead of hands.")
    ] = False,
    seed: Annotated[
        int, typer.Option(metavar="N", help="Seed: the same seed gives the same records.")
    ] = 1,
) -> None:
    """Write generated legal hands (or matches), some with a labelled planted fault."""
    import random

    from chaodipi import importers
    from chaodipi.auditor.faults import plant_any
    from chaodipi.auditor.generate import generate_hand, generate_match
    from chaodipi.engine.presets import BUILTIN
    from chaodipi.v1 import records_pb2

    to = OUTPUT_BY_SUFFIX.get(out_file.suffix)
    if to is None:
        error(f"{user(out_file)}: expected a .pb, .json, .jsonl or .txt file name")
        raise typer.Exit(2)
    names = list(BUILTIN) if ruleset == "all" else [ruleset]
    for name in names:
        ruleset_option(name)
    rng = random.Random(seed)
    generated: list[records_pb2.RecordFile] = []
    planted = 0
    what = "matches" if matches else "hands"
    with progress_bar(f"generating {what}", number, unit=what) as advance:
        for i in range(number):
            name = names[i % len(names)]
            if matches:
                generated.append(
                    records_pb2.RecordFile(match=generate_match(name, seed * 100_003 + i))
                )
            else:
                hand = generate_hand(name, seed * 100_003 + i)
                if rng.random() < faults:
                    hand, _ = plant_any(hand, rng)
                    planted += 1
                generated.append(records_pb2.RecordFile(game=hand))
            advance()
    importers.write(generated, out_file, to)
    stdout().print(
        f"wrote {count(len(generated), 'match' if matches else 'hand')} to "
        f"{user(out_file)} ({planted} with a planted fault)"
    )
