"""Fixtures: a real server on a free port, on SQLite and on PostgreSQL, called through channels.

PostgreSQL tests use the server at 127.0.0.1:5432 (or ``CHAODIPI_TEST_PG_URL``) in a schema of
their own per xdist worker; they skip only when that server is absent and ``CI`` is unset.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chaodipi.client import AuditClient
from chaodipi.service.server import ServerConfig
from tests.service.service_support import MAX_MESSAGE, Service, new_database, running_service

_DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(scope="session", params=_DATABASES)
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Iterator[str]:
    """A fresh empty database: a SQLite file, or a PostgreSQL schema of this worker's own."""
    with new_database(request.param, tmp_path_factory, worker_id) as url:
        yield url


@pytest.fixture(params=_DATABASES)
def own_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Iterator[str]:
    """Like ``database_url``, but a database of this test's own (for tests that count rows
    across tenants, or start servers that must not see other tests' API keys)."""
    with new_database(request.param, tmp_path_factory, worker_id) as url:
        yield url


@pytest.fixture
def own_postgres_url(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Iterator[str]:
    """A PostgreSQL schema of this test's own (for what only PostgreSQL does: replicas)."""
    with new_database("postgres", tmp_path_factory, worker_id) as url:
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
