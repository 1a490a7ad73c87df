"""Which build of engine/ and auditor/ the tests run against, and one namespace for the code.

The repository's folders are importable only as ``chaodipi.*`` (``engine/`` is
``chaodipi.engine``). ``python -m pytest`` puts the repository root on ``sys.path``, where
``import engine`` would load a second copy of the code: the bare names are refused here, as
they are for an installed package.

A compiled wheel (setup.py) ships a ``.so`` beside each ``.py``, which Python imports
first. The pytest header names the build and where it was imported from, and
``CHAODIPI_EXPECT_COMPILED=1`` (or ``0``) fails the session unless every module is compiled
(or none is): CI sets it for each of its two test runs.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

PACKAGES = ("chaodipi.engine", "chaodipi.auditor")
FOLDERS = frozenset(
    ("engine", "auditor", "importers", "service", "client", "dashboard", "batch", "cli")
)
"""The repository's top-level package folders, each installed as ``chaodipi.<folder>``."""


class _OnlyInTheNamespace(importlib.abc.MetaPathFinder):
    """Refuse ``import engine`` and the like: the code is ``chaodipi.engine``."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] in FOLDERS:
            raise ModuleNotFoundError(f"No module named {fullname!r}: import chaodipi.{fullname}")
        return None


sys.meta_path.insert(0, _OnlyInTheNamespace())


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
    where = Path(str(importlib.import_module("chaodipi.engine").__file__)).parent.parent
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


@pytest.fixture(autouse=True)
def _data_folder_of_its_own(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the user's data folder: ``CHAODIPI_HOME`` is a fresh one."""
    if "CHAODIPI_HOME" not in os.environ:
        monkeypatch.setenv("CHAODIPI_HOME", str(tmp_path_factory.mktemp("home")))
