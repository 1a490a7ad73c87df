"""The server's short CPU time slices (``service.scheduling``): taken where Linux grants them,
asked for nowhere else. Each change runs in a child process, so the test process keeps its
own scheduling."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from chaodipi.service import scheduling

_CHILD = """
import json, os
from chaodipi.service.scheduling import SHORT_SLICE_NS, use_short_slices

def slices():
    found = {}
    for thread in os.listdir("/proc/self/task"):
        for line in open(f"/proc/self/task/{thread}/sched"):
            if line.startswith("se.slice"):
                found[thread] = int(line.split(":")[1])
    return found

niced = os.nice(3)  # a worker's lower priority: the slice is asked for without changing it
before = slices()
taken = use_short_slices()
print(json.dumps({"before": before, "taken": taken, "after": slices(), "niced": niced,
                  "nice": os.nice(0), "short": SHORT_SLICE_NS}))
"""


def _kernel_at_least(major: int, minor: int) -> bool:
    try:
        found = tuple(int(part) for part in platform.release().split(".")[:2])
    except ValueError:
        return False
    return found >= (major, minor)


def test_server_threads_get_short_slices_where_the_kernel_grants_them() -> None:
    if platform.system() != "Linux" or not Path("/proc/self/sched").exists():
        pytest.skip("no /proc/<pid>/sched to read a thread's slice from")
    if not _kernel_at_least(6, 12):
        pytest.skip(f"Linux {platform.release()} keeps its own slices (custom slices: 6.12)")
    result = json.loads(
        subprocess.run(
            [sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True
        ).stdout
    )
    if not result["before"]:
        pytest.skip("this kernel's sched file shows no se.slice")
    assert result["taken"] is True
    assert set(result["after"].values()) == {result["short"]}
    assert set(result["before"].values()) != {result["short"]}  # the default is longer
    assert result["nice"] == result["niced"]  # from the test process's own, plus 3


def test_nothing_is_asked_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "system", lambda: "Darwin")
    monkeypatch.setattr(scheduling.ctypes, "CDLL", _no_library)
    assert scheduling.use_short_slices() is False


def test_nothing_is_asked_on_another_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    monkeypatch.setattr(scheduling.ctypes, "CDLL", _no_library)
    assert scheduling.use_short_slices() is False


def _no_library(*args: object, **kwargs: object) -> object:
    raise AssertionError("the C library was opened where no slice can be asked for")
