"""Helpers of the dashboard tests: temporary databases and what is seeded in them, a free port
and the dashboard's health check (for tests that start it)."""

from __future__ import annotations

import html
import json
import re
import socket
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from google.protobuf.message import Message

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
        "Language", "English", "docs", "rules", "zh", "Tractor", "RL", "toml", "eighty", "Godot",
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


# Proto fields of Streamlit's elements that carry what a person reads (ids, icons, URLs and
# the like are left out).
_SHOWN_FIELDS = frozenset(
    {"label", "help", "body", "placeholder", "content", "options", "raw_value", "value"}
)
_CHART_TEXT = ("text", "name", "hovertext", "ticktext", "title")


def _chart_texts(spec: str) -> Iterator[str]:
    """Titles, names, tick labels and hover texts of a Plotly figure's JSON."""

    def walk(node: object, key: str = "") -> Iterator[str]:
        if isinstance(node, dict):
            for k, v in node.items():
                yield from walk(v, k)
        elif isinstance(node, list):
            for v in node:
                yield from walk(v, key)
        elif isinstance(node, str) and key in _CHART_TEXT:
            yield html.unescape(re.sub(r"<[^>]+>", " ", node))

    figure = json.loads(spec)
    yield from walk(figure.get("layout", {}))
    for trace in figure.get("data", []):
        yield from walk({k: v for k, v in trace.items() if k in _CHART_TEXT})


def page_texts(at: object) -> list[str]:
    """Every text an AppTest page shows a person: titles, labels, help, options, Markdown
    (without its `code` spans), HTML (its text, not its tags; no scripts or styles), alerts
    and chart texts."""
    out: list[str] = []

    def strings(message: Message) -> None:
        for field, value in message.ListFields():
            for item in value if field.is_repeated else [value]:
                if isinstance(item, Message):
                    strings(item)
                elif isinstance(item, str) and field.name in _SHOWN_FIELDS:
                    out.append(item)

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        kind = getattr(node, "type", "")
        if kind == "plotly_chart" and isinstance(proto, Message):
            out.extend(_chart_texts(getattr(proto, "spec", "{}")))
        elif kind == "html" and isinstance(proto, Message):
            body = str(getattr(proto, "body", ""))
            if not body.lstrip().startswith(("<script", "<style")):
                out.append(html.unescape(re.sub(r"<[^>]+>", " ", body)))
        elif kind not in ("code",) and isinstance(proto, Message):
            strings(proto)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return [re.sub(r"`[^`]*`", " ", text) for text in out]


def untranslated(at: object, data: Iterable[str]) -> list[str]:
    """The texts of a page that hold English words (see ``english_words``)."""
    words = list(data)
    return [text for text in page_texts(at) if english_words(text, words)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def healthy(base: str) -> bool:
    """Whether the dashboard at ``base`` (``http://host:port``) answers its health check."""
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False
