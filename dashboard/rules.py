"""The rule texts a finding points at, read from the project's own docs (``docs/rules.md`` and
``docs/rules.zh.md``, installed as the data package ``chaodipi.docs``).

Each ruling is a Markdown heading of level 2 to 4 that starts with its id, e.g.
``### R-THROW-FORCE — the forced unit``; its text runs to the next heading of the same or a
higher level (so a ruling's sub-rulings are part of it). Ids are ``R-…`` rulings; any other
heading only ends the ruling before it. Headings inside fenced code blocks are not headings.

>>> rulings = parse_rulings('''# Rules
... ## R-THROW — throwing
... A throw is several units.
... ### R-THROW-FORCE: the forced unit
... The smallest beaten unit.
... ## Other
... ''')
>>> sorted(rulings), rulings["R-THROW-FORCE"].title, rulings["R-THROW-FORCE"].text
(['R-THROW', 'R-THROW-FORCE'], 'the forced unit', 'The smallest beaten unit.')
>>> "R-THROW-FORCE" in rulings["R-THROW"].text
True
>>> find_ruling(rulings, "R-THROW-CHECK").rule_id     # no text of its own: its parent's
'R-THROW'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from chaodipi.dashboard.i18n import Lang

FILES: dict[Lang, str] = {"en": "rules.md", "zh": "rules.zh.md"}
"""The rules document of each language, in ``chaodipi.docs``."""

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RULING = re.compile(r"^(R-[A-Z]+(?:-[A-Z]+)*)(?![\w-])\s*(?:[—–:-]+\s*)?(.*)$")


@dataclass(frozen=True, slots=True)
class Ruling:
    """One ruling: its id, the rest of its heading and its Markdown text."""

    rule_id: str
    title: str
    text: str


def parse_rulings(markdown: str) -> dict[str, Ruling]:
    """The rulings of a rules document by id (the first, when an id heads two sections).

    One pass over the lines, then one slice per ruling: O(lines)."""
    lines = markdown.splitlines()
    headings: list[tuple[int, int, str]] = []  # (line, level, heading text)
    fenced = False
    for number, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = _HEADING.match(line)
        if match and not fenced:
            headings.append((number, len(match.group(1)), match.group(2)))
    rulings: dict[str, Ruling] = {}
    for i, (number, level, heading) in enumerate(headings):
        ruling = _RULING.match(heading)
        if ruling is None or not 2 <= level <= 4 or ruling.group(1) in rulings:
            continue
        end = next((n for n, lvl, _ in headings[i + 1 :] if lvl <= level), len(lines))
        text = "\n".join(lines[number + 1 : end]).strip()
        rulings[ruling.group(1)] = Ruling(ruling.group(1), ruling.group(2).strip(), text)
    return rulings


def find_ruling(rulings: dict[str, Ruling], rule_id: str) -> Ruling | None:
    """The ruling ``rule_id``, else its nearest parent that has a text (``R-FOLLOW`` for
    ``R-FOLLOW-SUIT``), else None."""
    wanted = rule_id.strip()
    while wanted:
        if wanted in rulings:
            return rulings[wanted]
        if "-" not in wanted.removeprefix("R-"):
            return None
        wanted = wanted.rsplit("-", 1)[0]
    return None


@cache
def rulings(lang: Lang) -> dict[str, Ruling]:
    """The rulings of the installed rules document of ``lang`` (empty when it is missing)."""
    try:
        text = (resources.files("chaodipi.docs") / FILES[lang]).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    return parse_rulings(text)


def ruling_for(lang: Lang, rule_id: str) -> tuple[Ruling, Lang] | None:
    """The text of ``rule_id`` in ``lang``, else in the other language (the second value says
    which); None when neither document has it."""
    other: Lang = "en" if lang == "zh" else "zh"
    for source in (lang, other):
        found = find_ruling(rulings(source), rule_id)
        if found is not None:
            return found, source
    return None
