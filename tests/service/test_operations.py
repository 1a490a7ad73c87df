"""Running the service: migrations, the CLI, keyless mode, graceful shutdown."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest
import typer
from alembic import command
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col
from typer.testing import CliRunner

from chaodipi.auditor.generate import generate_hand
from chaodipi.cli.service import register
from chaodipi.client import AuditClient
from chaodipi.service.audited import content_hash
from chaodipi.service.db import make_engine, session_factory
from chaodipi.service.migrate import alembic_config, check, upgrade
from chaodipi.service.models import Game
from chaodipi.service.server import ServerConfig
from chaodipi.service.store import ensure_tenant
from chaodipi.v1 import service_pb2
from tests.service.service_support import ServerThread


def test_migrations_match_the_models(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        upgrade(engine)
        check(engine)  # raises when a model changed without a migration
    finally:
        engine.dispose()


def test_cli_upload_replay_stats_and_keys(home: Path) -> None:
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    created = runner.invoke(app, ["keys", "create", "--tenant", "club"])
    assert created.exit_code == 0, created.output
    key = created.output.strip().splitlines()[-1]
    key_id = key.split("_")[1]
    sample = runner.invoke(app, ["sample", str(home / "s.pb"), "--hands", "3", "--matches", "1"])
    assert sample.exit_code == 0, sample.output
    server = ServerThread(ServerConfig(port=0, audit_workers=1, grace_seconds=1))
    try:
        args = ["--server", server.target, "--api-key", key]
        uploaded = runner.invoke(app, ["upload", *args, str(home / "s.pb")])
        assert uploaded.exit_code == 0, uploaded.output
        assert "4 records: 4 stored, 0 already stored, 0 rejected" in uploaded.output
        with AuditClient(server.target, api_key=key) as client:
            game = client.list_games(page_size=1).games[0]
        game_id = game.name.partition("/")[2]
        for name in (game_id, game.record_id):  # a game answers to its record id too
            replay = runner.invoke(app, ["replay", name, *args])
            assert replay.exit_code == 0, replay.output
            assert f"game {game_id}" in replay.output
            local = runner.invoke(app, ["replay", name, "--tenant", "club"])
            assert local.exit_code == 0 and f"game {game_id}" in local.output
        stats = runner.invoke(
            app, ["stats", "--player", game.player_ids[0], *args], env={"COLUMNS": "250"}
        )
        assert stats.exit_code == 0 and game.player_ids[0] in stats.output
        assert runner.invoke(app, ["keys", "revoke", key_id]).exit_code == 0
        again = runner.invoke(app, ["upload", *args, str(home / "s.pb")])
        assert again.exit_code == 1 and "answered unauthenticated" in again.output
        assert key_id in runner.invoke(app, ["keys", "list"]).output
    finally:
        server.stop()


def test_without_keys_binds_localhost_only(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "chaodipi.service")
    server = ServerThread(ServerConfig(port=0, host="0.0.0.0", audit_workers=0))
    try:
        assert server.running.host == "127.0.0.1"
        assert "binding to 127.0.0.1 only" in caplog.text
        with AuditClient(server.target) as client:
            (summary,) = client.upload([generate_hand("classic", 60)])
            assert summary.status == service_pb2.RecordSummary.STATUS_STORED
    finally:
        server.stop()


@pytest.fixture
def server_process(home: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``python -m chaodipi.cli serve`` on a free port, as a real process."""
    env = dict(os.environ)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chaodipi.cli",
            "serve",
            "--port",
            "0",
            "--audit-workers",
            "0",
            "--grace",
            "30",
        ],
        env=env,
        cwd=home,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if found:
            break
    else:
        pytest.fail(f"server exited with {proc.wait()} before listening")
    try:
        yield proc, f"127.0.0.1:{found.group(1)}"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_sigterm_finishes_in_flight_calls(
    server_process: tuple[subprocess.Popen[str], str],
) -> None:
    proc, target = server_process
    sent, release = threading.Event(), threading.Event()
    hands = [generate_hand("classic", s) for s in (70, 71)]

    def requests() -> Iterator[service_pb2.UploadRecordsRequest]:
        yield service_pb2.UploadRecordsRequest(game=hands[0])
        sent.set()  # grpc asks for the next message once the first one is on the wire
        release.wait(30)  # the call stays in flight until the server is told to stop
        yield service_pb2.UploadRecordsRequest(game=hands[1])

    with grpc.insecure_channel(target) as channel:
        # types-grpcio-health-checking declares HealthStub without its methods (set in __init__).
        watch = health_pb2_grpc.HealthStub(channel).Watch(  # type: ignore[attr-defined]
            health_pb2.HealthCheckRequest()
        )
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        with AuditClient(target, channel=channel) as client:
            upload = client.stub.UploadRecords(requests(), timeout=60)
            # The call is in flight before the server is told to stop: the server has taken it
            # up (its headers came). A first message on the wire is not enough: a call the
            # server has not taken up when it stops is cancelled.
            upload.initial_metadata()
            assert sent.wait(30)
            proc.send_signal(signal.SIGTERM)
            assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
            watch.cancel()
            release.set()
            statuses = [s.status for s in upload]
    assert statuses == [service_pb2.RecordSummary.STATUS_STORED] * 2
    assert proc.wait(30) == 0


def test_migration_0003_keeps_games_that_share_a_record_id(own_database_url: str) -> None:
    # Before 0003 a changed record under a stored record id became a second game: both stay,
    # the later one under a record id of its own, and the id is unique from then on.
    engine = make_engine(own_database_url)
    try:
        config = alembic_config(engine)
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0002")
        sessions = session_factory(engine)
        tenant = ensure_tenant(sessions, "old")
        first, second = generate_hand("classic", 80), generate_hand("classic", 81)
        second.record_id = first.record_id
        with sessions() as session, session.begin():
            for number, record in enumerate((first, second)):
                session.execute(
                    insert(Game),
                    [
                        {
                            "id": f"{number:016x}",
                            "tenant_id": tenant,
                            "content_hash": content_hash(record),
                            "record_id": record.record_id,
                            "ruleset": "classic",
                            "stored_at": datetime(2026, 11, 1 + number, tzinfo=UTC),
                            "record": record.SerializeToString(),
                            "report": b"",
                            "breaches": 0,
                            "scoring_errors": 0,
                            "warnings": 0,
                        }
                    ],
                )
        upgrade(engine)
        check(engine)
        with engine.connect() as connection:
            ids = dict(connection.execute(select(Game.id, Game.record_id)).all())
        assert ids == {
            f"{0:016x}": first.record_id,
            f"{1:016x}": f"{first.record_id}~{1:016x}",
        }
        with pytest.raises(IntegrityError), sessions() as session, session.begin():
            session.execute(
                update(Game).where(col(Game.id) == f"{1:016x}").values(record_id=first.record_id)
            )
    finally:
        engine.dispose()
