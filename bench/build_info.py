"""Which build of ``chaodipi`` a benchmark runs: every bench script prints it first.

The scripts import ``chaodipi.*`` as installed, never from a path into the source tree: an
editable install (``pip install -e .``) runs the sources, pure Python; a wheel (``pip install
.``) runs the mypyc-compiled engine and auditor (``CHAODIPI_MYPYC=0`` makes it pure again).
"""

from __future__ import annotations

import sys
from pathlib import Path


def describe_build() -> str:
    """The build of ``engine/`` and ``auditor/`` this process imported, and from where."""
    import chaodipi.auditor.tricks
    import chaodipi.engine.units

    files = [Path(str(m.__file__)) for m in (chaodipi.engine.units, chaodipi.auditor.tricks)]
    compiled = [f.suffix != ".py" for f in files]
    build = "mypyc-compiled" if all(compiled) else "pure Python" if not any(compiled) else "mixed"
    python = sys.version.split()[0]
    return f"engine/auditor: {build}, from {files[0].parent.parent} (Python {python})"
