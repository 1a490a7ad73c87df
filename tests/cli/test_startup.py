"""What ``chaodipi audit FILE`` imports, and the plain-value coercion that keeps pydantic out.

The start-up budget (0.25 s for one small file, docs/benchmarks.md) is guarded here by what
is imported, not by timing: each module kept off the path is one the command does not pay for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.control import STRIP_CONTROL_CODES
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param, resolve_type_descriptor
from typer.models import ArgumentInfo, OptionInfo, ParameterInfo

from chaodipi.auditor.generate import generate_hand
from chaodipi.cli.coercion import _PlainValue
from chaodipi.cli.console import is_terminal, stderr, stdout
from chaodipi.cli.main import CONTROL_CODES
from chaodipi.v1 import records_pb2

NOT_FOR_ONE_FILE = (
    # the database, the server, the dashboard and the batch backends
    "sqlalchemy",
    "sqlmodel",
    "alembic",
    "psycopg",
    "grpc",
    "streamlit",
    "pandas",
    "plotly",
    "ray",
    "prometheus_client",
    "chaodipi.service.db",
    "chaodipi.service.server",
    "chaodipi.dashboard",
    "chaodipi.batch",
    # Typer's coercion of values (cli/coercion.py), and what pydantic's plugins scan
    "pydantic",
    "pydantic_core",
    "importlib.metadata",
    # Rich, off a terminal (plain lines, no progress bar), and other files' readers
    "rich",
    "google.protobuf.json_format",
    "tomllib",
    "platformdirs",
    "chaodipi.importers.notation",
    "chaodipi.importers.godot",
    "chaodipi.importers.botzone",
    "chaodipi.importers.eighty",
)

RUN_AUDIT = """
import json, sys
from chaodipi.cli.main import app
sys.argv = ["chaodipi", "audit", sys.argv[1]]
try:
    app()
except SystemExit as done:
    code = done.code
with open(sys.argv_modules, "w") as out:
    json.dump({"exit": code, "modules": sorted(sys.modules)}, out)
"""


def audit_imports(tmp_path: Path, record: records_pb2.RecordFile) -> tuple[str, dict[str, Any]]:
    """Audit one file in a fresh interpreter, off a terminal: its output and what it imported."""
    hand = tmp_path / "one-hand.pb"
    hand.write_bytes(record.SerializeToString())
    seen = tmp_path / "modules.json"
    code = RUN_AUDIT.replace("sys.argv_modules", repr(str(seen)))
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    done = subprocess.run(
        [sys.executable, "-c", code, str(hand)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,  # not the repository root, whose chaodipi/ folder would shadow the install
        env=env,
    )
    return done.stdout, json.loads(seen.read_text(encoding="utf-8"))


def test_auditing_one_clean_file_imports_neither_pydantic_nor_the_service(tmp_path: Path) -> None:
    out, seen = audit_imports(tmp_path, records_pb2.RecordFile(game=generate_hand("classic", 1)))
    assert seen["exit"] == 0 and out.startswith("one-hand.pb classic-1 (classic): clean;"), out
    modules = set(seen["modules"])
    assert "chaodipi.auditor.audit" in modules  # the audit ran in this interpreter
    loaded = sorted(m for m in NOT_FOR_ONE_FILE if m in modules)
    assert loaded == [], f"`chaodipi audit FILE` imported {loaded}"


def test_plain_lines_drop_the_control_codes_rich_drops() -> None:
    assert set(CONTROL_CODES) == set(STRIP_CONTROL_CODES)


@pytest.mark.parametrize(
    "environment",
    [
        {},
        {"TTY_COMPATIBLE": "0"},
        {"TTY_COMPATIBLE": "1"},
        {"FORCE_COLOR": ""},
        {"FORCE_COLOR": "1"},
        {"TTY_COMPATIBLE": "", "FORCE_COLOR": "1"},
    ],
)
def test_the_terminal_is_told_apart_as_rich_tells_it(
    environment: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert is_terminal() == stdout().is_terminal
    assert is_terminal(on_stderr=True) == stderr().is_terminal


# Each parameter shape the plain coercion takes, with the values a command line can give it.
HERE = Path(__file__)
PATHS = ("", ".", "missing.pb", str(HERE), f"{HERE}/", str(HERE.parent), f"{HERE.parent}//")
SHAPES: list[tuple[Any, ParameterInfo, list[Any]]] = [
    (bool, OptionInfo(), [True, False]),
    (str, OptionInfo(), ["auto", "", " pb ", "[red]x[/]"]),
    (Path, ArgumentInfo(), list(PATHS)),
    (Path, OptionInfo(exists=True), list(PATHS)),
    (Path, OptionInfo(file_okay=False), list(PATHS)),
    (Path, OptionInfo(dir_okay=False), list(PATHS)),
    (Path, OptionInfo(resolve_path=True, writable=True), list(PATHS)),
    (list[Path], ArgumentInfo(), [[p] for p in PATHS] + [list(PATHS[2:4]), PATHS[3]]),
    (list[Path], ArgumentInfo(exists=True), [list(PATHS[3:5]), list(PATHS[2:4])]),
]


def outcome(coerce: Any, value: Any) -> tuple[str, Any]:
    """A coercion's value, or its error message."""
    try:
        got = coerce(value, None, None)
    except BadParameter as exc:
        return "error", exc.message
    return "value", (type(got), got, [type(v) for v in got] if isinstance(got, list) else None)


@pytest.mark.parametrize(("annotation", "info", "values"), SHAPES)
def test_plain_coercion_reads_each_value_as_typer_would(
    annotation: Any, info: ParameterInfo, values: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(HERE.parent)
    descriptor = resolve_type_descriptor(annotation, info)
    plain = _PlainValue.of(descriptor)
    assert plain is not None
    typer_own = build_runtime_param(descriptor)
    for value in values:
        assert outcome(plain._coerce_value, value) == outcome(typer_own._coerce_value, value)


def test_parameters_that_need_typer_keep_its_coercion() -> None:
    for annotation, info in [
        (int, OptionInfo(min=1)),
        (str, OptionInfo(parser=str.upper)),
        (Path, OptionInfo(allow_dash=True)),
        (tuple[str, str], OptionInfo()),
    ]:
        assert _PlainValue.of(resolve_type_descriptor(annotation, info)) is None
