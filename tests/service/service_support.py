"""Test support for the service: a server on a background event loop or as a process group of
its own, and direct access to its database."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from chaodipi.service.db import SessionFactory, make_engine, session_factory
from chaodipi.service.keys import create_key
from chaodipi.service.server import RunningServer, ServerConfig, start

PG_URL = os.environ.get("CHAODIPI_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
MAX_MESSAGE = 256 * 1024


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


class ServerProcess:
    """``python -m chaodipi.cli serve`` as a process group of its own (the server and its audit
    workers), keyless on 127.0.0.1, logging to ``log``."""

    def __init__(self, database_url: str, home: Path, *, audit_workers: int = 2) -> None:
        self.log = home / f"server-{secrets.token_hex(3)}.log"
        env = {k: v for k, v in os.environ.items() if k != "CHAODIPI_DATABASE_URL"}
        env.update(CHAODIPI_HOME=str(home))
        with self.log.open("wb") as log:
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
                ],
                env=env,
                cwd=home,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.pgid = self.proc.pid  # start_new_session: the server leads its own group
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log.read_text())
            if found:
                self.target = f"127.0.0.1:{found.group(1)}"
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the server did not start:\n{self.log.read_text()}")

    def kill(self) -> None:
        """SIGKILL the whole group (server and workers), as a crash or an OOM kill would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pgid, signal.SIGKILL)
        self.proc.wait(30)

    def terminate(self) -> int:
        """SIGTERM the server (graceful shutdown); its exit code."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(60)

    def survivors(self, wait: float = 10) -> list[int]:
        """Processes of the group still alive after up to ``wait`` seconds."""
        deadline = time.monotonic() + wait
        while (left := group_members(self.pgid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        return left
