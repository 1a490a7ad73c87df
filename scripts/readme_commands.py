"""The README's two commands, word for word: the first two ``sh`` blocks of README.md.

    python scripts/readme_commands.py run     # prints the command that installs and runs chaodipi
    python scripts/readme_commands.py test    # prints the command that installs and runs the tests

CI runs what this prints, so the README cannot drift from what is checked.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def commands() -> dict[str, str]:
    """The README's first two ``sh`` blocks, as ``run`` and ``test``."""
    blocks = re.findall(r"^```sh\n(.*?)\n```$", README.read_text(encoding="utf-8"), re.M | re.S)
    if len(blocks) < 2 or any("\n" in block for block in blocks[:2]):
        raise SystemExit("README.md must start with two one-line ```sh blocks: run, then test")
    return {"run": blocks[0], "test": blocks[1]}


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("run", "test"):
        raise SystemExit(__doc__)
    print(commands()[sys.argv[1]])
