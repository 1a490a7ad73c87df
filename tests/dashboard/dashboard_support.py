"""Helpers of the dashboard tests: temporary databases and what is seeded in them."""

from __future__ import annotations

import re
from collections.abc import Iterable
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


CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")
"""Chinese characters and full-width punctuation."""

TECHNICAL = frozenset(
    {
        "API", "JSON", "protobuf", "pb", "json", "jsonl", "txt", "md", "UTC", "OIDC", "cdp",
        "chaodipi", "keys", "create", "secrets", "tenants", "Shift", "Home", "End", "Botzone",
        "Language", "English", "docs", "rules", "zh", "Tractor", "RL", "toml", "eighty",
    }
)  # fmt: skip
"""ASCII words a Chinese page may show: file types, commands, key names, names of things."""

DATA_WORD = re.compile(
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"  # finding codes: FOLLOW_REVOKE
    r"|\bR-[A-Z]+(?:-[A-Z]+)*\b"  # rulings: R-THROW-FORCE
    r"|\b[0-9a-f]{16}\b"  # game ids
    r"|\b\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?\b"  # dates
)


def english_words(text: str, data: Iterable[str] = ()) -> list[str]:
    """ASCII words of two letters or more left in ``text`` once the record's own text
    (``data``: names, ids), codes, rulings, ids, dates and ``TECHNICAL`` words are taken out:
    on a Chinese page, each is a string that was not translated."""
    for item in sorted(data, key=len, reverse=True):
        if item:
            text = text.replace(item, " ")
    text = DATA_WORD.sub(" ", text)
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in TECHNICAL]
