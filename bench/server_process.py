"""``python -m service serve`` as a subprocess on a free port, for the service benchmarks
(``bench/ingest.py``, ``bench/load.py``)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import grpc

from chaodipi.client import AuditClient


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    database_url: str | None, workers: int, home: str, *, quiet: bool = False
) -> tuple[subprocess.Popen[bytes], str]:
    """A server with ``workers`` audit processes on ``database_url`` (default: SQLite in
    ``home``), once it answers health checks: the process and its ``host:port``."""
    port = free_port()
    env = dict(os.environ, CHAODIPI_HOME=home)
    command = [
        sys.executable,
        "-m",
        "chaodipi.cli",
        "serve",
        "--port",
        str(port),
        "--audit-workers",
        str(workers),
    ]
    if database_url:
        command += ["--database-url", database_url]
    proc = subprocess.Popen(
        command, env=env, cwd=home, stderr=subprocess.DEVNULL if quiet else None
    )
    target = f"127.0.0.1:{port}"
    with AuditClient(target, timeout=1) as client:
        for _ in range(300):
            try:
                client.health()
                return proc, target
            except grpc.RpcError:
                if proc.poll() is not None:
                    break  # the server exited
                time.sleep(0.1)
    proc.kill()
    proc.wait()
    raise SystemExit("the server did not start")
