"""The default backend: a process pool over this machine's cores with a bounded submit window."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from chaodipi.batch.run import Mode, Result, audit_chunk
from chaodipi.batch.sources import Unit


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group: the parent decides how to stop, the workers must
    # not die mid-chunk (that would break the pool and lose the chunks in flight).
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalBackend:
    """``audit_chunk`` in a pool of worker processes; at most ``2 × workers`` chunks in flight."""

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.window = 2 * self.workers
        # fork: workers start at once with the auditor already imported, and never re-import
        # the caller's main module (spawn and forkserver do, which breaks unguarded scripts).
        self._pool = ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_ignore_sigint,
        )
        # With fork the pool starts every worker at its first submit: do it now, before the
        # caller starts threads (the progress bar's refresher) that a fork would copy mid-lock.
        self._pool.submit(audit_chunk, [], "json", None).result()

    def map(
        self, chunks: Iterable[list[Unit]], mode: Mode, window: int | None = None
    ) -> Iterator[list[Result]]:
        """Results chunk by chunk as workers finish them; a new chunk goes in as one comes out."""
        pending: set[Future[list[Result]]] = set()
        for chunk in chunks:
            pending.add(self._pool.submit(audit_chunk, chunk, mode, window))
            if len(pending) >= self.window:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()

    def close(self) -> None:
        """Stop the workers, dropping chunks not yet started (after an error or a hard stop)."""
        self._pool.shutdown(wait=True, cancel_futures=True)
