"""What a servicer knows of its server and of the call it answers: the server's configuration
and shared state, the caller's tenant (set by the API-key check before the servicer runs) and
the messages of its request stream that could not be read."""

from __future__ import annotations

import os
from concurrent.futures import Executor
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from chaodipi.service.budget import Calls
from chaodipi.service.db import SessionFactory

if TYPE_CHECKING:  # metrics reads this module's TENANT for its log lines
    from chaodipi.service.metrics import Metrics


@dataclass(slots=True)
class ServerConfig:
    """How to run the server; the defaults suit a single machine."""

    port: int = 50051
    # None: 127.0.0.1, or all interfaces when keys are required and the server speaks TLS (or
    # ``insecure`` says plaintext is meant).
    host: str | None = None
    database_url: str | None = None
    max_message_bytes: int = 4 * 1024 * 1024
    max_records_per_upload: int = 100_000
    max_upload_bytes: int = 512 * 1024 * 1024
    max_batch_records: int = 1000  # records of one BatchUploadRecords call
    batch_size: int = 64
    # Processes auditing uploads next to the event loop (0: threads of this process); the
    # audit is pure Python, so a process per core is what lets an upload use more than one.
    # One core is left to the event loop and the store: an upload is bound by its store
    # (one batch written at a time), and a worker on every core makes the live referee's
    # verdicts wait for a core (docs/benchmarks.md, Live referee).
    audit_workers: int = field(default_factory=lambda: max(1, min((os.cpu_count() or 1) - 1, 4)))
    grace_seconds: float = 10.0
    # Time between health turning NOT_SERVING and refusing new calls, for load balancers.
    drain_seconds: float = 0.0
    require_keys: bool | None = None  # None: when any key exists
    # TLS: the server's certificate chain and key (PEM); with ``tls_client_ca`` too, clients
    # must show a certificate that CA signed (mutual TLS).
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_client_ca: Path | None = None
    # Listen beyond localhost in plaintext although keys are required (keys then cross the
    # network in the clear): only when this says so.
    insecure: bool = False
    # Serve Prometheus metrics over HTTP on this port, on the gRPC address (0: any free port;
    # None: no endpoint; the counters are kept either way).
    metrics_port: int | None = None


@dataclass(slots=True)
class State:
    """What the servicers share: the database, the executors, the limits and the calls."""

    engine: Engine
    sessions: SessionFactory
    audit_executor: Executor
    store_executor: Executor  # threads
    upload_store_executor: Executor  # store worker processes, or the store threads
    config: ServerConfig
    default_tenant: int
    require_keys: bool
    calls: Calls
    metrics: Metrics


@dataclass(slots=True)
class StreamRead:
    """What reading a request stream found: messages that do not parse, by stream index (each
    replaced by an empty request in the stream), until the servicer takes the reason."""

    unreadable: dict[int, str] = field(default_factory=dict)

    def take(self, index: int) -> str | None:
        """Why the ``index``-th message could not be read, once (None: it could)."""
        return self.unreadable.pop(index, None)


TENANT: ContextVar[int] = ContextVar("tenant")
"""The caller's tenant, for the call being answered."""
STREAM: ContextVar[StreamRead] = ContextVar("stream")
"""The request stream's reading, for a call with a request stream."""
