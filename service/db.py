"""Database engines: SQLite by default, PostgreSQL (psycopg 3) when the URL says so."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, sessionmaker

from chaodipi.service.home import ENV_HOME, ENV_URL, data_dir, default_url

__all__ = [
    "ENV_HOME",
    "ENV_URL",
    "SessionFactory",
    "data_dir",
    "default_url",
    "in_memory",
    "make_engine",
    "session_factory",
]

SessionFactory = sessionmaker[Session]


def _sqlite_pragmas(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    # Per connection: SQLite forgets these on every new connection.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _sqlite_path(url: str) -> str | None:
    """The file of a SQLite URL; None for an in-memory database."""
    path = url.split("///", 1)[1] if "///" in url else ""
    return path if path and path != ":memory:" else None


def in_memory(url: str) -> bool:
    """Whether ``url`` is an in-memory SQLite database (no other process can open it)."""
    return url.startswith("sqlite") and _sqlite_path(url) is None


def make_engine(url: str | None = None) -> Engine:
    """An engine for ``url`` (default: ``default_url()``), creating the SQLite folder if needed."""
    url = url or default_url()
    if url.startswith("sqlite"):
        path = _sqlite_path(url)
        if path is not None:
            folder = Path(path).parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # as a bad URL is told: the URL names a place not usable
                raise ArgumentError(f"{folder} cannot be made: {exc.strerror or exc}") from None
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        # The plain scheme would pick psycopg2, which is not installed: psycopg 3 it is.
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    return create_engine(url, pool_pre_ping=True)


def session_factory(engine: Engine) -> SessionFactory:
    """Sessions that keep loaded values after commit (results outlive the session)."""
    return sessionmaker(engine, expire_on_commit=False)
