"""``chaodipi audit-batch``: audit a whole corpus into a report folder or a database."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from chaodipi.batch.local import LocalBackend
from chaodipi.batch.run import DEFAULT_CHUNK, Backend, Control, Sink, run_batch
from chaodipi.batch.sinks import DatabaseSink, JsonFolderSink, is_database_url
from chaodipi.batch.sources import missing
from chaodipi.batch.summary import Summary

console = Console(stderr=True)

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as a shell reports it."""


def _backend(name: str, workers: int | None, address: str | None) -> Backend:
    if name == "local":
        return LocalBackend(workers)
    try:
        from chaodipi.batch.ray_backend import RayBackend
    except ImportError:
        console.print('[red]error:[/] --backend ray needs Ray: pip install ".[ray]"')
        raise typer.Exit(2) from None
    try:
        return RayBackend(address, workers)
    except ConnectionError as exc:
        console.print(f"[red]error:[/] --ray-address: {exc}")
        raise typer.Exit(1) from None


def _sink(out: str, resume: bool, tenant: str, ledger: Path | None) -> Sink:
    if is_database_url(out):
        return DatabaseSink(out, tenant=tenant, ledger=ledger, resume=resume)
    return JsonFolderSink(Path(out), resume=resume)


def audit_batch_command(
    sources: Annotated[
        list[str],
        typer.Argument(
            help="Record files, folders or globs, in any importer format.", show_default=False
        ),
    ],
    out: Annotated[
        str,
        typer.Option(
            "--out",
            "-o",
            help="A folder of JSON reports, or a database URL (stored as the "
            "service stores uploads).",
            show_default=False,
        ),
    ],
    backend: Annotated[
        str, typer.Option("--backend", help="local (a process pool) or ray.")
    ] = "local",
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            help="Worker processes (local) or CPUs for a new Ray instance (default: all cores).",
        ),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address", help="Address of an existing Ray cluster (default: start one here)."
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Skip records the destination's ledger already holds.")
    ] = False,
    chunk_size: Annotated[
        int, typer.Option("--chunk-size", min=1, help="Records per task.")
    ] = DEFAULT_CHUNK,
    tenant: Annotated[
        str, typer.Option("--tenant", help="Tenant that owns the records (database only).")
    ] = "default",
    ledger: Annotated[
        Path | None,
        typer.Option(
            "--ledger", help="Done-ledger of a database run (default: in $CHAODIPI_HOME/batch)."
        ),
    ] = None,
    json_out: Annotated[
        str | None,
        typer.Option(
            "--json", help="Also write the summary as JSON to this file ('-': standard output)."
        ),
    ] = None,
) -> None:
    """Audit every record in SOURCE… on all cores (or Ray) and summarise the findings.

    Ctrl-C stops cleanly: work in flight is finished and written, the partial summary is shown,
    and a rerun with --resume carries on. A second Ctrl-C stops at once.
    """
    if backend not in ("local", "ray"):
        console.print(f"[red]error:[/] --backend {backend!r}: expected local or ray")
        raise typer.Exit(2)
    if ray_address is not None and backend != "ray":
        console.print("[red]error:[/] --ray-address needs --backend ray")
        raise typer.Exit(2)
    absent = missing(sources)
    if absent:
        console.print(f"[red]error:[/] no such file or folder: {', '.join(absent)}")
        raise typer.Exit(2)
    sink = _sink(out, resume, tenant, ledger)
    engine = _backend(backend, workers, ray_address)
    control = Control()
    summary = _run(
        sources,
        sink,
        engine,
        control,
        chunk_size=chunk_size,
        exclude=[] if is_database_url(out) else [Path(out)],
    )
    summary.render(Console())
    if json_out is not None:
        text = json.dumps(summary.to_json(), indent=2, ensure_ascii=False) + "\n"
        if json_out == "-":
            sys.stdout.write(text)
        else:
            Path(json_out).write_text(text, encoding="utf-8")
    if summary.interrupted:
        console.print("[yellow]stopped:[/] rerun with --resume to carry on")
        raise typer.Exit(INTERRUPTED)


def _run(
    sources: list[str], sink: Sink, engine: Backend, control: Control, **options: Any
) -> Summary:
    """``run_batch`` under a progress bar, with Ctrl-C turned into a clean stop."""

    def on_sigint(_signum: int, _frame: FrameType | None) -> None:
        if control.stopped:
            raise KeyboardInterrupt
        control.stop()
        console.print("[yellow]stopping[/] after the work in flight (Ctrl-C again to abort)")

    columns = (
        SpinnerColumn(),
        TextColumn("{task.completed:,.0f} hands"),
        TextColumn("{task.fields[rate]:,.0f} hands/s"),
        TextColumn("{task.fields[findings]:,} findings"),
        TimeElapsedColumn(),
    )
    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("audit", rate=0.0, findings=0)

            def on_chunk(summary: Summary) -> None:
                progress.update(
                    task,
                    completed=summary.new_hands,
                    rate=summary.hands_per_second,
                    findings=summary.findings,
                )

            return run_batch(sources, sink, engine, control=control, on_chunk=on_chunk, **options)
    finally:
        engine.close()
        signal.signal(signal.SIGINT, previous)


def register(app: typer.Typer) -> None:
    """Add ``audit-batch`` to the CLI app."""
    app.command("audit-batch")(audit_batch_command)
