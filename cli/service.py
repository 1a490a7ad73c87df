"""The service's commands: ``serve``, ``upload``, ``replay``, ``stats``, ``sample``, ``keys``.

Added to the ``chaodipi`` app by ``register``; each imports the service when it runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from chaodipi.cli.console import (
    Command,
    Group,
    cell,
    count,
    error,
    progress_bar,
    stderr,
    stdout,
    user,
)
from chaodipi.cli.options import (
    DatabaseOpt,
    KeyOpt,
    ServerOpt,
    TenantOpt,
    TlsCaOpt,
    TlsCertOpt,
    TlsKeyOpt,
)
from chaodipi.cli.words import PHASES, describe_level_result, describe_trump
from chaodipi.service.home import DEFAULT_TENANT

if TYPE_CHECKING:
    from chaodipi.client import AuditClient, ServiceError
    from chaodipi.service.db import SessionFactory
    from chaodipi.service.readmodel import PlayerStatsRow, ReadModel
    from chaodipi.v1 import records_pb2, service_pb2

_STATUS_WORDS = {1: "stored", 2: "duplicate", 3: "rejected", 4: "conflict"}
"""``RecordSummary.Status`` values in words (1 stored, 2 duplicate, 3 rejected, 4 conflict)."""


def local_read_model(database_url: str | None, tenant: str) -> ReadModel | None:
    """The read model of a tenant in the local (or ``--database-url``) database; None when the
    database has no such tenant (nothing is created)."""
    from chaodipi.service.readmodel import ReadModel

    return ReadModel.for_tenant(_local_sessions(database_url), tenant)


def _local_sessions(database_url: str | None) -> SessionFactory:
    from chaodipi.service.db import make_engine, session_factory
    from chaodipi.service.migrate import upgrade

    engine = make_engine(database_url)
    upgrade(engine)
    return session_factory(engine)


_UNREACHED = ("failed to connect to all addresses", "DNS resolution failed", "errors resolving")
"""How gRPC's own message for a server it could not reach begins (status UNAVAILABLE): not
an answer of the server, whose messages begin otherwise."""


def _fail(failure: ServiceError, server: str) -> typer.Exit:
    """A failed call on stderr: its status in words, its message and any field violations; a
    server not reached, or not answering in time, said so in words (gRPC's own text, with
    its internal codes, is not shown)."""
    status, details = failure.code(), failure.details()
    if status.name == "UNAVAILABLE" and details.startswith(_UNREACHED):
        # gRPC ends its message with the system's reason: "... Connection refused".
        cause = details.rsplit(": ", 1)[-1].strip(" ]").lower()
        if "ssl" in details.lower() or "handshake" in details.lower():
            error(
                f"the TLS handshake with the server at {user(server)} failed: does it serve "
                "TLS, and is its certificate signed by --tls-ca?"
            )
        elif cause in ("socket closed", "connection reset by peer"):
            # Reached, and hung up on: most often a server that wants TLS, asked without.
            error(
                f"the server at {user(server)} closed the connection ({user(cause)}): if it "
                "serves TLS, give --tls-ca (and --tls-cert, --tls-key if it asks for them)"
            )
        else:
            error(
                f"cannot reach a chaodipi server at {user(server)} ({user(cause)}): start one "
                "(chaodipi serve, or chaodipi up) or name it with --server HOST:PORT"
            )
        return typer.Exit(1)
    if status.name == "DEADLINE_EXCEEDED":
        error(f"no answer from the server at {user(server)} in time (the call's deadline passed)")
        return typer.Exit(1)
    code = status.name.lower().replace("_", " ")
    error(f"the server answered {code}: {user(details)}")
    for name, description in failure.violations:
        stderr().print(f"  {user(name)}: {user(description)}")
    return typer.Exit(1)


def _client(
    server: str,
    api_key: str | None,
    tls_ca: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    *,
    upload_timeout: float | None = 3600.0,
) -> AuditClient:
    """A client of ``server``; exit 2 naming the file when a TLS file cannot be read."""
    from chaodipi.client import AuditClient

    for option, path in (("--tls-ca", tls_ca), ("--tls-cert", tls_cert), ("--tls-key", tls_key)):
        if path is not None and not path.is_file():
            error(f"{option} {user(path)}: no such file")
            raise typer.Exit(2)
    return AuditClient(
        server,
        api_key=api_key,
        tls_ca=tls_ca,
        tls_cert=tls_cert,
        tls_key=tls_key,
        upload_timeout=upload_timeout,
    )


def serve_command(
    port: Annotated[
        int,
        typer.Option(
            "--port", metavar="PORT", min=0, max=65535, help="Port to listen on (0: any free port)."
        ),
    ] = 50051,
    host: Annotated[
        str | None,
        typer.Option(
            "--host",
            metavar="ADDRESS",
            help="Address to bind (default: all with keys, 127.0.0.1 without).",
        ),
    ] = None,
    database_url: DatabaseOpt = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--audit-workers",
            metavar="N",
            help="Processes auditing uploads (0: a thread; default: one per core but one, 1 to 4).",
        ),
    ] = None,
    max_message_bytes: Annotated[
        int,
        typer.Option("--max-message-bytes", metavar="BYTES", help="Largest request accepted."),
    ] = 4 * 1024 * 1024,
    max_upload_records: Annotated[
        int,
        typer.Option(
            "--max-upload-records", metavar="N", help="Most records one Upload stream may hold."
        ),
    ] = 100_000,
    max_upload_bytes: Annotated[
        int,
        typer.Option(
            "--max-upload-bytes", metavar="BYTES", help="Most bytes one Upload stream may hold."
        ),
    ] = 512 * 1024 * 1024,
    grace: Annotated[
        float,
        typer.Option("--grace", metavar="SECONDS", help="Time in-flight calls get on shutdown."),
    ] = 10.0,
    tls_cert: Annotated[
        Path | None,
        typer.Option(
            "--tls-cert", metavar="FILE", dir_okay=False, help="Serve TLS: certificate chain (PEM)."
        ),
    ] = None,
    tls_key: Annotated[
        Path | None,
        typer.Option("--tls-key", metavar="FILE", dir_okay=False, help="Its private key (PEM)."),
    ] = None,
    tls_client_ca: Annotated[
        Path | None,
        typer.Option(
            "--tls-client-ca",
            metavar="FILE",
            dir_okay=False,
            help="Require client certificates signed by this CA (mutual TLS).",
        ),
    ] = None,
    insecure: Annotated[
        bool,
        typer.Option(
            "--insecure",
            metavar="",
            help="With API keys and no TLS, listen beyond localhost anyway (keys in the clear).",
        ),
    ] = False,
    require_keys: Annotated[
        bool,
        typer.Option(
            "--require-keys",
            metavar="",
            help="Require API keys even while none exists (replicas started before the first "
            "key; default: required once any key exists).",
        ),
    ] = False,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            "--metrics-port",
            metavar="PORT",
            help="Serve Prometheus metrics on http://ADDRESS:PORT/metrics (0: any free port).",
        ),
    ] = None,
    log_json: Annotated[
        bool,
        typer.Option(
            "--log-json",
            metavar="",
            help="Log JSON lines, one per call too, each with its request id and tenant.",
        ),
    ] = False,
) -> None:
    """Run the gRPC audit service until SIGTERM or SIGINT."""
    import asyncio

    from chaodipi.service.db import data_dir
    from chaodipi.service.logs import configure_logging
    from chaodipi.service.server import ConfigError, ServerConfig, serve

    configure_logging(log_json)
    config = ServerConfig(
        port=port,
        host=host,
        database_url=database_url,
        max_message_bytes=max_message_bytes,
        max_records_per_upload=max_upload_records,
        max_upload_bytes=max_upload_bytes,
        grace_seconds=grace,
        tls_cert=tls_cert,
        tls_key=tls_key,
        tls_client_ca=tls_client_ca,
        insecure=insecure,
        require_keys=True if require_keys else None,
        metrics_port=metrics_port,
    )
    if workers is not None:
        config.audit_workers = workers
    stderr().print(f"data folder: {user(data_dir())}")
    try:
        asyncio.run(serve(config))
    except ConfigError as exc:
        error(user(exc))
        raise typer.Exit(1) from None


def _read_files(paths: list[Path]) -> tuple[list[records_pb2.RecordFile], int]:
    """Records from files in any format the importers read, and how many problems were found
    (each printed on stderr: the file, where in it, and what is wrong)."""
    from chaodipi import importers

    records: list[records_pb2.RecordFile] = []
    problems = 0
    for path in paths:
        try:
            result = importers.load(path)
        except OSError as exc:
            error(f"{user(path)}: {user(exc.strerror or 'cannot be read')}")
            problems += 1
            continue
        for problem in result.errors:
            error(f"{user(problem)} (skipped)")
        problems += len(result.errors)
        records.extend(result.records)
    return records, problems


def _counted(
    summaries: Iterator[service_pb2.RecordSummary], total: int
) -> list[service_pb2.RecordSummary]:
    """The summaries, advancing a progress bar as each comes back (its record is stored)."""
    out = []
    with progress_bar("uploading", total) as advance:
        for summary in summaries:
            out.append(summary)
            advance()
    return out


def upload_command(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE",
            help="Record files (.pb, .jsonl, .json, .txt, or a foreign log).",
            dir_okay=False,
        ),
    ],
    server: Annotated[
        str, typer.Option("--server", metavar="HOST:PORT", help="The server.")
    ] = "127.0.0.1:50051",
    api_key: KeyOpt = None,
    tls_ca: TlsCaOpt = None,
    tls_cert: TlsCertOpt = None,
    tls_key: TlsKeyOpt = None,
    details: Annotated[
        bool, typer.Option("--details", metavar="", help="Also print a line for every record.")
    ] = False,
) -> None:
    """Upload record files to a server and say what became of them.

    Exit 0 when every record was stored (or already was), 1 when any file problem, rejected or
    conflicting record was found, 2 when no record could be read at all.
    """
    from chaodipi.client import ServiceError

    records, problems = _read_files(files)
    if not records:
        error(f"nothing to upload: no record could be read from {count(len(files), 'file')}")
        raise typer.Exit(2)
    with _client(server, api_key, tls_ca, tls_cert, tls_key, upload_timeout=None) as client:
        try:
            summaries = _counted(client.upload_iter(records), len(records))
        except ServiceError as failure:
            raise _fail(failure, server) from None
    if details:
        _print_summaries(summaries)
    tally = {word: 0 for word in _STATUS_WORDS.values()}
    for s in summaries:
        tally[_STATUS_WORDS.get(s.status, "rejected")] += 1
    conflicts = f", {tally['conflict']} in conflict" if tally["conflict"] else ""
    stdout().print(
        f"{count(len(summaries), 'record')}: {tally['stored']} stored, "
        f"{tally['duplicate']} already stored, {tally['rejected']} rejected{conflicts}"
    )
    for s in summaries:
        if _STATUS_WORDS.get(s.status) in ("rejected", "conflict"):
            error(f"record {s.index + 1} ({user(s.record_id or 'no id')}): {user(s.error)}")
    if tally["rejected"] or tally["conflict"] or problems:
        raise typer.Exit(1)


def _print_summaries(summaries: list[service_pb2.RecordSummary]) -> None:
    from rich.table import Table

    table = Table("#", "record", "status", "stored as", "breaches", "scoring", "warnings", "codes")
    for s in summaries:
        table.add_row(
            str(s.index + 1),
            cell(s.record_id),
            _STATUS_WORDS.get(s.status, "?"),
            cell(s.match or s.game),
            str(s.breaches),
            str(s.scoring_errors),
            str(s.warnings),
            cell(", ".join(s.finding_codes) or s.error),
        )
        for hand in s.hand_games:
            table.add_row("", "", "  hand", cell(hand), "", "", "", "")
    stdout().print(table)


def _print_game(game: service_pb2.Game) -> None:
    from chaodipi.auditor import describe_position

    record, report = game.record, game.report
    computed = report.computed
    game_id = game.name.partition("/")[2]
    stdout().print(
        f"[bold]game {user(game_id)}[/bold]  record {user(record.record_id)}  "
        f"ruleset {user(report.ruleset)}  played {user(record.played_at or '?')}"
    )
    for seat, player in enumerate(record.players):
        side = ""
        if computed.HasField("dealer"):
            side = "dealer side" if seat % 2 == computed.dealer % 2 else "defenders"
        name = player.display_name or player.id
        stdout().print(f"  seat {seat}: {user(name)} ({user(player.id)}) {side}")
    stdout().print(
        f"{describe_trump(computed.trump)}; {count(len(computed.tricks), 'trick')}; "
        f"kitty {computed.kitty_points} points x{computed.kitty_multiplier} = "
        f"{computed.kitty_bonus}; defenders {computed.defenders_points} points"
    )
    if computed.HasField("level_result"):
        stdout().print(f"result: {describe_level_result(computed.level_result)}")
    stdout().print(
        "findings: "
        + ", ".join(
            (
                count(report.breaches, "breach"),
                count(report.scoring_errors, "scoring error"),
                count(report.warnings, "warning"),
            )
        )
    )
    for finding in report.findings:
        where = describe_position(finding.position) or PHASES.get(finding.position.phase, "")
        stdout().print(f"  [red]{user(finding.code)}[/red] ({where}): {user(finding.message)}")
    for note in report.notes:
        stdout().print(f"  note: {user(note)}")


def replay_command(
    game_id: Annotated[
        str, typer.Argument(metavar="GAME", help="The stored game's id (or its record id).")
    ],
    server: ServerOpt = None,
    api_key: KeyOpt = None,
    tls_ca: TlsCaOpt = None,
    tls_cert: TlsCertOpt = None,
    tls_key: TlsKeyOpt = None,
    database_url: DatabaseOpt = None,
    tenant: TenantOpt = DEFAULT_TENANT,
) -> None:
    """Print a readable summary of a stored game and its findings."""
    if server:
        from chaodipi.client import ServiceError

        with _client(server, api_key, tls_ca, tls_cert, tls_key) as client:
            try:
                game = client.get_game(game_id)
            except ServiceError as failure:
                raise _fail(failure, server) from None
    else:
        model = local_read_model(database_url, tenant)
        stored = None if model is None else model.game(game_id)
        if stored is None:
            error(f"no game {user(game_id)} for tenant {user(tenant)}")
            raise typer.Exit(1)
        game = stored.message()
    _print_game(game)


def stats_command(
    player: Annotated[
        list[str] | None,
        typer.Option("--player", metavar="ID", help="Player id (repeat for several)."),
    ] = None,
    ruleset: Annotated[
        str, typer.Option("--ruleset", metavar="RULESET", help="Only games of this ruleset.")
    ] = "",
    server: ServerOpt = None,
    api_key: KeyOpt = None,
    tls_ca: TlsCaOpt = None,
    tls_cert: TlsCertOpt = None,
    tls_key: TlsKeyOpt = None,
    database_url: DatabaseOpt = None,
    tenant: TenantOpt = DEFAULT_TENANT,
) -> None:
    """Print player statistics."""
    from rich.table import Table

    from chaodipi.v1.service_pb2 import PlayerStats

    players = player or []
    rows: list[service_pb2.PlayerStats | PlayerStatsRow]
    if server:
        from chaodipi.client import ServiceError

        with _client(server, api_key, tls_ca, tls_cert, tls_key) as client:
            try:
                rows = list(client.players(players, ruleset=ruleset))
            except ServiceError as failure:
                raise _fail(failure, server) from None
    else:
        from chaodipi.service.readmodel import StatsFilter

        model = local_read_model(database_url, tenant)
        filters = StatsFilter(tuple(players), ruleset or None)
        rows = [] if model is None else list(model.player_stats(filters))
    if not rows:
        what = f" of ruleset {ruleset}" if ruleset else ""
        who = f" with {', '.join(players)}" if players else ""
        stdout().print(user(f"no stored hands{what}{who}"))
        return
    table = Table(
        "player", "name", "hands", "dealer", "defending", "tricks", "points",
        "throws ok/failed", "抠底 (pts)", "levels +/-", "win rate", "breaches",
    )  # fmt: skip
    for r in rows:
        hands = r.hands_played if isinstance(r, PlayerStats) else r.games
        table.add_row(
            cell(r.player_id),
            cell(r.display_name),
            str(hands),
            str(r.hands_as_dealer_side),
            str(r.hands_as_defenders),
            str(r.tricks_won),
            str(r.points_taken),
            f"{r.throws_stood}/{r.throws_failed}",
            f"{r.kou_di_count} ({r.kou_di_points})",
            f"+{r.levels_gained}/-{r.levels_conceded}",
            f"{r.win_rate:.0%}",
            cell(", ".join(f"{c}:{n}" for c, n in sorted(dict(r.breaches_by_code).items()))),
        )
    stdout().print(table)


def sample_command(
    out: Annotated[
        Path, typer.Argument(metavar="FILE", help="File to write: .pb (binary) or .jsonl.")
    ],
    hands: Annotated[
        int, typer.Option("--hands", metavar="N", help="Single hands to generate.")
    ] = 20,
    matches: Annotated[
        int, typer.Option("--matches", metavar="N", help="Matches to generate.")
    ] = 2,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="First seed.")] = 1,
) -> None:
    """Write generated legal sample games (hands of every ruleset, and matches)."""
    from chaodipi import importers
    from chaodipi.auditor.generate import generate_hand, generate_match
    from chaodipi.engine.presets import BUILTIN
    from chaodipi.v1 import records_pb2

    records = [
        records_pb2.RecordFile(game=generate_hand(BUILTIN[i % 4], seed + i)) for i in range(hands)
    ]
    records += [
        records_pb2.RecordFile(match=generate_match(BUILTIN[i % 4], seed + i))
        for i in range(matches)
    ]
    importers.write(records, out, "pb" if out.suffix == ".pb" else "json")
    stdout().print(f"wrote {count(hands, 'hand')} and {count(matches, 'match')} to {user(out)}")


keys_app = typer.Typer(cls=Group, help="Create, list and revoke API keys.", no_args_is_help=True)


@keys_app.command("create", cls=Command)
def keys_create(
    tenant: Annotated[
        str, typer.Option("--tenant", metavar="NAME", help="Tenant the key acts for.")
    ],
    database_url: DatabaseOpt = None,
) -> None:
    """Create an API key for a tenant; the key is shown once."""
    from chaodipi.service import keys

    key_id, key = keys.create_key(_local_sessions(database_url), tenant)
    stderr().print(
        f"key id {user(key_id)} for tenant {user(tenant)} "
        "(restart a keyless server to require keys):"
    )
    print(key)


@keys_app.command("revoke", cls=Command)
def keys_revoke(
    key_id: Annotated[str, typer.Argument(metavar="KEY_ID", help="Id of the key.")],
    database_url: DatabaseOpt = None,
) -> None:
    """Revoke an API key by id."""
    from chaodipi.service import keys

    if not keys.revoke_key(_local_sessions(database_url), key_id):
        error(f"no active key {user(key_id)}")
        raise typer.Exit(1)
    stdout().print(f"revoked {user(key_id)}")


@keys_app.command("list", cls=Command)
def keys_list(database_url: DatabaseOpt = None) -> None:
    """List API keys (ids, tenants, state; never the secrets)."""
    from rich.table import Table

    from chaodipi.service import keys

    found = keys.list_keys(_local_sessions(database_url))
    if not found:
        # Without keys the server serves the default tenant on localhost only (serve says so).
        stdout().print("no API keys: create one with chaodipi keys create --tenant NAME")
        return
    table = Table("key id", "tenant", "created", "revoked")
    for info in found:
        table.add_row(
            cell(info.key_id),
            cell(info.tenant),
            f"{info.created_at:%Y-%m-%d %H:%M}",
            f"{info.revoked_at:%Y-%m-%d %H:%M}" if info.revoked_at else "",
        )
    stdout().print(table)


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``upload``, ``replay``, ``stats``, ``sample`` and ``keys …`` to ``app``."""
    app.command("serve", cls=Command)(serve_command)
    app.command("upload", cls=Command)(upload_command)
    app.command("replay", cls=Command)(replay_command)
    app.command("stats", cls=Command)(stats_command)
    app.command("sample", cls=Command)(sample_command)
    app.add_typer(keys_app, name="keys")
