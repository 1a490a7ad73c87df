"""``chaodipi audit-batch``: audit a whole corpus into a report folder or a database."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from chaodipi.cli.console import Command, error, stderr, stdout, user
from chaodipi.service.home import DEFAULT_TENANT

if TYPE_CHECKING:
    from rich.progress import ProgressColumn

    from chaodipi.batch.run import Backend, Control, Sink
    from chaodipi.batch.summary import Summary


INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as a shell reports it."""


def _backend(name: str, workers: int | None, address: str | None) -> Backend:
    from chaodipi.batch.local import LocalBackend

    if name == "local":
        return LocalBackend(workers)
    try:
        from chaodipi.batch.ray_backend import RayBackend
    except ImportError:
        error('--backend ray needs Ray: pip install ".[ray]"')
        raise typer.Exit(2) from None
    try:
        return RayBackend(address, workers)
    except ConnectionError as exc:
        error(f"--ray-address: {user(exc)}")
        raise typer.Exit(1) from None


def _sink(out: str, resume: bool, tenant: str, ledger: Path | None, reports: str) -> Sink:
    from chaodipi.batch.sinks import DatabaseSink, FramedSink, JsonFolderSink, is_database_url

    if is_database_url(out):
        return DatabaseSink(out, tenant=tenant, ledger=ledger, resume=resume)
    if reports == "json":
        return JsonFolderSink(Path(out), resume=resume)
    return FramedSink(Path(out), resume=resume)


def audit_batch_command(
    sources: Annotated[
        list[str],
        typer.Argument(
            metavar="SOURCE",
            help="Record files, folders or globs, in any importer format.",
            show_default=False,
        ),
    ],
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DEST",
            help="A folder for the reports (see --reports) and the ledger, or a database URL "
            "(as --store).",
            show_default=False,
        ),
    ] = None,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            metavar="DATABASE_URL",
            help="Store the audited games in the service's database, as uploads are stored "
            "(a record stored before is not stored again).",
            show_default=False,
        ),
    ] = None,
    reports: Annotated[
        str,
        typer.Option(
            "--reports",
            metavar="FORM",
            help="framed: every report in one length-delimited stream, FOLDER/reports.pb "
            "(AuditRecordResponse frames, in the ledger's order); json: a JSON file per record "
            "under FOLDER/reports/.",
        ),
    ] = "framed",
    backend: Annotated[
        str, typer.Option("--backend", metavar="NAME", help="local (a process pool) or ray.")
    ] = "local",
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            metavar="N",
            help="Worker processes (local) or CPUs for a new Ray instance (default: all cores).",
        ),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            metavar="ADDRESS",
            help="Address of an existing Ray cluster (default: start one here).",
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume", metavar="", help="Skip records the destination's ledger already holds."
        ),
    ] = False,
    chunk_size: Annotated[
        int | None,
        typer.Option("--chunk-size", metavar="N", min=1, help="Records per task (default 64)."),
    ] = None,
    tenant: Annotated[
        str,
        typer.Option(
            "--tenant", metavar="NAME", help="Tenant that owns the records (database only)."
        ),
    ] = DEFAULT_TENANT,
    ledger: Annotated[
        Path | None,
        typer.Option(
            "--ledger",
            metavar="FILE",
            help="Done-ledger of a database run (default: in the data folder's batch/).",
        ),
    ] = None,
    analyze: Annotated[
        bool,
        typer.Option(
            "--analyze",
            metavar="",
            help="Also solve each hand's last tricks (see chaodipi analyze): the summary counts "
            "the hands analysed and ranks players by points lost in endgames.",
        ),
    ] = False,
    window: Annotated[
        int | None,
        typer.Option(
            "--window",
            metavar="K",
            min=1,
            help="Tricks --analyze solves at each hand's end (default: the ruleset's window, "
            "4 or 5; docs/analysis.md).",
        ),
    ] = None,
    json_out: Annotated[
        str | None,
        typer.Option(
            "--json",
            metavar="FILE",
            help="Also write the summary as JSON to this file ('-': standard output).",
        ),
    ] = None,
) -> None:
    """Audit every record in SOURCE… on all cores (or Ray) and summarise the findings.

    Ctrl-C stops cleanly: work in flight is finished and written, the partial summary is shown,
    and a rerun with --resume carries on. A second Ctrl-C stops at once.
    """
    from chaodipi.batch.run import DEFAULT_CHUNK, Control
    from chaodipi.batch.sinks import is_database_url
    from chaodipi.batch.sources import missing

    if (out is None) == (store is None):
        error("give one destination: --out FOLDER or --store DATABASE_URL")
        raise typer.Exit(2)
    if store is not None and not is_database_url(store):
        error(f"--store {user(store)}: expected a database URL (sqlite:///…, postgresql://…)")
        raise typer.Exit(2)
    dest = store if store is not None else out
    assert dest is not None
    if reports not in ("framed", "json"):
        error(f"--reports {user(reports)}: expected framed or json")
        raise typer.Exit(2)
    if backend not in ("local", "ray"):
        error(f"--backend {user(backend)}: expected local or ray")
        raise typer.Exit(2)
    if window is not None and not analyze:
        error("--window needs --analyze")
        raise typer.Exit(2)
    if ray_address is not None and backend != "ray":
        error("--ray-address needs --backend ray")
        raise typer.Exit(2)
    absent = missing(sources)
    if absent:
        error(f"no such file or folder: {user(', '.join(absent))}")
        raise typer.Exit(2)
    try:
        sink = _sink(dest, resume, tenant, ledger, reports)
    except OSError as exc:  # the folder (or SQLite's) cannot be made, or a file stands there
        option = "--out" if store is None else "--store"
        error(f"{option} {user(dest)}: cannot write there ({user(exc.strerror or exc)})")
        raise typer.Exit(2) from None
    engine = _backend(backend, workers, ray_address)
    control = Control()
    summary = _run(
        sources,
        sink,
        engine,
        control,
        chunk_size=chunk_size or DEFAULT_CHUNK,
        analyze=(window or 0) if analyze else None,
        exclude=[] if is_database_url(dest) else [Path(dest)],
    )
    summary.render(stdout())
    if json_out is not None:
        text = json.dumps(summary.to_json(), indent=2, ensure_ascii=False) + "\n"
        if json_out == "-":
            sys.stdout.write(text)
        else:
            try:
                Path(json_out).write_text(text, encoding="utf-8")
            except OSError as exc:
                error(f"--json {user(json_out)}: {user(exc.strerror or exc)}")
                raise typer.Exit(2) from None
    if summary.interrupted:
        stderr().print("[yellow]stopped:[/] rerun with --resume to carry on")
        raise typer.Exit(INTERRUPTED)


def _columns(total: int | None) -> tuple[ProgressColumn, ...]:
    """A bar with the total and the time left when the number of records is known beforehand;
    otherwise a count and a rate."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    rate = TextColumn("{task.fields[rate]:,.0f} records/s")
    findings = TextColumn("{task.fields[findings]:,} findings")
    if total is None:
        return (
            SpinnerColumn(),
            TextColumn("{task.completed:,.0f} records"),
            rate,
            findings,
            TimeElapsedColumn(),
        )
    return (
        BarColumn(),
        MofNCompleteColumn(),
        rate,
        findings,
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )


def _run(
    sources: list[str], sink: Sink, engine: Backend, control: Control, **options: Any
) -> Summary:
    """``run_batch`` under a progress bar, with Ctrl-C turned into a clean stop."""
    from rich.progress import Progress

    from chaodipi.batch.run import run_batch
    from chaodipi.batch.sources import count_units, expand

    def on_sigint(_signum: int, _frame: FrameType | None) -> None:
        if control.stopped:
            raise KeyboardInterrupt
        control.stop()
        stderr().print("[yellow]stopping[/] after the work in flight (Ctrl-C again to abort)")

    total = count_units(expand(sources, exclude=options.get("exclude", ())))
    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with Progress(*_columns(total), console=stderr(), transient=True) as progress:
            task = progress.add_task("audit", total=total, rate=0.0, findings=0)

            def on_chunk(summary: Summary) -> None:
                # Records done by an earlier run (--resume) are not this run's work.
                resumed = summary.records - summary.new_records
                progress.update(
                    task,
                    total=None if total is None else total - resumed,
                    completed=summary.new_records,
                    rate=summary.new_records / summary.elapsed if summary.elapsed else 0.0,
                    findings=summary.findings,
                )

            return run_batch(sources, sink, engine, control=control, on_chunk=on_chunk, **options)
    finally:
        engine.close()
        signal.signal(signal.SIGINT, previous)


def register(app: typer.Typer) -> None:
    """Add ``audit-batch`` to the CLI app."""
    app.command("audit-batch", cls=Command)(audit_batch_command)
