"""The Ray backend (``pip install ".[ray]"``): the same chunks as Ray tasks, on this machine
(``ray.init()``) or on an existing cluster (``address``), with back-pressure from ``ray.wait``.

``ray`` is imported here only, so the rest of the package works without the extra.
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
import socket
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from chaodipi.batch.run import Mode, Result, audit_chunk
from chaodipi.batch.sources import Unit

PACKAGES = (
    "chaodipi.v1",
    "chaodipi.engine",
    "chaodipi.auditor",
    "chaodipi.importers",
    "chaodipi.batch",
)
"""What a worker on another machine imports to audit a chunk (shipped with the job)."""


def _shipped_package(into: Path) -> Path:
    """A copy of the ``chaodipi`` package with just ``PACKAGES``, laid out as installed.

    The subpackages may come from different folders (an editable install maps the repository's
    top-level folders into the namespace), so each is copied from where Python finds it.
    """
    root = into / "chaodipi"
    root.mkdir()
    (root / "__init__.py").write_text('"""chaodipi, as shipped to Ray workers."""\n')
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.submodule_search_locations is not None, name
        source = Path(next(iter(spec.submodule_search_locations)))
        shutil.copytree(
            source, root / name.split(".", 1)[1], ignore=shutil.ignore_patterns("__pycache__")
        )
    return root


REACH_SECONDS = 10.0
"""How long a cluster's address may take to accept a connection before it is called unreachable."""


def _check_reachable(address: str) -> None:
    """``ConnectionError`` when nothing accepts a connection at a cluster's ``host:port``
    (or ``ray://host:port``): ``ray.init`` would retry for minutes, logging as it goes. Any
    other form (``auto``, a bare host) is left to Ray."""
    target = address.removeprefix("ray://")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), REACH_SECONDS).close()
    except OSError as exc:
        reason = exc.strerror or "no answer in time"
        raise ConnectionError(f"cannot reach a Ray cluster at {address} ({reason})") from None


class RayBackend:
    """``audit_chunk`` as Ray tasks (one CPU each); at most ``2 × cluster CPUs`` in flight."""

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        import ray

        self._ray = ray
        self._owned = not ray.is_initialized()
        if self._owned:
            options: dict[str, Any] = {
                "address": address,
                "include_dashboard": False,
                "logging_level": logging.WARNING,
            }
            if address is None:
                options["num_cpus"] = num_cpus
                # A local instance stays on loopback: nothing here needs another interface.
                options["_node_ip_address"] = "127.0.0.1"
            else:
                _check_reachable(address)
                # Nodes of a cluster do not have this checkout: ship the packages with the job
                # (their third-party dependencies, protobuf above all, must be installed there).
                staging = Path(tempfile.mkdtemp(prefix="chaodipi-ray-"))
                options["runtime_env"] = {"py_modules": [str(_shipped_package(staging))]}
            ray.init(**options)
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        self.workers = int(resources.get("CPU", 1))
        self.window = 2 * self.workers
        self._task = ray.remote(num_cpus=1)(audit_chunk)

    def map(
        self, chunks: Iterable[list[Unit]], mode: Mode, window: int | None = None
    ) -> Iterator[list[Result]]:
        """Results chunk by chunk as tasks finish; a new task is submitted as one completes."""
        ray = self._ray
        pending: list[Any] = []
        for chunk in chunks:
            pending.append(self._task.remote(chunk, mode, window))
            if len(pending) >= self.window:
                ready, pending = ray.wait(pending, num_returns=1)
                yield ray.get(ready[0])
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])

    def close(self) -> None:
        """Disconnect from Ray if this backend connected (a caller's own ``ray.init`` stays)."""
        if self._owned:
            self._ray.shutdown()
