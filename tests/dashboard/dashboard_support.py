"""Helpers of the dashboard tests: temporary databases and what is seeded in them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from chaodipi.service.db import make_engine
from chaodipi.service.migrate import upgrade

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


@dataclass(frozen=True, slots=True)
class Seeded:
    """A seeded database: its URL and the ids of games with a known planted fault."""

    url: str
    revoke: str
    throw: str
    clean: str


def make_db(path: Path) -> str:
    """A migrated, empty SQLite database at ``path``."""
    url = f"sqlite:///{path}"
    upgrade(make_engine(url))
    return url
