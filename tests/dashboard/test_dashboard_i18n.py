"""The catalogue of the dashboard's words: every key in both languages, Chinese really Chinese,
the same fields in both, every key the code asks for present and every key used."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest
from dashboard_support import CJK, english_words

from chaodipi.dashboard.i18n import TEXTS, pick_lang, t

DASHBOARD = Path(__file__).resolve().parents[2] / "dashboard"
SOURCES = sorted(p for p in DASHBOARD.rglob("*.py") if p.name != "i18n.py")
"""The code that asks for texts (the catalogue itself left out)."""

DYNAMIC_PREFIXES = (
    "code.",
    "ruleset.",
    "players.period_",
    "players.col_",
    "games.col_",
)
"""Keys the code builds from a prefix (a finding's code, a ruleset id, a column name)."""

NOT_CHINESE = frozenset({"common.none", "upload.problem", "upload.note"})
"""Keys whose Chinese text has no Chinese character: a symbol, a dash, a field alone."""


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_has_both_languages_with_the_same_fields() -> None:
    wrong = [
        key
        for key, (english, chinese) in TEXTS.items()
        if not english.strip() or not chinese.strip() or fields(english) != fields(chinese)
    ]
    assert not wrong, wrong


def test_chinese_texts_are_chinese() -> None:
    """Each Chinese text has Chinese in it and no English word outside its fields and its
    `code` spans (commands, file names)."""
    wrong = [
        f"{key}: {chinese!r}"
        for key, (_, chinese) in TEXTS.items()
        if key not in NOT_CHINESE
        and (not CJK.search(chinese) or english_words(re.sub(r"\{\w+\}|`[^`]*`", " ", chinese)))
    ]
    assert not wrong, wrong


def literal_keys() -> set[str]:
    """String constants in the dashboard's code that look like catalogue keys."""
    found: set[str] = set()
    key = re.compile(r"^[a-z]+\.[A-Za-z_]+$")
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and key.match(text):
                found.add(text)
    return found


def test_every_key_the_code_names_is_in_the_catalogue() -> None:
    namespaces = {key.split(".")[0] for key in TEXTS}
    named = {k for k in literal_keys() if k.split(".")[0] in namespaces}
    missing = sorted(named - set(TEXTS) - set(DYNAMIC_PREFIXES))
    assert not missing, missing


def test_every_key_of_the_catalogue_is_used() -> None:
    used = literal_keys()
    unused = sorted(k for k in TEXTS if k not in used and not k.startswith(DYNAMIC_PREFIXES))
    assert not unused, unused


def test_lookup_fills_fields_and_unknown_keys_fail() -> None:
    assert t("zh", "seat.player", name="Li Wei", seat=2) == "Li Wei（座位 2）"
    assert t("en", "seat.player", name="Li Wei", seat=2) == "Li Wei (seat 2)"
    with pytest.raises(KeyError):
        t("zh", "no.such-key")


@pytest.mark.parametrize(
    ("url", "setting", "browser", "chosen"),
    [
        ("en", "zh", "zh-CN", "en"),  # the URL first
        (None, "en", "zh-CN", "en"),  # then the setting
        ("fr", "xx", "zh-TW", "zh"),  # unknown values are skipped; the browser decides
        (None, None, "en-US", "en"),
        (None, None, None, "zh"),  # Chinese first
    ],
)
def test_the_language_comes_from_the_url_the_setting_or_the_browser(
    url: str | None, setting: str | None, browser: str | None, chosen: str
) -> None:
    assert pick_lang(url, setting, browser) == chosen
