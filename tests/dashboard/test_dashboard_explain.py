"""Findings written from their parts in both languages, naming the players; a deal's difference;
the make-up of a score; a re-audit as a list of changes."""

from __future__ import annotations

import html
import random
import re
from datetime import UTC, datetime

import pytest
from dashboard_support import CJK, english_words

from chaodipi.auditor import audit_game
from chaodipi.auditor.faults import PLANTERS, plant
from chaodipi.auditor.generate import generate_hand
from chaodipi.dashboard import explain
from chaodipi.dashboard.render import finding_html, score_html
from chaodipi.dashboard.stepping import ReplayView
from chaodipi.engine.presets import get_ruleset
from chaodipi.service.readmodel import FINDING_CODES, StoredGame
from chaodipi.v1 import audit_pb2, records_pb2

RULESETS = ("classic", "changshu")


def view_of(record: records_pb2.GameRecord) -> ReplayView:
    now = datetime(2026, 10, 1, tzinfo=UTC)
    game = StoredGame("g1", "", now, now, None, None, record, audit_game(record))
    return ReplayView(game.replay())


def planted(code: str, ruleset: str) -> ReplayView | None:
    for seed in range(1, 40):
        found = plant(generate_hand(ruleset, seed), code, random.Random(seed))
        if found is not None:
            return view_of(found[0])
    return None


def text_of(markup: str) -> str:
    """The text a browser shows of some HTML (tags and attributes dropped)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def record_words(view: ReplayView) -> set[str]:
    """Text a page may show as it is: the record's names and id, the finding codes."""
    players = view.record.players
    return (
        {p.display_name for p in players}
        | {p.id for p in players}
        | {
            view.record.record_id,
            *FINDING_CODES,
        }
    )


CASES = [(code, ruleset) for code in sorted(PLANTERS) for ruleset in RULESETS]


@pytest.mark.parametrize(("code", "ruleset"), CASES)
def test_every_finding_reads_in_chinese_and_english_naming_the_players(
    code: str, ruleset: str
) -> None:
    view = planted(code, ruleset)
    if view is None:
        pytest.skip(f"no {ruleset} hand takes {code}")
    assert any(f.code == code for f in view.findings)
    data = record_words(view)
    for index, finding in enumerate(view.findings):
        chinese = explain.finding_sentence(view, finding, "zh")
        english = explain.finding_sentence(view, finding, "en")
        assert CJK.search(chinese) and not english_words(chinese, data), chinese
        assert not CJK.search(english.replace("抠底", "").replace("甩牌", "")), english
        if finding.position.HasField("seat"):
            name = view.seats[finding.position.seat].name
            assert name in chinese and name in english, (chinese, english)
            assert f"seat {finding.position.seat}" not in chinese
        shown = text_of(finding_html(view, index, view.trumps(0), "zh"))
        assert not english_words(shown, data), (finding.code, english_words(shown, data))
        assert explain.finding_title(finding.code, "zh") in shown
        assert finding.message in text_of(finding_html(view, index, view.trumps(0), "en"))


def test_a_deal_shows_only_what_is_missing_or_extra() -> None:
    record = generate_hand("classic", 5)
    deck = record.draw_order.deck
    deck[0] = next(card for card in deck if card != deck[0])  # one card twice, another gone
    view = view_of(record)
    deal = next(f for f in view.findings if f.code == "DEAL_INVALID")
    index = list(view.findings).index(deal)
    shown = finding_html(view, index, frozenset(), "zh")
    assert "多出" in shown and "缺少" in shown and "应为" not in shown
    assert shown.count('class="cdp-card') == 2  # one extra card and one missing card
    assert explain.finding_sentence(view, deal, "zh") == "发牌不是 2 副整牌：多 1 张，缺 1 张。"


def test_a_skeleton_deal_sums_up_the_missing_deck() -> None:
    missing = " ".join(f"♠{r}" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10") * 3)
    evidence = audit_pb2.Evidence(
        expected="3 copies of each of the 54 cards", recorded="missing " + missing
    )
    finding = audit_pb2.Finding(code="DEAL_INVALID", evidence=evidence)
    view = view_of(generate_hand("changshu", 2))
    view.findings.append(finding)
    shown = finding_html(view, len(view.findings) - 1, frozenset(), "en")
    assert shown.count('class="cdp-card') == 9 and shown.count("×3") == 9
    assert explain.finding_sentence(view, finding, "en") == (
        "The deal is not 3 whole decks: 27 missing."
    )


@pytest.mark.parametrize("ruleset", ["classic", "shuangsheng", "anhui", "changshu"])
def test_a_score_is_the_sum_of_its_parts(ruleset: str) -> None:
    for seed in range(1, 12):
        view = view_of(generate_hand(ruleset, seed))
        parts = explain.score_parts(view)
        assert parts is not None
        assert parts.tricks + parts.penalties + parts.kitty_bonus + parts.last_trick == parts.total
        assert parts.kitty_bonus == parts.kitty_points * parts.kitty_multiplier
        if ruleset != "changshu":
            assert parts.last_trick == 0
        shown = text_of(score_html(view, "zh"))
        assert "闲家总分" in shown and str(parts.total) in shown


def test_changshu_counts_the_last_trick_again_when_defenders_take_it() -> None:
    extra = []
    for seed in range(1, 30):
        parts = explain.score_parts(view_of(generate_hand("changshu", seed)))
        assert parts is not None
        if parts.kitty_multiplier:
            extra.append(parts.last_trick)
    assert any(extra), "no changshu hand where the defenders took the last trick with points"
    assert "最后一轮的分再算一次" in "".join(
        score_html(view_of(generate_hand("changshu", seed)), "zh") for seed in range(1, 30)
    )


def test_an_unscored_hand_says_so() -> None:
    record = generate_hand("classic", 4)
    del record.tricks[-3:]
    view = view_of(record)
    assert explain.score_parts(view) is None
    assert "没有计分" in score_html(view, "zh")


def test_a_reaudit_lists_what_appears_disappears_and_changes_in_hand_order() -> None:
    record = planted("FOLLOW_REVOKE", "classic")
    assert record is not None
    stored = list(record.stored.findings)
    other = record.replay.game.reaudit(get_ruleset("changshu"))
    changes = explain.audit_changes(stored, other.findings)
    assert changes, "classic and changshu differ on this hand"
    kinds = {c.kind for c in changes}
    assert kinds <= {"appears", "disappears", "changes"}
    places = [
        (
            c.finding.position.phase,
            c.finding.position.trick if c.finding.position.HasField("trick") else -1,
        )
        for c in changes
    ]
    assert places == sorted(places)
    assert explain.audit_changes(stored, stored) == []
    gone = explain.audit_changes(stored, stored[1:])
    assert [c.kind for c in gone] == ["disappears"] and gone[0].before == stored[0]
    changed = audit_pb2.Finding()
    changed.CopyFrom(stored[0])
    changed.evidence.recorded = "S2"
    moved = explain.audit_changes(stored, [changed, *stored[1:]])
    assert [c.kind for c in moved] == ["changes"] and moved[0].after == changed


@pytest.mark.parametrize(
    ("short", "zh", "en"),
    [
        ("D+0", "庄家保庄", "dealer side keeps the deal"),
        ("D+3", "庄家升 3 级", "dealer side up 3"),
        ("swap", "换庄", "defenders take the deal"),
        ("A+2", "闲家上台并升 2 级", "defenders take the deal and go up 2"),
        ("dealer side wins the match", "庄家方赢得整场", "dealer side wins the match"),
    ],
)
def test_level_changes_in_words(short: str, zh: str, en: str) -> None:
    assert explain.level_text(short, "zh") == zh and explain.level_text(short, "en") == en


def test_evidence_values_in_words() -> None:
    view = view_of(generate_hand("classic", 3))
    name = view.seats[2].name
    assert explain.value_text(view, "OUT_OF_TURN", "2", "zh") == f"{name}（座位 2）"
    assert explain.value_text(view, "TRUMP_MISMATCH", "level 2 diamonds", "zh") == "打 2，♦ 为主"
    assert explain.value_text(view, "TRUMP_MISMATCH", "level 5 no-trump", "en") == (
        "level 5, no trump"
    )
    assert explain.value_text(view, "LEVEL_MISMATCH", "team 1", "zh") == "1 队"
    assert explain.value_text(view, "FOLLOW_REVOKE", "BJ ST", "zh") == "大王 ♠10"
    assert explain.value_text(view, "TRICK_POINTS_MISMATCH", "10", "zh") == "10"
