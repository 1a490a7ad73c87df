"""Benchmark: wall time of ``chaodipi audit`` on one small file, start-up included (bar 0.25 s).

Runs the installed ``chaodipi`` command as a user would, several times, and prints the minimum
and median wall time, and the minimum CPU time (user + system, which the other jobs on a
loaded machine disturb less than the wall time); also the bare import of the command line
(``python -c 'import chaodipi.cli.main'``), which is what every command pays before it starts
working.

The runs use compiled bytecode, as an installed command does (pip compiles a wheel's modules
when it installs them; an editable install writes them on its first run): the bytecode goes
to a temporary folder (``PYTHONPYCACHEPREFIX``), written by a first run that is not timed, and
``PYTHONDONTWRITEBYTECODE``, which some containers set, is dropped, so that no run compiles
the sources anew (that would add about 0.1 s of compiling to every run).

    python bench/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from build_info import describe_build  # bench/, beside this script

from chaodipi.auditor.generate import generate_hand
from chaodipi.v1 import records_pb2


def _times(command: list[str], runs: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each run; the first run (file cache, bytecode) is not counted."""
    first = subprocess.run(command, capture_output=True, check=False, env=env)
    if first.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {first.returncode}: {first.stderr!r}")
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(
            after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        )  # fmt: skip
    return walls, cpus


def _line(name: str, times: tuple[list[float], list[float]]) -> str:
    walls, cpus = times
    return (
        f"{name:<32} wall min {min(walls) * 1000:4.0f} ms, median "
        f"{statistics.median(walls) * 1000:4.0f} ms; CPU min {min(cpus) * 1000:4.0f} ms "
        f"({len(walls)} runs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print(describe_build())
    # The command of the Python running this script (its venv's bin/), else the one on PATH.
    chaodipi = shutil.which("chaodipi", path=str(Path(sys.executable).parent)) or shutil.which(
        "chaodipi"
    )
    if chaodipi is None:
        raise SystemExit("the chaodipi command is not installed (pip install -e .)")
    with tempfile.TemporaryDirectory() as folder:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "bytecode")
        hand = Path(folder) / "one-hand.pb"
        hand.write_bytes(
            records_pb2.RecordFile(game=generate_hand("classic", 1)).SerializeToString()
        )
        audit = _times([chaodipi, "audit", str(hand)], args.runs, env)
        imports = _times([sys.executable, "-c", "import chaodipi.cli.main"], args.runs, env)
    print(_line("chaodipi audit one-hand.pb", audit))
    print(_line("import chaodipi.cli.main", imports))
    print(f"load average (1 min) after the runs: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
