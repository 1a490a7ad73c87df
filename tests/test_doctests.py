"""The examples in docstrings and in ``docs/*.md`` run, and print what they say.

Every module of the namespace is imported and its doctests run, except the scripts that do
their work on import (the dashboard's Streamlit pages, ``python -m chaodipi.cli``). A page of
``docs/`` with ``>>>`` examples runs as one doctest session.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
SCRIPTS = frozenset({"chaodipi.cli.__main__", "chaodipi.dashboard.app"})
"""Modules that run when imported: not collected."""
PACKAGES = ("engine", "auditor", "importers", "service", "batch", "dashboard", "cli")


def _modules() -> list[str]:
    names = ["chaodipi"]
    for package in PACKAGES:
        module = importlib.import_module(f"chaodipi.{package}")
        names.append(module.__name__)
        for info in pkgutil.walk_packages(module.__path__, f"{module.__name__}."):
            if info.name not in SCRIPTS:
                names.append(info.name)
    return names


def _options() -> int:
    return doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=_options(), verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


@pytest.mark.parametrize(
    "page", sorted(p.name for p in DOCS.glob("*.md") if ">>> " in p.read_text(encoding="utf-8"))
)
def test_docs_examples(page: str) -> None:
    result = doctest.testfile(
        str(DOCS / page), module_relative=False, optionflags=_options(), verbose=False
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {page}"
