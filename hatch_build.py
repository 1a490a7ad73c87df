"""Build hook: wheels with engine/ and auditor/ compiled by mypyc (about twice as fast).

For a wheel (``pip install .``, ``python -m build --wheel``) the hook copies the sources
mypyc needs (engine/, auditor/, the ``chaodipi.v1`` stubs they import) into a temporary
directory, compiles them there in a subprocess (``mypycify`` + ``setuptools build_ext``,
type-checked under the project's ``[tool.mypy]`` settings) and adds the built extension
modules to the wheel beside the ``.py`` files, which Python imports second. The work tree is
never written to: no ``.so`` lands in it, and ``pyproject.toml`` is only read.

Skipped (a pure ``py3-none-any`` wheel or editable install):
- editable installs (``pip install -e .``), so edits to the sources take effect at once;
- ``CHAODIPI_MYPYC=0``, e.g. to build a pure wheel to debug or profile the Python code.

The compile takes about a minute and needs a C compiler and the Python headers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGES = ("engine", "auditor")
"""The packages compiled: every module in them."""

STUBS = ("chaodipi/__init__.py", "chaodipi/v1/__init__.py", "chaodipi/v1/*_pb2.pyi")
"""Read by mypy only (type information of the protobuf messages); not compiled."""

SETUP = """\
import sys
from mypyc.build import mypycify
from setuptools import setup

setup(
    name="chaodipi-mypyc",
    py_modules=[],
    ext_modules=mypycify(
        ["--config-file", "mypy.toml", *sys.argv.pop(1).split(",")],
        opt_level="3",
        group_name="chaodipi",
    ),
)
"""


class MypycHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self.workdir: Path | None = None
        if self.target_name != "wheel" or version == "editable":
            return
        if os.environ.get("CHAODIPI_MYPYC", "1") == "0":
            self.app.display_info("chaodipi: CHAODIPI_MYPYC=0, building a pure-Python wheel")
            return
        started = time.monotonic()
        root = Path(self.root)
        self.workdir = work = Path(tempfile.mkdtemp(prefix="chaodipi-mypyc-"))
        sources: list[str] = []
        for package in PACKAGES:
            for py in sorted((root / package).glob("*.py")):
                rel = py.relative_to(root).as_posix()
                sources.append(rel)
                _copy(py, work / rel)
        for pattern in STUBS:
            for path in sorted(root.glob(pattern)):
                _copy(path, work / path.relative_to(root))
        # mypy reads [tool.mypy] from a copy (strict, etc.); its ``files`` are overridden.
        shutil.copyfile(root / "pyproject.toml", work / "mypy.toml")
        (work / "setup_mypyc.py").write_text(SETUP)
        self.app.display_info(f"chaodipi: compiling {len(sources)} modules with mypyc in {work}")
        out = work / "out"
        command = [
            sys.executable, "setup_mypyc.py", ",".join(sources),
            "build_ext", "--build-lib", str(out), "--build-temp", str(work / "tmp"),
        ]
        result = subprocess.run(
            command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        if result.returncode != 0:
            self.finalize(version, build_data, "")
            raise RuntimeError(
                f"mypyc build failed (exit {result.returncode}); set CHAODIPI_MYPYC=0 for a "
                f"pure-Python wheel. Output:\n{result.stdout}"
            )
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        built = sorted(out.rglob(f"*{suffix}"))
        expected = {s.removesuffix(".py") + suffix for s in sources}
        missing = expected - {p.relative_to(out).as_posix() for p in built}
        if missing:
            self.finalize(version, build_data, "")
            raise RuntimeError(f"mypyc build made no {sorted(missing)}:\n{result.stdout}")
        for path in built:
            build_data["force_include"][str(path)] = path.relative_to(out).as_posix()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        self.app.display_info(
            f"chaodipi: mypyc built {len(built)} extension files in "
            f"{time.monotonic() - started:.0f} s"
        )

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
