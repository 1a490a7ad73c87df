"""The rule texts a finding opens: read from the installed docs (``chaodipi.docs``), one section
per ruling id, in both languages."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest
from dashboard_support import english_words

from chaodipi.auditor import CODES
from chaodipi.dashboard import rules
from chaodipi.dashboard.rules import find_ruling, parse_rulings, ruling_for

DOCS = Path(__file__).resolve().parents[2] / "docs"

SAMPLE = """# Rules

Intro text.

## R-FOLLOW — following
Play as many cards as were led.

### R-FOLLOW-SUIT: follow suit
Follow the led suit while you can.

```toml
## R-NOT-A-HEADING inside a fence
```

#### R-FOLLOW-SHAPE
Match the shape.

## §1 — the deck
Two decks.

# R-TOP-LEVEL is a level-1 heading, not a ruling
"""


def test_rulings_are_headings_of_level_2_to_4_starting_with_their_id() -> None:
    found = parse_rulings(SAMPLE)
    assert sorted(found) == ["R-FOLLOW", "R-FOLLOW-SHAPE", "R-FOLLOW-SUIT"]  # §1 is no ruling
    assert found["R-FOLLOW"].title == "following"
    assert found["R-FOLLOW-SUIT"].title == "follow suit"
    assert (
        found["R-FOLLOW-SHAPE"].title == "" and found["R-FOLLOW-SHAPE"].text == "Match the shape."
    )


def test_a_ruling_holds_its_sub_rulings_and_fenced_text() -> None:
    found = parse_rulings(SAMPLE)
    follow = found["R-FOLLOW"].text
    assert follow.startswith("Play as many cards") and "R-FOLLOW-SUIT" in follow
    assert "## R-NOT-A-HEADING" in found["R-FOLLOW-SUIT"].text  # kept as text of the fence
    assert "Two decks" not in follow


def test_an_id_needs_a_boundary() -> None:
    assert sorted(parse_rulings("## R-THROWING is not R-THROW\n## R-THROW-X1\n")) == ["R-THROWING"]


def test_a_missing_ruling_falls_back_to_its_parent() -> None:
    found = parse_rulings(SAMPLE)
    assert find_ruling(found, "R-FOLLOW-CS").rule_id == "R-FOLLOW"  # type: ignore[union-attr]
    assert find_ruling(found, "R-FOLLOW-SUIT").rule_id == "R-FOLLOW-SUIT"  # type: ignore[union-attr]
    assert find_ruling(found, "R-BID") is None and find_ruling(found, "§1") is None


def test_the_rules_documents_are_installed_as_data() -> None:
    for name in rules.FILES.values():
        installed = (resources.files("chaodipi.docs") / name).read_text(encoding="utf-8")
        assert installed == (DOCS / name).read_text(encoding="utf-8")


def rule_ids() -> list[str]:
    return sorted({code.rule for code in CODES.values() if code.rule})


@pytest.mark.parametrize("rule_id", rule_ids())
def test_every_ruling_a_finding_cites_has_a_chinese_text(rule_id: str) -> None:
    found = rules.rulings("zh")
    assert rule_id in found, f"docs/rules.zh.md has no heading for {rule_id}"
    assert re.search(r"[\u4e00-\u9fff]", found[rule_id].text)


def test_every_english_ruling_has_a_chinese_text() -> None:
    """The contract with docs/rules.md: the same ids, one heading each (`### R-… — title`)."""
    english, chinese = rules.rulings("en"), rules.rulings("zh")
    assert set(english) <= set(chinese), sorted(set(english) - set(chinese))


def headings(name: str) -> list[str]:
    """The document's headings outside fenced code: their level, and the ruling id of a
    ruling's heading (a section's own title is the language's)."""
    out, fenced = [], False
    for line in (DOCS / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            marks, _, title = line.partition(" ")
            ruling = re.match(r"R-[A-Z]+(?:-[A-Z]+)*", title)
            out.append(marks + (" " + ruling.group() if ruling else ""))
    return out


def test_the_chinese_rules_have_the_structure_of_the_english_ones() -> None:
    """docs/rules.zh.md translates docs/rules.md section by section: the same sections in the
    same order, each ruling under the same id at the same level."""
    assert headings("rules.zh.md") == headings("rules.md")


def test_the_chinese_rulings_read_in_chinese() -> None:
    """A ruling's Chinese text is what the Chinese replay page shows beside a finding: no
    English outside its `code` spans (field names, ruleset ids, tokens)."""
    english = {
        rule_id: words
        for rule_id, ruling in rules.rulings("zh").items()
        if (words := english_words(re.sub(r"`[^`]*`", " ", f"{ruling.title}\n{ruling.text}")))
    }
    assert english == {}


def test_the_chinese_rules_name_every_ruling_of_the_english_document_as_headings() -> None:
    """Every id the English rules text mentions has a Chinese section (so a finding's rule can
    open in Chinese whichever id the English document gives it)."""
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    mentioned = set(re.findall(r"\bR-[A-Z]+(?:-[A-Z]+)*\b", text))
    assert mentioned <= set(rules.rulings("zh")), sorted(mentioned - set(rules.rulings("zh")))


def test_a_text_missing_in_one_language_comes_from_the_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    only_chinese = {"R-X": rules.Ruling("R-X", "题", "中文")}
    monkeypatch.setattr(rules, "rulings", lambda lang: only_chinese if lang == "zh" else {})
    assert ruling_for("en", "R-X") == (only_chinese["R-X"], "zh")
    assert ruling_for("zh", "R-X") == (only_chinese["R-X"], "zh")
    assert ruling_for("en", "R-Y") is None
