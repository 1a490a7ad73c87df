"""Test support for the service: a server on a background event loop, and its handle."""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
from dataclasses import dataclass

from sqlalchemy import Engine

from service.db import SessionFactory
from service.keys import create_key
from service.server import RunningServer, ServerConfig, start

PG_URL = os.environ.get("CHAODIPI_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
MAX_MESSAGE = 256 * 1024


class ServerThread:
    """A server running on its own event loop in a background thread."""

    def __init__(self, config: ServerConfig) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: RunningServer = asyncio.run_coroutine_threadsafe(
            start(config), self.loop).result(60)
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
