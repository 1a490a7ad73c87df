"""Findings written from their parts in both languages, naming the players; a deal's difference;
the make-up of a score; a re-audit as a list of changes."""

from __future__ import annotations

import html
import random
import re
from datetime import UTC, datetime

import pytest
from dashboard_support import CJK, english_words

from chaodipi.auditor import CODES, audit_game
from chaodipi.auditor.faults import PLANTERS, plant
from chaodipi.auditor.generate import generate_hand
from chaodipi.dashboard import explain
from chaodipi.dashboard.i18n import TEXTS, t
from chaodipi.dashboard.render import finding_html, score_html
from chaodipi.dashboard.stepping import ReplayView
from chaodipi.engine.presets import PRESETS, get_ruleset
from chaodipi.service.readmodel import FINDING_CODES, StoredGame
from chaodipi.v1 import audit_pb2, records_pb2
from tests.auditor.scripted import scripted_hand

RULESETS = ("classic", "changshu", "shuangsheng", "botzone")


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


def generic_sentences(view: ReplayView, finding: audit_pb2.Finding) -> set[str]:
    """What a finding would read as with no sentence of its own (its code's title, or its bare
    evidence)."""
    title = explain.finding_title(finding.code, "zh")
    expected = explain.value_text(view, finding.code, finding.evidence.expected, "zh")
    recorded = explain.value_text(view, finding.code, finding.evidence.recorded, "zh")
    pos = finding.position
    who = explain.player(view, pos.seat, "zh") if pos.HasField("seat") else ""
    return {
        t("zh", "f.generic", expected=expected, recorded=recorded),
        t("zh", "f.generic_none", title=title),
        t("zh", "f.generic_player", player=who, title=title),
    }


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
        assert chinese not in generic_sentences(view, finding), (finding.code, chinese)
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


def test_every_finding_code_and_preset_has_its_words() -> None:
    """A title for every code the auditor knows (a new code needs one) and a name for every
    preset ruleset, in both languages."""
    assert sorted(c for c in CODES if f"code.{c}" not in TEXTS) == []
    assert sorted(r for r in PRESETS if f"ruleset.{r}" not in TEXTS) == []
    for code in CODES:
        assert explain.finding_title(code, "zh") != t("zh", "code.other", code=code)


def sentences(view: ReplayView, code: str) -> list[tuple[str, str, str]]:
    """The findings of ``code`` in ``view``: (Chinese, English, Chinese panel text)."""
    return [
        (
            explain.finding_sentence(view, finding, "zh"),
            explain.finding_sentence(view, finding, "en"),
            text_of(finding_html(view, index, frozenset(), "zh")),
        )
        for index, finding in enumerate(view.findings)
        if finding.code == code
    ]


def test_a_deal_short_of_many_cards_is_counted() -> None:
    """More cards than the auditor names (8) are counted in its evidence: the sentence and
    the panel give the count."""
    record = generate_hand("classic", 9)
    del record.draw_order.deck[-9:]
    view = view_of(record)
    deck = next(
        f for f in view.findings if f.code == "DEAL_INVALID" and not f.position.HasField("seat")
    )
    assert deck.evidence.recorded == "9 cards missing"
    assert explain.finding_sentence(view, deck, "zh") == "发牌不是 2 副整牌：缺 9 张。"
    shown = text_of(finding_html(view, list(view.findings).index(deck), frozenset(), "zh"))
    assert "缺少 9 张" in shown.replace("  ", " ") and not english_words(shown, record_words(view))
    seat = next(
        f for f in view.findings if f.code == "DEAL_INVALID" and f.position.HasField("seat")
    )
    assert "发到 22 张，规则集每人发 25 张" in explain.finding_sentence(view, seat, "zh")
    assert "was dealt 22 cards; the ruleset deals 25 cards" in explain.finding_sentence(
        view, seat, "en"
    )


def tie_hand(forced: str, overrides: str = "") -> ReplayView:
    """Seat 0 throws ♣2 ♥2 LJ under ♠ trump at level 2 and is forced ``forced``: ♣2 and ♥2 tie
    for the smallest beaten unit (R-THROW-FORCE-TIE)."""
    record = scripted_hand(
        "classic",
        ["C2 H2 LJ", "S2 BJ", "", ""],
        bids=[(1, "declare", "S2")],
        trump="S",
        levels=("2", "2"),
        leads={0: (forced, "C2 H2 LJ")},
    )
    record.ruleset_overrides_json = overrides
    return view_of(record)


def test_a_unit_forced_outside_the_tied_ones_names_them_all() -> None:
    ((zh, en, shown),) = sentences(tie_hand("LJ"), "THROW_ENFORCED_WRONGLY")
    assert zh.endswith("按规则应强制出并列最小的牌组之一：♥2、♣2。")
    assert en.endswith("the rule forces one of the tied smallest units, ♥2, ♣2.")
    assert "并列最小、都可强制出的牌组" in shown and "H2" not in shown


def test_a_variant_that_picks_among_tied_units_says_which() -> None:
    view = tie_hand("H2", '{"throw": {"forced_tie": "attempt_order"}}')
    ((zh, en, _),) = sentences(view, "THROW_ENFORCED_WRONGLY")
    assert "♥2，它是并列最小的牌组之一" in zh and zh.endswith("顶张最先出现的 ♣2。")
    assert "the one whose top card comes first in the attempt" in en


def stake_hand(ruleset: str, claimed: int) -> ReplayView:
    """Seat 0's throw of ♣A ♣J ♣J fails to seat 2's ♣Q ♣Q and is forced: one failed throw;
    the table claims ``claimed`` stake units."""
    record = scripted_hand(
        ruleset,
        ["CA CJ CJ", "", "CQ CQ", ""],
        bids=[(1, "declare", "S2")],
        trump="S",
        levels=("2", "2"),
        leads={0: ("CJ CJ", "CA CJ CJ")},
    )
    record.claim.stake_units = claimed
    return view_of(record)


def test_stake_units_claimed_wrongly() -> None:
    ((zh, en, _),) = sentences(stake_hand("shuangsheng", 0), "PENALTY_MISMATCH")
    assert zh == "每次失败的甩牌收一份底金，这一局应为 1 份，记录为 0 份。"
    assert en == "Each failed throw (甩牌) charges one stake unit: 1 in this hand; 0 were claimed."
    ((zh, _, _),) = sentences(stake_hand("classic", 2), "PENALTY_MISMATCH")
    assert zh == "这一局没有要收底金的失败甩牌，记录却声明了 2 份底金。"


def test_match_points_are_no_level_change() -> None:
    """Botzone's table gives match points for the deal: a wrong claim reads as points, and the
    score says no level moves."""
    view = planted("LEVEL_MISMATCH", "botzone")
    assert view is not None and view.scored
    ((zh, en, shown),) = sentences(view, "LEVEL_MISMATCH")
    points = view.audit.computed.defenders_points
    assert (
        zh.startswith(f"闲家得 {points} 分，这一局按比赛分计、不升级：应为")
        and "升级应为" not in zh
    )
    assert "match points for the deal" in en
    assert not english_words(shown, record_words(view))
    assert "按比赛分计这一局，不升级" in text_of(score_html(view, "zh"))


def test_an_incomplete_hand_names_who_still_holds_cards() -> None:
    record = generate_hand("classic", 4)
    del record.tricks[-3:]
    view = view_of(record)
    ((zh, en, _),) = sentences(view, "RECORD_INCOMPLETE")
    left = {
        seat.name: len(hand.cards)
        for seat, hand in zip(view.seats, view.steps[-1].hands, strict=True)
    }
    assert zh.startswith("这一局没有打完（") and all(left.values())
    assert all(
        f"{name} 还剩 {n} 张" in zh and f"{name} has {n} left" in en for name, n in left.items()
    )
    del record.tricks[:]
    ((zh, _, _),) = sentences(view_of(record), "RECORD_INCOMPLETE")
    assert zh == "一轮都没有出：不检查底牌、分数和升级。"


def test_each_open_rule_is_named() -> None:
    """UNSUPPORTED: rules of the record's program (importer metadata), a later hand without its
    dealer, a first hand at unequal levels, nobody declaring."""
    metadata = generate_hand("classic", 3)
    metadata.metadata["audit.unsupported"] = "rule_config lead_timer: unknown to the variant"
    unequal = generate_hand("classic", 3, first_hand=True, team_levels=(0, 3))
    unequal.ruleset_overrides_json = '{"bidding": {"first_hand_levels": "unsupported"}}'
    later = generate_hand("classic", 3)
    later.context.first_hand = False
    later.context.ClearField("dealer")
    nobody = generate_hand("classic", 3)
    nobody.context.first_hand = True
    nobody.context.ClearField("dealer")
    del nobody.bids[:]
    expected = {
        "f.unsupported_rules": metadata,
        "f.unsupported_levels": unequal,
        "f.unsupported_dealer": later,
        "f.unsupported_nobody": nobody,
    }
    for key, record in expected.items():
        view = view_of(record)
        ((zh, _, _),) = sentences(view, "UNSUPPORTED")
        ctx = record.context
        assert zh == t("zh", key, zero=ctx.team0_level, one=ctx.team1_level), key


def test_the_dealer_due_next_and_the_dealer_the_bidding_made() -> None:
    next_hand = planted("DEALER_MISMATCH", "classic")
    assert next_hand is not None
    ((zh, _, _),) = sentences(next_hand, "DEALER_MISMATCH")
    assert zh.startswith("下一局应由 ")
    # A later anhui hand whose record names the other seat of the team the bidding made dealer.
    found = plant(
        generate_hand("anhui", 1, first_hand=False, dealer=0), "DEALER_MISMATCH", random.Random(1)
    )
    assert found is not None
    ((zh, en, _),) = sentences(view_of(found[0]), "DEALER_MISMATCH")
    assert zh.startswith("按叫主的结果应由 ") and en.startswith("The bidding makes ")


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
