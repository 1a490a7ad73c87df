"""Benchmark: wall time of ``chaodipi audit`` on one small file, start-up included (bar 0.25 s).

Runs the installed ``chaodipi`` command as a user would, several times, and prints the minimum
and median wall time; also the bare import of the command line (``python -c 'import
chaodipi.cli.main'``), which is what every command pays before it starts working.

    python bench/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
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


def _times(command: list[str], runs: int) -> list[float]:
    subprocess.run(command, capture_output=True, check=False)  # warm the file cache, .pyc files
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False)
        out.append(time.perf_counter() - start)
    return out


def _line(name: str, times: list[float]) -> str:
    return (
        f"{name:<40} min {min(times) * 1000:6.0f} ms   median "
        f"{statistics.median(times) * 1000:6.0f} ms   ({len(times)} runs)"
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
        hand = Path(folder) / "one-hand.pb"
        hand.write_bytes(
            records_pb2.RecordFile(game=generate_hand("classic", 1)).SerializeToString()
        )
        audit = _times([chaodipi, "audit", str(hand)], args.runs)
    imports = _times([sys.executable, "-c", "import chaodipi.cli.main"], args.runs)
    print(_line("chaodipi audit one-hand.pb", audit))
    print(_line("import chaodipi.cli.main", imports))


if __name__ == "__main__":
    main()
