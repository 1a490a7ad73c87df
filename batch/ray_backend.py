"""The Ray backend (``pip install ".[ray]"``): the same chunks as Ray tasks, on this machine
(``ray.init()``) or on an existing cluster (``address``), with back-pressure from ``ray.wait``.

``ray`` is imported here only, so the rest of the package works without the extra.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from batch.run import Mode, Result, audit_chunk
from batch.sources import Unit

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("auditor", "batch", "chaodipi", "engine", "importers")
"""What a worker on another machine imports to audit a chunk (shipped with the job)."""


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
                # Nodes of a cluster do not have this checkout: ship the packages with the job
                # (their third-party dependencies, protobuf above all, must be installed there).
                options["runtime_env"] = {"py_modules": [str(ROOT / p) for p in PACKAGES]}
            ray.init(**options)
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        self.workers = int(resources.get("CPU", 1))
        self.window = 2 * self.workers
        self._task = ray.remote(num_cpus=1)(audit_chunk)

    def map(self, chunks: Iterable[list[Unit]], mode: Mode) -> Iterator[list[Result]]:
        """Results chunk by chunk as tasks finish; a new task is submitted as one completes."""
        ray = self._ray
        pending: list[Any] = []
        for chunk in chunks:
            pending.append(self._task.remote(chunk, mode))
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
