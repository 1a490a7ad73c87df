"""Test support for the service: a server on a background event loop or as a process group of
its own, and direct access to its database.

Nothing here polls: a server thread is waited for through its event loop (``settle`` returns
once no call is auditing or storing), a server process through its log, read line by line as
it writes it, and exited processes through their pidfds (Linux).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine

from chaodipi.service.db import SessionFactory, make_engine, session_factory
from chaodipi.service.keys import create_key
from chaodipi.service.server import RunningServer, ServerConfig, start

PG_URL = os.environ.get("CHAODIPI_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
MAX_MESSAGE = 256 * 1024


def _postgres_available() -> str | None:
    try:
        with psycopg.connect(PG_URL.replace("+psycopg", ""), connect_timeout=3):
            return None
    except psycopg.OperationalError as exc:
        return str(exc)


@contextlib.contextmanager
def new_database(
    kind: str, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Iterator[str]:
    """A fresh empty database: a SQLite file, or a PostgreSQL schema dropped afterwards (the
    test skips when PostgreSQL is absent, and fails in CI)."""
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


class ServerThread:
    """A server running on its own event loop in a background thread."""

    def __init__(self, config: ServerConfig) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: RunningServer = asyncio.run_coroutine_threadsafe(
            start(config), self.loop
        ).result(60)
        self.target = f"127.0.0.1:{self.running.port}"

    def settle(self, timeout: float = 60) -> None:
        """Wait until no call of the server is auditing or storing anything (a call that
        ended for the client may still be writing its last batch)."""
        asyncio.run_coroutine_threadsafe(self.running.idle(), self.loop).result(timeout)

    def stop(self) -> None:
        """Stop the server and its loop."""
        asyncio.run_coroutine_threadsafe(self.running.stop(1), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@dataclass
class Service:
    """The running test server and direct access to its database."""

    server: ServerThread
    engine: Engine
    sessions: SessionFactory

    @property
    def target(self) -> str:
        """``host:port`` of the server."""
        return self.server.target

    def new_key(self) -> str:
        """An API key for a tenant of its own (tests share the server, not the data)."""
        return create_key(self.sessions, f"tenant-{secrets.token_hex(4)}")[1]

    def settle(self) -> None:
        """Wait until no call of the server is auditing or storing anything."""
        self.server.settle()


@contextlib.contextmanager
def running_service(config: ServerConfig) -> Iterator[Service]:
    """A server for ``config`` on a background loop, with direct access to its database."""
    assert config.database_url is not None
    server = ServerThread(config)
    engine = make_engine(config.database_url)
    try:
        yield Service(server, engine, session_factory(engine))
    finally:
        server.stop()
        engine.dispose()


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, read from ``/proc`` (Linux)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        state, _ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        if int(pgrp) == pgid and state != "Z":
            members.append(int(entry.name))
    return members


def wait_exited(pids: list[int], timeout: float) -> list[int]:
    """Wait (on each process's pidfd, no polling) until the processes have exited, for at most
    ``timeout`` seconds in all; those still running then."""
    deadline = time.monotonic() + timeout
    running = []
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue  # gone already
        try:
            # A pidfd reads ready once its process has exited.
            ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                running.append(pid)
        finally:
            os.close(fd)
    return running


class ServerProcess:
    """``python -m chaodipi.cli serve`` as a process group of its own (the server and its audit
    workers) on 127.0.0.1, keyless unless ``options`` say otherwise, logging to ``log``."""

    def __init__(
        self, database_url: str, home: Path, *, audit_workers: int = 2, options: Sequence[str] = ()
    ) -> None:
        self.log = home / f"server-{secrets.token_hex(3)}.log"
        env = {k: v for k, v in os.environ.items() if k != "CHAODIPI_DATABASE_URL"}
        env.update(CHAODIPI_HOME=str(home))
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chaodipi.cli",
                "serve",
                "--port",
                "0",
                "--database-url",
                database_url,
                "--audit-workers",
                str(audit_workers),
                "--grace",
                "5",
                *options,
            ],
            env=env,
            cwd=home,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pgid = self.proc.pid  # start_new_session: the server leads its own group
        listening = threading.Event()
        found: list[str] = []

        def copy_log() -> None:  # the log as the server writes it, line by line
            assert self.proc.stdout is not None
            with self.log.open("wb") as log:
                for line in self.proc.stdout:
                    log.write(line)
                    log.flush()
                    address = re.search(rb"listening on 127\.0\.0\.1:(\d+)", line)
                    if address and not found:
                        found.append(address.group(1).decode())
                        listening.set()
            listening.set()  # the server exited: stop waiting

        self.copier = threading.Thread(target=copy_log, daemon=True)
        self.copier.start()
        if not listening.wait(60) or not found:
            self.kill()
            raise RuntimeError(f"the server did not start:\n{self.log.read_text()}")
        self.target = f"127.0.0.1:{found[0]}"

    def kill(self) -> None:
        """SIGKILL the whole group (server and workers), as a crash or an OOM kill would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pgid, signal.SIGKILL)
        self.proc.wait(30)
        self.copier.join(30)

    def terminate(self) -> int:
        """SIGTERM the server (graceful shutdown); its exit code."""
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(60)
        self.copier.join(30)
        return code

    def survivors(self, timeout: float = 30) -> list[int]:
        """Processes of the group still running after waiting up to ``timeout`` seconds for
        them to exit."""
        return wait_exited(group_members(self.pgid), timeout)
