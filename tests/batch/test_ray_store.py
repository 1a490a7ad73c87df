"""Ray into the store: ``audit-batch --backend ray --store DATABASE_URL`` stores the corpus as
the service stores uploads, on SQLite and PostgreSQL; a re-run stores nothing twice, and the
stored games are those the process pool stores."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
import typer
from sqlalchemy import func, select
from typer.testing import CliRunner

from chaodipi.batch import DatabaseSink, LocalBackend, run_batch
from chaodipi.batch.ray_backend import _check_reachable
from chaodipi.cli.batch import register
from chaodipi.service.db import make_engine
from chaodipi.service.models import Finding, Game, Match
from tests.service.service_support import new_database

pytestmark = pytest.mark.slow

GAMES = 16 + 3  # the corpus's hands and its match's three hands


@pytest.fixture
def ray(ray_local: ModuleType) -> ModuleType:
    """The shared local Ray instance (tests/batch/conftest.py)."""
    return ray_local


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Iterator[str]:
    """An empty database of the test's own."""
    with new_database(request.param, tmp_path_factory, worker_id) as url:
        yield url


def _stored(url: str) -> tuple[set[tuple[str, str, bytes]], int]:
    """(record id, content hash, report) of every stored game, and the number of findings."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            games = conn.execute(select(Game.record_id, Game.content_hash, Game.report)).all()
            findings = conn.execute(select(func.count()).select_from(Finding)).scalar_one()
            assert conn.execute(select(func.count()).select_from(Match)).scalar_one() == 1
    finally:
        engine.dispose()
    assert len(games) == GAMES
    return {tuple(g) for g in games}, findings


def test_ray_stores_into_the_service_database_once(
    ray: ModuleType, corpus: Path, store_url: str, tmp_path: Path
) -> None:
    app = typer.Typer()
    app.callback()(lambda: None)
    register(app)

    def audit_batch(ledger: str) -> str:
        result = CliRunner().invoke(
            app,
            [
                "audit-batch",
                str(corpus),
                "--backend",
                "ray",
                "--store",
                store_url,
                "--chunk-size",
                "3",
                "--ledger",
                str(tmp_path / ledger),
            ],
        )
        assert result.exit_code == 0, result.output
        return " ".join(result.stdout.split())

    assert "(17 stored, 0 already there)" in audit_batch("first.jsonl")
    ray_games, findings = _stored(store_url)
    assert findings > 0
    # Again with a new ledger (no --resume): every record is audited again and found stored.
    assert "(0 stored, 17 already there)" in audit_batch("second.jsonl")
    assert _stored(store_url) == (ray_games, findings)

    pool_url = f"sqlite:///{tmp_path / 'pool.db'}"
    backend = LocalBackend(2)
    try:
        run_batch([str(corpus)], DatabaseSink(pool_url, ledger=tmp_path / "pool.jsonl"), backend)
    finally:
        backend.close()
    assert _stored(pool_url) == (ray_games, findings)


def test_store_needs_a_database_url(corpus: Path, tmp_path: Path) -> None:
    app = typer.Typer()
    app.callback()(lambda: None)
    register(app)
    runner = CliRunner()
    folder = runner.invoke(app, ["audit-batch", str(corpus), "--store", str(tmp_path)])
    assert folder.exit_code == 2 and "expected a database URL" in folder.output
    both = runner.invoke(
        app, ["audit-batch", str(corpus), "--store", "sqlite:///x.db", "--out", str(tmp_path)]
    )
    assert both.exit_code == 2 and "give one destination" in both.output


def test_a_ray_address_nothing_listens_on_is_refused_at_once() -> None:
    # ray.init would retry such an address for minutes, logging as it goes.
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(ConnectionError, match=f"cannot reach a Ray cluster at {address} "):
            _check_reachable(address)
    _check_reachable("auto")  # not a host and port: left to Ray
