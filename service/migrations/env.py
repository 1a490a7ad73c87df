"""Alembic environment: the service's SQLModel tables, on the configured database.

``service.migrate`` passes an open connection in ``config.attributes["connection"]``; the
``alembic`` command line uses ``CHAODIPI_DATABASE_URL`` (or the embedded SQLite default).
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection
from sqlmodel import SQLModel

import chaodipi.service.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from chaodipi.service.db import make_engine
from chaodipi.service.migrate import lock_migrations

config = context.config
target_metadata = SQLModel.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things in place: batch mode copies the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Migrate through the given connection, or a new engine for the configured URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or None)
    with engine.begin() as conn:
        lock_migrations(conn)  # one migrator at a time, as on server start
        _run(conn)
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported: run them against a database")
run_migrations_online()
