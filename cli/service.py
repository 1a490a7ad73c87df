"""Command-line commands of the service, added to the ``chaodipi`` Typer app by ``register``."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Annotated

import grpc
import typer
from rich.console import Console
from rich.table import Table

from chaodipi import importers
from chaodipi.auditor.generate import generate_hand, generate_match
from chaodipi.service import keys
from chaodipi.service.client import AuditClient, field_violations
from chaodipi.service.db import SessionFactory, make_engine, session_factory
from chaodipi.service.migrate import upgrade
from chaodipi.service.readmodel import PlayerStatsRow, ReadModel, StatsFilter
from chaodipi.service.server import ServerConfig, serve
from chaodipi.service.store import DEFAULT_TENANT
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

err = Console(stderr=True)


def _out() -> Console:
    # Made per command, so the terminal width (or COLUMNS) is read when printing.
    return Console()


DatabaseOpt = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        envvar="CHAODIPI_DATABASE_URL",
        help="SQLAlchemy URL (default: SQLite in $CHAODIPI_HOME or ./.chaodipi).",
    ),
]
ServerOpt = Annotated[
    str | None,
    typer.Option(
        "--server", help="HOST:PORT of a running server (default: the local database directly)."
    ),
]
KeyOpt = Annotated[
    str | None, typer.Option("--api-key", envvar="CHAODIPI_API_KEY", help="API key to send.")
]
TenantOpt = Annotated[
    str, typer.Option("--tenant", help="Tenant whose data to read (local database only).")
]

_STATUS = {
    service_pb2.RecordSummary.STATUS_STORED: "stored",
    service_pb2.RecordSummary.STATUS_DUPLICATE: "duplicate",
    service_pb2.RecordSummary.STATUS_REJECTED: "rejected",
}


def _local_sessions(database_url: str | None) -> SessionFactory:
    engine = make_engine(database_url)
    upgrade(engine)
    return session_factory(engine)


def _fail(error: grpc.RpcError) -> typer.Exit:
    # The errors a channel raises are grpc.Call objects (field_violations relies on it too).
    err.print(f"[red]error[/red]: {error.code().name}: {error.details()}")
    for name, description in field_violations(error):
        err.print(f"  {name}: {description}")
    return typer.Exit(1)


def serve_command(
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on (0: any free port).")
    ] = 50051,
    host: Annotated[
        str | None,
        typer.Option("--host", help="Address to bind (default: all with keys, 127.0.0.1 without)."),
    ] = None,
    database_url: DatabaseOpt = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--audit-workers",
            help="Processes auditing uploads (0: a thread; default: one per core, at most 4).",
        ),
    ] = None,
    max_message_bytes: Annotated[
        int, typer.Option("--max-message-bytes", help="Largest request message accepted.")
    ] = 4 * 1024 * 1024,
    max_upload_records: Annotated[
        int, typer.Option("--max-upload-records", help="Most records one Upload stream may hold.")
    ] = 100_000,
    max_upload_bytes: Annotated[
        int, typer.Option("--max-upload-bytes", help="Most bytes one Upload stream may hold.")
    ] = 512 * 1024 * 1024,
    grace: Annotated[
        float, typer.Option("--grace", help="Seconds in-flight calls get on shutdown.")
    ] = 10.0,
) -> None:
    """Run the gRPC audit service until SIGTERM or SIGINT."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    config = ServerConfig(
        port=port,
        host=host,
        database_url=database_url,
        max_message_bytes=max_message_bytes,
        max_records_per_upload=max_upload_records,
        max_upload_bytes=max_upload_bytes,
        grace_seconds=grace,
    )
    if workers is not None:
        config.audit_workers = workers
    asyncio.run(serve(config))


def read_records(paths: list[Path]) -> list[records_pb2.RecordFile]:
    """Records from files in any format ``importers`` reads; problems go to stderr."""
    records: list[records_pb2.RecordFile] = []
    for path in paths:
        result = importers.load(path)
        for problem in result.errors:
            err.print(f"[yellow]skipped[/yellow] {problem}")
        records.extend(result.records)
    return records


def upload_command(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Record files (.pb, .jsonl, .json, .txt…).", exists=True, dir_okay=False
        ),
    ],
    server: Annotated[
        str, typer.Option("--server", help="HOST:PORT of the server.")
    ] = "127.0.0.1:50051",
    api_key: KeyOpt = None,
) -> None:
    """Upload record files to a server; prints one line per record."""
    records = read_records(files)
    with AuditClient(server, api_key=api_key, timeout=600) as client:
        try:
            summaries = client.upload(records)
        except grpc.RpcError as error:
            raise _fail(error) from None
    out = _out()
    table = Table("#", "record", "status", "game id", "breaches", "scoring", "warnings", "codes")
    for s in summaries:
        table.add_row(
            str(s.index),
            s.record_id,
            _STATUS.get(s.status, "?"),
            s.game_id,
            str(s.breaches),
            str(s.scoring_errors),
            str(s.warnings),
            ", ".join(s.finding_codes) or s.error,
        )
        for hand_id in s.hand_game_ids:
            table.add_row("", "", "  hand", hand_id, "", "", "", "")
    out.print(table)
    counts = {
        name: sum(1 for s in summaries if _STATUS.get(s.status) == name)
        for name in _STATUS.values()
    }
    out.print(", ".join(f"{n} {name}" for name, n in counts.items()))
    if counts["rejected"]:
        raise typer.Exit(1)


def _print_replay(replay: service_pb2.Replay) -> None:
    out = _out()
    record, report = replay.record, replay.report
    computed = report.computed
    out.print(
        f"[bold]game {replay.game_id}[/bold]  record {record.record_id}  "
        f"ruleset {report.ruleset}  played {record.played_at or '?'}"
    )
    for seat, player in enumerate(record.players):
        side = ""
        if computed.HasField("dealer"):
            side = "dealer side" if seat % 2 == computed.dealer % 2 else "defenders"
        out.print(f"  seat {seat}: {player.display_name or player.id} ({player.id}) {side}")
    trump = computed.trump
    out.print(
        f"trump: level {trump.level} suit {records_pb2.Suit.Name(trump.suit)}; "
        f"{len(computed.tricks)} tricks; kitty {computed.kitty_points} points "
        f"x{computed.kitty_multiplier} = {computed.kitty_bonus}; "
        f"defenders {computed.defenders_points} points"
    )
    result = computed.level_result
    out.print(f"result: {records_pb2.Outcome.Name(result.outcome)} +{result.levels}")
    out.print(
        f"findings: {report.breaches} breaches, {report.scoring_errors} scoring errors, "
        f"{report.warnings} warnings"
    )
    for finding in report.findings:
        pos = finding.position
        where = audit_pb2.Phase.Name(pos.phase).removeprefix("PHASE_").lower()
        if pos.HasField("trick"):
            where += f" trick {pos.trick + 1}"
        if pos.HasField("seat"):
            where += f" seat {pos.seat}"
        out.print(f"  [red]{finding.code}[/red] ({where}): {finding.message}")
    for note in report.notes:
        out.print(f"  note: {note}")


def replay_command(
    game_id: Annotated[str, typer.Argument(help="Id of the stored game.")],
    server: ServerOpt = None,
    api_key: KeyOpt = None,
    database_url: DatabaseOpt = None,
    tenant: TenantOpt = DEFAULT_TENANT,
) -> None:
    """Print a readable summary of a stored game and its findings."""
    if server:
        with AuditClient(server, api_key=api_key) as client:
            try:
                replay = client.get_replay(game_id)
            except grpc.RpcError as error:
                raise _fail(error) from None
    else:
        model = ReadModel.for_tenant(_local_sessions(database_url), tenant)
        stored = None if model is None else model.game(game_id)
        if stored is None:
            err.print(f"[red]error[/red]: no game {game_id!r} for tenant {tenant!r}")
            raise typer.Exit(1)
        replay = stored.message()
    _print_replay(replay)


def stats_command(
    player: Annotated[
        list[str] | None, typer.Option("--player", help="Player id (repeat).")
    ] = None,
    ruleset: Annotated[str, typer.Option("--ruleset", help="Only games of this ruleset.")] = "",
    server: ServerOpt = None,
    api_key: KeyOpt = None,
    database_url: DatabaseOpt = None,
    tenant: TenantOpt = DEFAULT_TENANT,
) -> None:
    """Print player statistics."""
    players = player or []
    rows: list[service_pb2.PlayerStats | PlayerStatsRow]
    if server:
        with AuditClient(server, api_key=api_key) as client:
            try:
                rows = list(client.player_stats(players, ruleset=ruleset))
            except grpc.RpcError as error:
                raise _fail(error) from None
    else:
        model = ReadModel.for_tenant(_local_sessions(database_url), tenant)
        filters = StatsFilter(tuple(players), ruleset or None)
        rows = [] if model is None else list(model.player_stats(filters))
    table = Table(
        "player",
        "name",
        "games",
        "dealer",
        "defending",
        "tricks",
        "points",
        "throws ok/failed",
        "抠底 (pts)",
        "levels +/-",
        "win rate",
        "breaches",
    )
    for r in rows:
        table.add_row(
            r.player_id,
            r.display_name,
            str(r.games),
            str(r.hands_as_dealer_side),
            str(r.hands_as_defenders),
            str(r.tricks_won),
            str(r.points_taken),
            f"{r.throws_stood}/{r.throws_failed}",
            f"{r.kou_di_count} ({r.kou_di_points})",
            f"+{r.levels_gained}/-{r.levels_conceded}",
            f"{r.win_rate:.0%}",
            ", ".join(f"{c}:{n}" for c, n in sorted(dict(r.breaches_by_code).items())),
        )
    _out().print(table)


def sample_command(
    out: Annotated[Path, typer.Argument(help="File to write: .pb (binary) or .jsonl.")],
    hands: Annotated[int, typer.Option("--hands", help="Single hands to generate.")] = 20,
    matches: Annotated[int, typer.Option("--matches", help="Matches to generate.")] = 2,
    seed: Annotated[int, typer.Option("--seed", help="First seed.")] = 1,
) -> None:
    """Write generated legal sample games (hands of every ruleset, and matches)."""
    rulesets = ("classic", "shuangsheng", "anhui", "changshu")
    records = [
        records_pb2.RecordFile(game=generate_hand(rulesets[i % 4], seed + i)) for i in range(hands)
    ]
    records += [
        records_pb2.RecordFile(match=generate_match(rulesets[i % 4], seed + i))
        for i in range(matches)
    ]
    importers.write(records, out, "pb" if out.suffix == ".pb" else "json")
    _out().print(f"wrote {hands} hands and {matches} matches to {out}")


keys_app = typer.Typer(help="Create, list and revoke API keys.", no_args_is_help=True)


@keys_app.command("create")
def keys_create(
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant the key acts for.")],
    database_url: DatabaseOpt = None,
) -> None:
    """Create an API key for a tenant; the key is shown once."""
    key_id, key = keys.create_key(_local_sessions(database_url), tenant)
    _out().print(
        f"key id {key_id} for tenant {tenant!r} (restart a keyless server to require keys):"
    )
    print(key)


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="Id of the key.")],
    database_url: DatabaseOpt = None,
) -> None:
    """Revoke an API key by id."""
    if not keys.revoke_key(_local_sessions(database_url), key_id):
        err.print(f"[red]error[/red]: no active key {key_id!r}")
        raise typer.Exit(1)
    _out().print(f"revoked {key_id}")


@keys_app.command("list")
def keys_list(database_url: DatabaseOpt = None) -> None:
    """List API keys (ids, tenants, state; never the secrets)."""
    table = Table("key id", "tenant", "created", "revoked")
    for info in keys.list_keys(_local_sessions(database_url)):
        table.add_row(
            info.key_id,
            info.tenant,
            f"{info.created_at:%Y-%m-%d %H:%M}",
            f"{info.revoked_at:%Y-%m-%d %H:%M}" if info.revoked_at else "",
        )
    _out().print(table)


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``upload``, ``replay``, ``stats``, ``sample`` and ``keys …`` to ``app``."""
    app.command("serve")(serve_command)
    app.command("upload")(upload_command)
    app.command("replay")(replay_command)
    app.command("stats")(stats_command)
    app.command("sample")(sample_command)
    app.add_typer(keys_app, name="keys")
