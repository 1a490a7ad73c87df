"""docs/rules.md states every ruling the code names, under a heading the dashboard can find.

The dashboard shows a finding's rule text by its id, reading headings such as
``### R-THROW-FORCE — the forced unit of a failed throw``; the repository never points outside
itself for a rule.
"""

from __future__ import annotations

import re
from pathlib import Path

from chaodipi.auditor.codes import CODES

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
HEADING = re.compile(r"^#{2,4} (R-[A-Z-]+)\b", re.MULTILINE)
RULING = re.compile(r"\bR-[A-Z][A-Z-]*[A-Z]\b")
SKIPPED_DIRS = {"build", "node_modules", "__pycache__"}


def _headings() -> list[str]:
    return HEADING.findall(RULES.read_text(encoding="utf-8"))


def _sources(*folders: str) -> list[Path]:
    return [path for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))]


def test_rules_doc_every_ruling_has_one_heading() -> None:
    headings = _headings()
    assert len(headings) == len(set(headings)), "a ruling id heads two sections"
    named = {code.rule for code in CODES.values()}
    for path in _sources("engine", "auditor"):
        named.update(RULING.findall(path.read_text(encoding="utf-8")))
    assert sorted(named - set(headings)) == []


def test_rules_doc_every_finding_code_names_a_ruling_id() -> None:
    assert sorted(c.name for c in CODES.values() if not re.fullmatch(r"R-[A-Z-]+", c.rule)) == []


def test_rules_doc_each_ruling_states_a_rule() -> None:
    # Under every ruling heading, text before the next heading: the dashboard shows it.
    text = RULES.read_text(encoding="utf-8")
    sections = re.split(r"^#{2,4} ", text, flags=re.MULTILINE)
    bodies = {s.split(" ", 1)[0]: s.split("\n", 1)[1].strip() for s in sections if s[:2] == "R-"}
    assert [ruling for ruling, body in bodies.items() if len(body) < 80] == []


def _text_files() -> list[Path]:
    found = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if any(p.startswith(".") or p in SKIPPED_DIRS or p.endswith(".egg-info") for p in parts):
            continue
        if path.is_file() and path.suffix in {".md", ".py", ".toml", ".txt", ".sh", ".cfg"}:
            found.append(path)
    return found


def test_the_repository_never_points_outside_itself_for_a_rule() -> None:
    outside = ("../" + "shared", "shared/" + "spec", "rules-" + "sources")
    pointing = [
        str(path.relative_to(ROOT))
        for path in _text_files()
        if any(mark in path.read_text(encoding="utf-8", errors="replace") for mark in outside)
    ]
    assert pointing == []
