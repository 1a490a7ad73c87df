"""Regenerate the dashboard's screenshots in docs/screenshots/ (shown by docs/dashboard.md).

    python scripts/screenshots.py

Runs the real-browser test (tests/dashboard/test_dashboard_browser.py: every page at 1400 px and
at 390 px, in Chinese and in English, against the seeded test database) with
CHAODIPI_UPDATE_SCREENSHOTS=1, which makes it write each screenshot as a small palette PNG named
``<page>-<desktop|phone>-<zh|en>.png``. Needs Debian's chromium (/usr/bin/chromium) and the dev
extras (playwright).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/dashboard/test_dashboard_browser.py::test_every_page_at_both_sizes_in_both_languages"
SHOTS = ROOT / "docs" / "screenshots"


def main() -> int:
    """Run the screenshot test in update mode; list what it wrote."""
    env = {**os.environ, "CHAODIPI_UPDATE_SCREENSHOTS": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TEST]
    status = subprocess.call(command, cwd=ROOT, env=env)
    for shot in sorted(SHOTS.glob("*-*-*.png")):
        print(f"{shot.relative_to(ROOT)}  {shot.stat().st_size // 1024} KiB")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
