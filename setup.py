"""Build step: wheels with ``chaodipi.engine`` and ``chaodipi.auditor`` compiled by mypyc.

Everything else about the package is declared in ``pyproject.toml``. For a wheel
(``pip install .``, ``pip wheel .``) ``build_ext`` copies the modules mypyc compiles, laid out
under their installed names (``chaodipi/engine/*.py`` …, with the ``chaodipi.v1`` stubs they
import), into a temporary directory, compiles them there in a subprocess and adds the extension
modules to the wheel beside the ``.py`` files, which Python imports second. The work tree is
never written to.

Skipped, for a pure-Python build:
- editable installs (``pip install -e .``), so edits to the sources take effect at once;
- ``CHAODIPI_MYPYC=0``, e.g. to build a pure wheel to debug or profile the Python code.

The compile takes one to two minutes and needs a C compiler and the Python headers.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
COMPILED = {"chaodipi/engine": "engine", "chaodipi/auditor": "auditor"}
"""The packages compiled (every module in them): installed path -> folder in the repository."""
STUBS = {"chaodipi/__init__.py": "chaodipi/__init__.py", "chaodipi/v1": "chaodipi/v1"}
"""Read by mypy only (the protobuf messages' types): copied, not compiled."""

COMPILE_SCRIPT = """\
import sys
from mypyc.build import mypycify
from setuptools import setup

setup(
    name="chaodipi-mypyc",
    py_modules=[],
    ext_modules=mypycify(
        ["--config-file", "mypy.toml", *sys.argv.pop(1).split(",")],
        opt_level="3",
        # mypyc's shared library is the one top-level file: chaodipi__mypyc (a dotted group name
        # builds a library the compiled modules cannot load).
        group_name="chaodipi",
    ),
)
"""


def compiling() -> bool:
    """True when this build compiles: a wheel, not an editable install, and not CHAODIPI_MYPYC=0."""
    return "editable_wheel" not in sys.argv and os.environ.get("CHAODIPI_MYPYC", "1") != "0"


class CompiledDistribution(Distribution):
    """A distribution whose wheel is platform-specific when it carries compiled modules."""

    def has_ext_modules(self) -> bool:
        return compiling()


class MypycBuildExt(build_ext):
    """Compile the ``COMPILED`` packages with mypyc and add them to the build."""

    def run(self) -> None:
        if not compiling():
            return
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="chaodipi-mypyc-") as tmp:
            work = Path(tmp)
            sources: list[str] = []
            for installed, folder in COMPILED.items():
                for py in sorted((ROOT / folder).glob("*.py")):
                    rel = f"{installed}/{py.name}"
                    sources.append(rel)
                    _copy(py, work / rel)
            for installed, source in STUBS.items():
                path = ROOT / source
                if path.is_dir():
                    for stub in sorted(path.glob("*.py*")):
                        _copy(stub, work / installed / stub.name)
                else:
                    _copy(path, work / installed)
            # mypy reads [tool.mypy] from a copy (strict, etc.); its file list is overridden.
            shutil.copyfile(ROOT / "pyproject.toml", work / "mypy.toml")
            (work / "compile.py").write_text(COMPILE_SCRIPT)
            print(f"chaodipi: compiling {len(sources)} modules with mypyc", flush=True)
            out = work / "out"
            command = [
                sys.executable,
                "compile.py",
                ",".join(sources),
                "build_ext",
                "--build-lib",
                str(out),
                "--build-temp",
                str(work / "tmp"),
            ]
            result = subprocess.run(
                command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
            if result.returncode != 0:
                raise RuntimeError(
                    f"mypyc build failed (exit {result.returncode}); set CHAODIPI_MYPYC=0 for a "
                    f"pure-Python wheel. Output:\n{result.stdout}"
                )
            suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
            built = sorted(out.rglob(f"*{suffix}"))
            expected = {s.removesuffix(".py") + suffix for s in sources}
            missing = expected - {p.relative_to(out).as_posix() for p in built}
            if missing:
                raise RuntimeError(f"mypyc build made no {sorted(missing)}:\n{result.stdout}")
            for path in built:
                _copy(path, Path(self.build_lib) / path.relative_to(out))
        print(
            f"chaodipi: mypyc built {len(built)} extension files in "
            f"{time.monotonic() - started:.0f} s",
            flush=True,
        )


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def _build_base() -> str:
    """A fresh build folder outside the work tree: nothing stale (an old compile) is reused."""
    base = tempfile.mkdtemp(prefix="chaodipi-build-")
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    return base


setup(
    distclass=CompiledDistribution,
    cmdclass={"build_ext": MypycBuildExt},
    options={"build": {"build_base": _build_base()}},
)
