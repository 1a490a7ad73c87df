"""``chaodipi up``, the README's first command, as a new user runs it: on an empty data folder it
migrates the database, loads the sample games, serves gRPC and the dashboard, and a signal stops
both with exit code 0. Its start-up lines are the user's, not the libraries' plumbing.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2

from chaodipi.client import AuditClient
from tests.dashboard.dashboard_support import free_port, healthy

START_SECONDS = 120
"""How long ``up`` may take to say it is serving: a guard against a hang, not a speed bar."""


class Up:
    """A running ``chaodipi up``: its process, ports, and the lines it printed so far."""

    def __init__(self, home: Path) -> None:
        self.port, self.dashboard_port = free_port(), free_port()
        env = dict(os.environ, CHAODIPI_HOME=str(home), COLUMNS="200")
        env.pop("CHAODIPI_DATABASE_URL", None)
        command = ["up", "--port", str(self.port), "--dashboard-port", str(self.dashboard_port)]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "chaodipi.cli", *command],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def wait_for(self, text: str) -> None:
        """Read printed lines until one holds ``text`` (or one read before did: the service's
        lines and the dashboard's come in either order); fails if the process ends first."""
        if any(text in line for line in self.lines):
            return
        while True:
            line = self._lines.get(timeout=START_SECONDS)
            assert line is not None, "up exited early:\n" + "\n".join(self.lines)
            self.lines.append(line)
            if text in line:
                return

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(START_SECONDS)
        while (line := self._lines.get(timeout=START_SECONDS)) is not None:
            self.lines.append(line)
        return code


@pytest.fixture
def up(tmp_path: Path) -> Iterator[Up]:
    running = Up(tmp_path / "home")
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.process.kill()
            running.process.wait()


def test_up_on_an_empty_folder_serves_the_samples_and_stops_on_a_signal(up: Up) -> None:
    up.wait_for("Ctrl-C stops both.")
    with AuditClient(f"127.0.0.1:{up.port}", timeout=30) as client:
        assert client.health() == health_pb2.HealthCheckResponse.SERVING
        assert client.list_games().games, "the sample games are stored"
    # The dashboard, a process of its own printing to the same output, says when it serves.
    up.wait_for("You can now view your Streamlit app")
    assert healthy(f"http://127.0.0.1:{up.dashboard_port}"), "\n".join(up.lines)
    assert up.stop() == 0, "\n".join(up.lines)
    printed = "\n".join(up.lines)
    assert "the database was empty: loaded" in printed
    assert "alembic.runtime.plugins" not in printed  # plumbing, not what a user needs to read
    assert "Traceback" not in printed
