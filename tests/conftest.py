"""Which build of engine/ and auditor/ the tests run against: pure Python or mypyc-compiled.

A compiled wheel (hatch_build.py) ships a ``.so`` beside each ``.py``, which Python imports
first. The pytest header names the build and where it was imported from, and
``CHAODIPI_EXPECT_COMPILED=1`` (or ``0``) fails the session unless every module is compiled
(or none is): CI sets it for each of its two test runs.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path

import pytest

PACKAGES = ("engine", "auditor")


def _modules() -> dict[str, bool]:
    """Each module of the packages, and whether it was imported compiled."""
    compiled: dict[str, bool] = {}
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.iter_modules(package.__path__, f"{name}."):
            module = importlib.import_module(info.name)
            compiled[info.name] = Path(str(module.__file__)).suffix in {".so", ".pyd"}
    return compiled


def pytest_report_header() -> str:
    compiled = _modules()
    where = Path(str(importlib.import_module("engine").__file__)).parent.parent
    done = sum(compiled.values())
    build = "pure Python" if not done else f"mypyc-compiled ({done} of {len(compiled)} modules)"
    return f"engine/auditor: {build}, from {where}"


def pytest_sessionstart(session: pytest.Session) -> None:
    expected = os.environ.get("CHAODIPI_EXPECT_COMPILED")
    if expected not in ("0", "1"):
        return
    wrong = sorted(name for name, done in _modules().items() if done != (expected == "1"))
    if wrong:
        build = "compiled" if expected == "1" else "pure Python"
        raise pytest.UsageError(f"CHAODIPI_EXPECT_COMPILED={expected}: not {build}: {wrong}")
