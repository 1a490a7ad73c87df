"""``chaodipi dashboard`` and ``chaodipi up``, added to the Typer app by ``register``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from chaodipi import dashboard
from chaodipi.cli.console import Command, error, stderr, user
from chaodipi.cli.options import DatabaseOpt
from chaodipi.service.home import ENV_URL, data_dir, default_url

APP = Path(dashboard.__file__).resolve().parent / "app.py"
STOP_SECONDS = 10.0
"""How long the dashboard gets to exit after SIGTERM before it is killed."""

PortOpt = Annotated[
    int, typer.Option("--port", metavar="PORT", min=1, max=65535, help="Port of the dashboard.")
]


def streamlit_command(port: int, address: str = "127.0.0.1") -> list[str]:
    """The command that serves the dashboard headless on ``address:port``."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.headless=true",
        f"--server.port={port}",
        f"--server.address={address}",
        "--browser.gatherUsageStats=false",
        "--server.fileWatcherType=none",
        "--theme.base=light",
        # No "Deploy" button nor developer menu: the toolbar shows only the viewer's options.
        "--client.toolbarMode=viewer",
    ]


def streamlit_env(database_url: str) -> dict[str, str]:
    """The environment of the dashboard process: this one's, with the database URL."""
    return {**os.environ, ENV_URL: database_url}


def _dashboard_port_free(port: int, option: str) -> None:
    """Exit with a clear error when the dashboard's port is taken, before anything starts
    (Streamlit would only log "Port … is not available" and exit)."""
    with socket.socket() as probe:
        # As the dashboard's server binds: a port left in TIME_WAIT is free, a listener not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            error(
                f"cannot serve the dashboard on 127.0.0.1:{port} ({user(exc.strerror or exc)}): "
                f"is another dashboard running? stop it or choose another port with {option}"
            )
            raise typer.Exit(1) from None


def dashboard_command(port: PortOpt = 8501, database_url: DatabaseOpt = None) -> None:
    """Serve the dashboard (Streamlit) until Ctrl-C."""
    _dashboard_port_free(port, "--port")
    url = database_url or default_url()
    stderr().print(f"data folder: {user(data_dir())}")
    stderr().print(f"dashboard: http://127.0.0.1:{port}  (database {user(_shown(url))})")
    with subprocess.Popen(streamlit_command(port), env=streamlit_env(url)) as process:
        try:
            code = process.wait()
        except KeyboardInterrupt:
            code = _stop(process)
    raise typer.Exit(code)


def _stop(process: subprocess.Popen[bytes]) -> int:
    """Terminate the dashboard process, killing it if it does not exit in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
    return 0 if process.wait() in (0, -signal.SIGTERM) else 1


def prepare(database_url: str) -> int:
    """Migrate the database and load sample games if it holds none; returns how many were
    stored (0 when the database already had games)."""
    from chaodipi.service.db import make_engine, session_factory
    from chaodipi.service.home import DEFAULT_TENANT
    from chaodipi.service.migrate import upgrade
    from chaodipi.service.readmodel import ReadModel
    from chaodipi.service.samples import load_samples
    from chaodipi.service.store import ensure_tenant

    engine = make_engine(database_url)
    try:
        upgrade(engine)
        sessions = session_factory(engine)
        return load_samples(ReadModel(sessions, ensure_tenant(sessions, DEFAULT_TENANT))).stored
    finally:
        engine.dispose()


async def run_both(port: int, dashboard_port: int, database_url: str) -> int:
    """Run the gRPC service in this process and the dashboard beside it until a signal (or until
    the dashboard exits); then stop both."""
    from chaodipi.service.server import ServerConfig, start, tune_for_latency

    running = await start(ServerConfig(port=port, database_url=database_url))
    tune_for_latency()  # as ``serve`` does
    dashboard = await asyncio.create_subprocess_exec(
        *streamlit_command(dashboard_port), env=streamlit_env(database_url)
    )
    stderr().print(f"[bold]service[/bold]   grpc://{running.host}:{running.port}")
    stderr().print(f"[bold]dashboard[/bold] http://127.0.0.1:{dashboard_port}")
    stderr().print(f"database  {user(_shown(database_url))}\nCtrl-C stops both.")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    waiting = asyncio.ensure_future(stop.wait())
    exited = asyncio.ensure_future(dashboard.wait())
    await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
    code = 0
    if exited.done():
        code = 1
        error(f"the dashboard exited with status {dashboard.returncode}; stopping the service")
    else:
        with contextlib.suppress(ProcessLookupError):
            dashboard.terminate()
        try:
            await asyncio.wait_for(dashboard.wait(), STOP_SECONDS)
        except TimeoutError:
            dashboard.kill()
            await dashboard.wait()
    waiting.cancel()
    await running.stop()
    return code


def up_command(
    port: Annotated[
        int,
        typer.Option(
            "--port", metavar="PORT", min=0, max=65535, help="Port of the gRPC service (0: any)."
        ),
    ] = 50051,
    dashboard_port: Annotated[
        int,
        typer.Option(
            "--dashboard-port", metavar="PORT", min=1, max=65535, help="Port of the dashboard."
        ),
    ] = 8501,
    database_url: DatabaseOpt = None,
) -> None:
    """Start the service and the dashboard on one database; sample games fill an empty one."""
    from chaodipi.service.logs import configure_logging
    from chaodipi.service.server import PortInUse

    configure_logging(json_lines=False)  # as ``serve`` logs

    _dashboard_port_free(dashboard_port, "--dashboard-port")
    url = database_url or default_url()
    stderr().print(f"data folder: {user(data_dir())}")
    stored = prepare(url)
    if stored:
        stderr().print(f"the database was empty: loaded {stored} sample records")
    try:
        code = asyncio.run(run_both(port, dashboard_port, url))
    except PortInUse as exc:
        error(user(exc))
        raise typer.Exit(1) from None
    raise typer.Exit(code)


def _shown(url: str) -> str:
    """A database URL as printed: without its password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def register(app: typer.Typer) -> None:
    """Add ``dashboard`` and ``up`` to ``app``."""
    app.command("dashboard", cls=Command)(dashboard_command)
    app.command("up", cls=Command)(up_command)
