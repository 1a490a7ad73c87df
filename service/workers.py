"""Pools of worker processes that outlive their processes.

A ``ProcessPoolExecutor`` whose process dies (killed by the kernel when memory runs out, say) is
broken for good: every later call that audits or stores in it would fail. ``WorkerPool`` starts a
new pool the first time work is submitted to a broken one; the work that was in the dead pool
fails with ``BrokenProcessPool``, which the service answers UNAVAILABLE (nothing of that batch
was stored; a retry is safe), and every later call gets the new pool.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

log = logging.getLogger("chaodipi.service")

P = ParamSpec("P")
T = TypeVar("T")


class WorkerPool(Executor):
    """A process pool made by ``start``, made again by it once one of its processes died.

    >>> pool = WorkerPool("audit", lambda: ProcessPoolExecutor(max_workers=1))
    >>> pool.submit(sum, [1, 2]).result()
    3
    >>> pool.shutdown()
    """

    def __init__(self, name: str, start: Callable[[], ProcessPoolExecutor]) -> None:
        self.name = name
        self._start = start
        self._pool = start()
        self._lock = threading.Lock()

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        pool = self._pool
        try:
            return pool.submit(fn, *args, **kwargs)
        except BrokenProcessPool:
            return self._renewed(pool).submit(fn, *args, **kwargs)

    def _renewed(self, broken: ProcessPoolExecutor) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is broken:
                log.warning("one of the %s worker processes died: starting them anew", self.name)
                broken.shutdown(wait=False, cancel_futures=True)
                self._pool = self._start()
            return self._pool

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)
