"""The timing the single-core benches share: the best CPU time of a few rounds."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_cpu(rounds: int, work: Callable[[], None]) -> float:
    """The least CPU time (``time.process_time``) of ``rounds`` runs of ``work``, in seconds.

    CPU time of this process, so other jobs on the machine do not inflate it; the best round,
    so a round the machine slowed down does not count.
    """
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best
