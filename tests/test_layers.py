"""The import graph: layers that only look down, no cycles, and a pure engine.

The layers, from the top: ``cli`` ← ``dashboard`` | ``batch`` ← ``importers`` | ``service`` |
``client`` ← ``auditor`` ← ``engine``; the generated ``chaodipi.v1`` sits at the bottom beside
the engine (the engine does not use it). A package may import its own layer's modules and any lower
layer's, never a higher one, nor its sibling on the same layer. Every import counts, also
one inside a function. The modules are read from the repository's folders as the build maps
them (``[tool.setuptools.package-dir]``), without importing anything.

Within the layers, the dashboard uses the service only through its read model and its ingest
path (``test_the_dashboard_reads_through_the_read_model``).
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("dashboard", "batch"),
    ("importers", "service", "client"),
    ("auditor",),
    ("engine", "v1", "docs"),
)
"""Subpackages of ``chaodipi`` from the top layer down; packages in one layer are independent.
``docs`` holds no code: the documentation, installed as data."""

ENGINE_FORBIDDEN = frozenset(
    {
        "asyncio", "http", "io", "multiprocessing", "os", "pathlib", "shutil", "socket",
        "sqlite3", "subprocess", "threading", "urllib",
    }
)  # fmt: skip
"""Standard modules the engine may not use: it does no I/O, no networking, no processes."""

DASHBOARD_SERVICE_DOORS: dict[str, frozenset[str] | None] = {
    "chaodipi.service.readmodel": None,  # any of its names
    "chaodipi.service.ingest": frozenset({"ingest_records"}),
    "chaodipi.service.samples": frozenset({"load_samples"}),
}
"""What the dashboard may import from the service: the read model, and the two writes."""

DASHBOARD_ALSO = ("chaodipi.dashboard", "chaodipi.engine", "chaodipi.importers", "chaodipi.v1")
"""Besides the service's doors: its own modules, the engine's pure vocabulary (cards, preset
rulesets), the importers (reading uploaded files) and the protobuf messages."""


def _modules() -> dict[str, Path]:
    """Every module of the namespace, by its installed name."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: dict[str, Path] = {}
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        base = ROOT / folder
        for path in base.rglob("*.py"):
            parts = path.relative_to(base).with_suffix("").parts
            if package == "chaodipi" and parts and parts[0] != "v1" and len(parts) > 1:
                continue  # the root folder holds only its own files and v1
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """Absolute names a module imports (also inside functions), with their line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            # ``from chaodipi.cli import batch`` imports the module chaodipi.cli.batch; a name
            # that is not a module is the package's own.
            names = [f"{module}.{alias.name}" for alias in node.names]
            submodules = [name for name in names if name in MODULES]
            for name in submodules:
                yield name, node.lineno
            if len(submodules) < len(names):
                yield module, node.lineno


def _internal(target: str) -> str | None:
    """The module of the namespace an import resolves to (its longest known prefix)."""
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return None


def _layer_of(module: str) -> tuple[int, str] | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None  # the root package itself
    for depth, layer in enumerate(LAYERS):
        if parts[1] in layer:
            return depth, parts[1]
    return None


GRAPH: dict[str, set[str]] = {}
LINES: dict[tuple[str, str], int] = {}
for _name, _path in MODULES.items():
    GRAPH[_name] = set()
    for _target, _line in _imports(_name, _path):
        _resolved = _internal(_target)
        if _resolved is not None and _resolved != _name:
            GRAPH[_name].add(_resolved)
            LINES.setdefault((_name, _resolved), _line)


def test_every_package_has_a_layer() -> None:
    packages = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    placed = {p for layer in LAYERS for p in layer}
    assert packages <= placed, f"packages without a layer: {sorted(packages - placed)}"


def test_the_root_package_imports_nothing_of_its_own() -> None:
    assert GRAPH["chaodipi"] == set()


def test_imports_only_look_down_the_layers() -> None:
    wrong = []
    for module, targets in GRAPH.items():
        here = _layer_of(module)
        for target in targets:
            there = _layer_of(target)
            if here is None or there is None or here[1] == there[1]:
                continue
            if there[0] <= here[0]:
                where = f"{MODULES[module].relative_to(ROOT)}:{LINES[(module, target)]}"
                wrong.append(f"{where}: {module} imports {target}")
    assert not wrong, "imports that run up or sideways:\n" + "\n".join(sorted(wrong))


def test_no_import_cycles() -> None:
    # Tarjan's strongly connected components; a component of two or more modules is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(GRAPH)))

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("chaodipi.engine")))
def test_the_engine_is_pure(module: str) -> None:
    """No I/O, database or network: the standard library's pure parts and the engine only."""
    outside = []
    for target, line in _imports(module, MODULES[module]):
        top = target.split(".")[0]
        if target.startswith("chaodipi.engine") or target == "__future__":
            continue
        if top not in sys.stdlib_module_names or top in ENGINE_FORBIDDEN:
            outside.append(f"line {line}: {target}")
    assert not outside, f"{module} imports {outside}"


def _imported_names(name: str, path: Path) -> Iterator[tuple[str, str | None, int]]:
    """``(module, name, line)`` for each import from the namespace: the name taken from the
    module, or None when the module itself is imported (``import chaodipi.v1.audit_pb2``,
    ``from chaodipi import importers``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            for alias in node.names:
                whole = f"{module}.{alias.name}"
                if whole in MODULES:
                    yield whole, None, node.lineno
                else:
                    yield module, alias.name, node.lineno


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("chaodipi.dashboard")))
def test_the_dashboard_reads_through_the_read_model(module: str) -> None:
    """The dashboard reads stored games only through ``chaodipi.service.readmodel`` and writes
    only with ``ingest.ingest_records`` (uploads) and ``samples.load_samples`` (sample games,
    stored by the same ingest path). It imports no other module of the service (``db``,
    ``store``, ``models``, ``results`` …) and nothing of the auditor: it neither queries the
    database nor audits a record itself. Its other imports from the namespace are its own
    modules, the engine (cards, preset rulesets), the importers and ``chaodipi.v1``."""
    wrong = []
    for target, name, line in _imported_names(module, MODULES[module]):
        if not target.startswith("chaodipi."):
            continue  # the standard library and third-party packages
        if target in DASHBOARD_SERVICE_DOORS:
            allowed = DASHBOARD_SERVICE_DOORS[target]
            if allowed is None or name in allowed:
                continue
        elif any(target == p or target.startswith(f"{p}.") for p in DASHBOARD_ALSO):
            continue
        wrong.append(f"line {line}: {target}" + (f" ({name})" if name else ""))
    assert not wrong, f"{module} imports {wrong}"
