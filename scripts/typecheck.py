"""``mypy --strict`` over the ``chaodipi`` namespace as it is installed.

The repository keeps its top-level folders (``engine/``, ``service/`` …) and the build maps them
into ``chaodipi.*`` (``[tool.setuptools.package-dir]`` in ``pyproject.toml``). mypy cannot follow
the finder an editable install uses, so this script lays the namespace out as symbolic links in
``build/typecheck/chaodipi/`` and checks that, plus ``setup.py``; paths in mypy's messages are
written back as the repository's own (``engine/cards.py:12: error: …``).

    python scripts/typecheck.py            # what CI and the pre-commit hook run
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGE = ROOT / "build" / "typecheck"


def package_dirs() -> dict[str, str]:
    """The installed package names and the repository folders they come from."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return mapping


def stage() -> dict[str, str]:
    """Build the link tree; return staged path prefixes -> repository prefixes."""
    shutil.rmtree(STAGE, ignore_errors=True)
    rewrites: dict[str, str] = {}
    for name, folder in sorted(package_dirs().items()):
        staged = STAGE.joinpath(*name.split("."))
        source = ROOT / folder
        if name == "chaodipi":
            # The root package holds the mapped subpackages too: link its own files one by one.
            staged.mkdir(parents=True)
            for item in source.iterdir():
                if item.name != "__pycache__":
                    (staged / item.name).symlink_to(item)
        else:
            staged.symlink_to(source, target_is_directory=True)
        rewrites[f"{staged.relative_to(ROOT).as_posix()}/"] = f"{folder}/" if folder else ""
    return rewrites


def main() -> int:
    rewrites = stage()
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        str((STAGE / "chaodipi").relative_to(ROOT)),
        "setup.py",
        "scripts/typecheck.py",
        *sys.argv[1:],
    ]
    env = {**os.environ, "MYPYPATH": str(STAGE)}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    # Longest prefixes first, so that chaodipi/engine/ is not read as the root's chaodipi/.
    ordered = sorted(rewrites.items(), key=lambda item: -len(item[0]))
    for line in (result.stdout + result.stderr).splitlines():
        for staged, repo in ordered:
            if line.startswith(staged):
                line = repo + line[len(staged) :]
                break
        print(line)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
