"""The timing the benches share: the best CPU time of a few rounds (single-core benches), and
what the machine did meanwhile (wall-clock benches)."""

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


def _cpu_times() -> list[int] | None:
    try:
        with open("/proc/stat") as stat:
            return [int(v) for v in stat.readline().split()[1:9]]
    except OSError:  # not Linux
        return None


class MachineShare:
    """What the whole machine did while a wall-clock measurement ran, from ``/proc/stat``: the
    share of CPU time the hypervisor gave to other guests (steal) and the share left idle.

    A virtual machine's steal comes in stretches the guest cannot see as load: a vCPU taken
    away for tens of milliseconds shows in every latency measured meanwhile, so a wall-clock
    figure is only worth comparing with another of a similar steal share.
    """

    def __enter__(self) -> MachineShare:
        self._start = _cpu_times()
        self._end: list[int] | None = None
        return self

    def __exit__(self, *exc: object) -> None:
        self._end = _cpu_times()

    def describe(self) -> str:
        if self._start is None or self._end is None:
            return "no /proc/stat: steal and idle shares unknown"
        # user nice system idle iowait irq softirq steal
        spent = [after - before for before, after in zip(self._start, self._end, strict=True)]
        total = max(sum(spent), 1)
        return (
            f"steal {100 * spent[7] / total:.1f} % of the machine's CPU time, "
            f"idle {100 * (spent[3] + spent[4]) / total:.1f} %"
        )
