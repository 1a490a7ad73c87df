"""Fixtures: a real server on a free port, on SQLite and on PostgreSQL, called through channels.

PostgreSQL tests use the server at 127.0.0.1:5432 (or ``CHAODIPI_TEST_PG_URL``) in a schema of
their own per xdist worker; they skip only when that server is absent and ``CI`` is unset.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from chaodipi.client import AuditClient
from chaodipi.service.server import ServerConfig
from tests.service.service_support import MAX_MESSAGE, PG_URL, Service, running_service


def _postgres_available() -> str | None:
    try:
        with psycopg.connect(PG_URL.replace("+psycopg", ""), connect_timeout=3):
            return None
    except psycopg.OperationalError as exc:
        return str(exc)


@contextmanager
def _new_database(
    kind: str, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Iterator[str]:
    """A fresh empty database: a SQLite file, or a PostgreSQL schema dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.db'}"
        return
    problem = _postgres_available()
    if problem is not None:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI: {problem}")
        pytest.skip(f"PostgreSQL not available: {problem}")
    schema = f"cdp_test_{worker_id}_{os.getpid()}_{secrets.token_hex(3)}"
    plain = PG_URL.replace("+psycopg", "")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


_DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(scope="session", params=_DATABASES)
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Iterator[str]:
    """A fresh empty database: a SQLite file, or a PostgreSQL schema of this worker's own."""
    with _new_database(request.param, tmp_path_factory, worker_id) as url:
        yield url


@pytest.fixture(params=_DATABASES)
def own_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Iterator[str]:
    """Like ``database_url``, but a database of this test's own (for tests that count rows
    across tenants, or start servers that must not see other tests' API keys)."""
    with _new_database(request.param, tmp_path_factory, worker_id) as url:
        yield url


@pytest.fixture
def own_postgres_url(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Iterator[str]:
    """A PostgreSQL schema of this test's own (for what only PostgreSQL does: replicas)."""
    with _new_database("postgres", tmp_path_factory, worker_id) as url:
        yield url


@pytest.fixture(scope="session")
def service(database_url: str) -> Iterator[Service]:
    """A server requiring API keys, on ``database_url``, auditing in a thread."""
    config = ServerConfig(
        port=0,
        database_url=database_url,
        require_keys=True,
        audit_workers=0,
        max_message_bytes=MAX_MESSAGE,
        batch_size=8,
        grace_seconds=1,
    )
    with running_service(config) as service:
        yield service


@pytest.fixture
def client(service: Service) -> Iterator[AuditClient]:
    """A client of a fresh tenant."""
    with AuditClient(service.target, api_key=service.new_key(), timeout=60) as c:
        yield c


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``$CHAODIPI_HOME`` (and working directory) for a keyless embedded setup."""
    monkeypatch.setenv("CHAODIPI_HOME", str(tmp_path))
    monkeypatch.delenv("CHAODIPI_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path
