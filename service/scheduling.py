"""Short CPU time slices for the server's calls (Linux 6.12 and later).

Linux's fair scheduler (EEVDF) lets a task ask for a shorter time slice than its default
(``sched_attr.sched_runtime`` on a ``SCHED_OTHER`` or ``SCHED_BATCH`` task). A woken task with
a shorter slice preempts one with a longer slice sooner, and protects its own turn for less
time. The server's event loop wakes for every call and runs for a fraction of a millisecond, so
with short slices a referee's verdict waits less for a core held by batch work (an audit
worker, a store worker, another program); its CPU share is unchanged (that is set by ``nice``).
Worker processes started later inherit the short slices; giving the workers short slices too
made no difference measured (docs/benchmarks.md, Live referee).

Elsewhere (another system, another architecture, an older kernel that refuses the call, a
policy it does not apply to) nothing changes: the functions say whether they did anything.
"""

from __future__ import annotations

import ctypes
import os
import platform

SHORT_SLICE_NS = 100_000
"""The slice the server's threads ask for: 0.1 ms, the shortest the kernel grants (its default
is 0.7 ms or more, scaled up with the number of cores). A verdict takes the event loop about
0.3 ms of CPU, gRPC's included, so it still runs in a few slices."""

_SYSCALLS = {"x86_64": (314, 315), "aarch64": (274, 275)}
"""``sched_setattr`` and ``sched_getattr`` by machine (Linux's own numbers)."""
_FAIR_POLICIES = (0, 3)  # SCHED_OTHER, SCHED_BATCH: the policies a slice applies to
_RESET_ON_FORK = 0x01  # the one flag a thread's attributes carry that setting them would clear


class _SchedAttr(ctypes.Structure):
    """Linux's ``struct sched_attr`` (its first version, 56 bytes)."""

    _fields_ = [
        ("size", ctypes.c_uint32),
        ("policy", ctypes.c_uint32),
        ("flags", ctypes.c_uint64),
        ("nice", ctypes.c_int32),
        ("priority", ctypes.c_uint32),
        ("runtime", ctypes.c_uint64),
        ("deadline", ctypes.c_uint64),
        ("period", ctypes.c_uint64),
        ("util_min", ctypes.c_uint32),
        ("util_max", ctypes.c_uint32),
    ]


def _set_slice(thread: int, nanoseconds: int) -> bool:
    """Give one thread of this process a slice of ``nanoseconds`` (0: the kernel's default),
    keeping its policy and nice value; whether the kernel accepted the call (a kernel before
    6.12 accepts it and keeps its own slice)."""
    numbers = _SYSCALLS.get(platform.machine()) if platform.system() == "Linux" else None
    if numbers is None:
        return False
    set_attr, get_attr = numbers
    libc = ctypes.CDLL(None, use_errno=True)
    attr = _SchedAttr()
    if libc.syscall(get_attr, thread, ctypes.byref(attr), ctypes.sizeof(attr), 0) != 0:
        return False
    if attr.policy not in _FAIR_POLICIES:
        return False
    attr.size, attr.runtime = ctypes.sizeof(attr), nanoseconds
    attr.flags &= _RESET_ON_FORK
    return bool(libc.syscall(set_attr, thread, ctypes.byref(attr), 0) == 0)


def _threads() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc/self/task")]
    except OSError:
        return []


def use_short_slices(nanoseconds: int = SHORT_SLICE_NS) -> bool:
    """Ask for ``nanoseconds`` slices for every thread of this process (threads it starts
    later inherit them); whether the kernel accepted the call for every thread."""
    threads = _threads()
    return bool(threads) and all([_set_slice(thread, nanoseconds) for thread in threads])
