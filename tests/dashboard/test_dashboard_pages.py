"""Every page under Streamlit's AppTest, in both languages, against temporary databases."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from dashboard_support import APP, Seeded, make_db, page_texts, untranslated
from streamlit.testing.v1 import AppTest

from chaodipi import importers
from chaodipi.auditor.generate import generate_hand
from chaodipi.dashboard.i18n import t
from chaodipi.dashboard.uploads import formats_text
from chaodipi.service.db import ENV_URL
from chaodipi.service.ingest import ingest_records
from chaodipi.service.readmodel import FINDING_CODES, ReadModel
from chaodipi.v1 import records_pb2

TIMEOUT = 60
PAGES = ("overview", "replay", "games", "players", "upload")


def app() -> AppTest:
    """The dashboard, not yet run."""
    return AppTest.from_file(str(APP), default_timeout=TIMEOUT)


def page(name: str, lang: str = "zh", **params: str) -> AppTest:
    """The dashboard switched to one of its pages and run, with URL query parameters."""
    at = app()
    at.query_params.update({"lang": lang, **params})
    at.run()
    if name != "overview":
        at.switch_page(f"app_pages/{name}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def html_of(at: AppTest) -> str:
    return "".join(str(h.proto.body) for h in at.get("html"))


def shown(at: AppTest) -> str:
    return "\n".join(page_texts(at))


def data_words(url: str) -> set[str]:
    """What a page may show untranslated: the tenant's names and ids, codes and its name."""
    model = ReadModel.open(url)
    words = set(FINDING_CODES) | {"default"}
    for player in model.players():
        words |= {player.player_id, player.display_name}
    for game in model.games(page_size=500).games:
        words |= {game.record_id, game.game_id}
    return words


def test_empty_database_offers_samples_and_loads_them(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_URL, make_db(tmp_path / "empty.db"))
    at = page("overview")
    assert any("数据库是空的" in s.value for s in at.subheader)
    at.button(key="load-samples").click().run()
    assert not at.exception
    assert any("示例对局已载入" in s.value for s in at.success)
    assert at.metric[0].value != "0"


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("zh", ["对局", "有问题的对局", "违规", "牌手"]),
        ("en", ["Games", "With findings", "Breaches", "Players"]),
    ],
)
def test_overview_counts_in_either_language(
    seeded_env: Seeded, lang: str, labels: list[str]
) -> None:
    at = page("overview", lang)
    assert [m.label for m in at.metric] == labels
    assert len(at.get("plotly_chart")) == 1


@pytest.mark.parametrize("name", PAGES)
def test_no_page_shows_english_in_chinese(seeded_env: Seeded, name: str) -> None:
    """Every text a page shows (labels, help, options, Markdown, HTML, alerts, chart titles and
    legends) holds no English word besides the record's own names and ids, finding codes and
    ruling ids, and a few technical words (file types, key names); see ``english_words``."""
    at = page(name, "zh")
    assert not untranslated(at, data_words(seeded_env.url))
    assert len(page_texts(at)) > 10


def test_no_replay_state_shows_english_in_chinese(seeded_env: Seeded) -> None:
    """The replay at a throw's finding (evidence, rule text), at the end (the score's make-up)
    and after a re-audit (the changes)."""
    words = data_words(seeded_env.url)
    at = page("replay", "zh", game=seeded_env.throw)
    at.button(key="next-finding").click().run()
    assert "cdp-finding" in html_of(at) and not untranslated(at, words)
    at.button(key="last-step").click().run()
    assert "闲家总分" in shown(at) and not untranslated(at, words)
    at.selectbox(key="reaudit-ruleset").select("changshu").run()
    at.button(key="reaudit").click().run()
    assert not at.exception and "闲家得分" in shown(at) and not untranslated(at, words)
    at.button(key="analyse").click().run()
    assert not at.exception and "分析" in html_of(at) and not untranslated(at, words)


def test_replay_analysis_shows_each_plays_cost_and_the_best_line(seeded_env: Seeded) -> None:
    at = page("replay", "en", game=seeded_env.clean)
    at.button(key="analyse").click().run()
    assert not at.exception
    assert "cdp-analysis" in html_of(at) and "under perfect play from trick" in html_of(at)


def test_replay_analysis_takes_the_number_of_tricks_asked_for(seeded_env: Seeded) -> None:
    at = page("replay", "en", game=seeded_env.clean)
    stored = ReadModel.open(seeded_env.url).game(seeded_env.clean)
    assert stored is not None
    window = at.number_input(key=f"analysis-window-{seeded_env.clean}")
    assert window.value == stored.analysis_window  # the ruleset's window, 4 or 5
    window.set_value(2).run()
    at.button(key="analyse").click().run()
    assert not at.exception
    found = re.search(r"Tricks (\d+)–(\d+)", html_of(at))
    assert found is not None and int(found[2]) - int(found[1]) == 1


def test_replay_steps_forward_back_by_trick_to_findings_and_the_ends(seeded_env: Seeded) -> None:
    at = page("replay", "en", game=seeded_env.revoke)
    assert at.session_state["step"] == 1
    at.button(key="next-play").click().run()
    assert at.session_state["step"] == 2 and at.query_params["step"] == "2"
    at.button(key="back-play").click().run()
    assert at.session_state["step"] == 1
    at.button(key="next-trick").click().run()
    assert at.session_state["step"] > 2 and "Trick 1 complete" in shown(at)
    at.button(key="back-trick").click().run()
    assert at.session_state["step"] == 1
    at.button(key="next-finding").click().run()
    assert not at.exception
    found = at.session_state["step"]
    assert 'data-code="FOLLOW_REVOKE"' in html_of(at) and " alt" in html_of(at)
    at.button(key="last-step").click().run()
    last = at.session_state["step"]
    assert last > found and at.button(key="next-play").disabled
    at.button(key="prev-finding").click().run()
    assert found <= at.session_state["step"] < last and "cdp-finding" in html_of(at)
    at.button(key="first-step").click().run()
    assert at.session_state["step"] == 1 and at.button(key="back-play").disabled
    at.selectbox(key="jump-trick").select(3).run()
    assert "Trick 3 complete" in shown(at)
    assert at.query_params["game"] == seeded_env.revoke


def test_replay_opens_the_step_in_its_link(seeded_env: Seeded) -> None:
    at = page("replay", "zh", game=seeded_env.revoke, step="30")
    assert at.session_state["step"] == 30 and "第 30 步" in shown(at)
    link = at.get("code")[0].proto.code_text
    assert link == f"replay?game={seeded_env.revoke}&step=30&lang=zh"
    at.button(key="next-play").click().run()
    assert at.query_params["step"] == "31" and "step=31" in at.get("code")[0].proto.code_text
    too_far = page("replay", "zh", game=seeded_env.revoke, step="100000")
    assert too_far.session_state["step"] > 30 and too_far.button(key="next-play").disabled


def test_replay_opens_a_game_by_its_record_id(seeded_env: Seeded) -> None:
    """Issue 15: ``?game=classic-1000`` (a record id) opens that game."""
    games = ReadModel.open(seeded_env.url).games(page_size=100).games
    record_id = next(g.record_id for g in games if g.game_id == seeded_env.revoke)
    at = page("replay", "en", game=record_id)
    assert at.session_state["step-game"] == seeded_env.revoke and record_id in shown(at)
    assert f"replay?game={record_id}&" in at.get("code")[0].proto.code_text


def test_replay_without_a_game_picks_one_with_findings(seeded_env: Seeded) -> None:
    at = page("replay", "zh")
    assert at.session_state["step-game"] and at.button(key="next-finding").disabled is False


def test_replay_of_an_unknown_game(seeded_env: Seeded) -> None:
    at = page("replay", "zh", game="nope")
    assert any("没有找到对局 nope" in e.value for e in at.error)


def test_a_finding_opens_its_rule_in_the_chosen_language(seeded_env: Seeded) -> None:
    at = page("replay", "zh", game=seeded_env.revoke)
    at.button(key="next-finding").click().run()
    rule = next(e for e in at.expander if e.label.startswith("规则 R-FOLLOW-SUIT"))
    assert "跟花色" in rule.label and any("必须全部出" in m.value for m in rule.markdown)


def test_the_picker_searches_every_game_and_opens_the_pick_at_its_start(seeded_env: Seeded) -> None:
    at = page("replay", "zh", game=seeded_env.revoke, step="20")
    at.text_input(key="game-search").input("changshu").run()
    options = at.selectbox(key="game-pick").options
    assert len(options) > 1 and all("常熟" in o for o in options[1:])
    at.selectbox(key="game-pick").select_index(1).run()
    assert at.session_state["step"] == 1 and at.query_params["game"] != seeded_env.revoke


def test_the_downloads_come_from_the_stored_audit(seeded_env: Seeded) -> None:
    at = page("replay", "en", game=seeded_env.revoke)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == [
        "Annotated replay (notation, .txt)",
        "Record and stored audit (protobuf JSON)",
    ]


def test_games_search_filters_and_states(seeded_env: Seeded) -> None:
    at = page("games", "en")
    table = html_of(at)
    everything = table.count("<tr>") - 1
    assert everything >= 11 and 'data-total="' in table and "None" not in table
    at.segmented_control(key="state").set_value("clean").run()
    assert "FOLLOW_REVOKE" not in html_of(at) and html_of(at).count("<tr>") - 1 < everything
    at.segmented_control(key="state").set_value("findings").run()
    assert "clean</td>" not in html_of(at)
    at.segmented_control(key="state").set_value("all").run()
    at.selectbox(key="code").select("FOLLOW_REVOKE").run()
    assert html_of(at).count("<tr>") - 1 == 1 and f"game={seeded_env.revoke}" in html_of(at)
    at.selectbox(key="code").select(None).run()
    at.text_input(key="q").input("anhui").run()
    assert "anhui" in html_of(at) and "classic-" not in html_of(at)
    player = at.selectbox(key="player").options[0]
    at.selectbox(key="player").select_index(0).run()
    assert not at.exception and player
    assert len(at.get("plotly_chart")) == 1


def test_games_filters_come_from_the_url(seeded_env: Seeded) -> None:
    at = page("games", "zh", ruleset="anhui", state="findings")
    assert at.selectbox(key="ruleset").value == "anhui"
    assert "Godot 升级" in at.selectbox(key="ruleset").options  # every preset's games are stored
    rows = html_of(at).count("<tr>") - 1
    assert rows >= 1 and "安徽炒地皮" in html_of(at) and "经典炒地皮" not in html_of(at)


def test_games_pages_with_totals(many_env: str) -> None:
    at = page("games", "en")
    total = ReadModel.open(many_env).games().total
    assert f"{total} games match; page 1 of 3 (1–50)" in shown(at)
    at.button(key="games-next").click().run()
    assert "page 2 of 3 (51–100)" in shown(at) and at.query_params["page"] == "2"
    at.button(key="games-next").click().run()
    assert f"page 3 of 3 (101–{total})" in shown(at) and at.button(key="games-next").disabled
    again = page("games", "en", page="2")
    assert "page 2 of 3" in shown(again)


def test_players_page_compares_two_players_without_none(seeded_env: Seeded) -> None:
    at = page("players", "en")
    assert len(at.get("plotly_chart")) == 5
    at.selectbox(key="vs").select_index(0).run()
    assert not at.exception
    summary = shown(at)
    for label in (
        "win rate as dealer side",
        "win rate as defenders",
        "defenders' points per defending hand",
        "throws (甩牌) that stood",
        "kitty captures (抠底)",
        "levels per match",
        "breaches per 100 hands",
    ):
        assert label in summary
    assert html_of(at).count('class="num"') >= 20 and "None" not in html_of(at)
    at.segmented_control(key="period").set_value("match").run()
    assert not at.exception and "(match)" in shown(at)


def test_players_endgames_give_points_lost_per_hand_in_both_languages(seeded_env: Seeded) -> None:
    at = page("players", "en")
    at.button(key="endgames").click().run()
    assert not at.exception and "points lost per hand" in shown(at)
    chinese = page("players", "zh")
    chinese.button(key="endgames").click().run()
    words = data_words(seeded_env.url)
    assert not chinese.exception and "每局损失" in shown(chinese)
    assert not untranslated(chinese, words)


def test_players_trends_stay_readable(many_env: str) -> None:
    """120 hands over five months: a point a week, not one a hand."""
    at = page("players", "en")
    assert "Over time (week)" in shown(at)
    for chart in at.get("plotly_chart")[:4]:
        for trace in json.loads(chart.proto.spec)["data"]:
            assert 0 < len(trace["x"]) <= 23


def test_upload_reports_the_bad_file_and_stores_the_good_one(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_URL, make_db(tmp_path / "upload.db"))
    good = importers.dumps([records_pb2.RecordFile(game=generate_hand("classic", 42))], "text")
    at = page("upload", "zh")
    at.file_uploader(key="upload-files").set_value(
        [
            ("broken.json", b"{not json", "application/json"),
            ("good.txt", good, "text/plain"),
        ]
    ).run()
    at.button(key="upload-go").click().run()
    assert not at.exception
    assert any("存储 1 份" in s.value for s in at.success)
    assert any("broken.json" in e.value for e in at.error)
    table = at.dataframe[0].value
    assert list(table["file"]) == ["good.txt"] and list(table["status"]) == ["已存储"]
    assert table["replay"][0].startswith("replay?game=")


def test_upload_lists_every_format_and_reports_a_conflict(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page names every format the importers read (godot too), in either language; a
    record whose id a stored record already has is reported, not stored."""
    monkeypatch.setenv(ENV_URL, make_db(tmp_path / "formats.db"))
    for lang in ("zh", "en"):
        at = page("upload", lang)
        assert any(formats_text(lang) in m.value for m in at.markdown), lang
    record = generate_hand("classic", 43)
    at = page("upload", "zh")
    upload = [("first.txt", importers.dumps([records_pb2.RecordFile(game=record)], "text"))]
    record.metadata["note"] = "changed"
    upload.append(("second.txt", importers.dumps([records_pb2.RecordFile(game=record)], "text")))
    at.file_uploader(key="upload-files").set_value(
        [(name, data, "text/plain") for name, data in upload]
    ).run()
    at.button(key="upload-go").click().run()
    assert not at.exception and any("未存储 1 份" in s.value for s in at.success)
    assert any("second.txt" in e.value and "另一份已存储的记录" in e.value for e in at.error)
    assert list(at.dataframe[0].value["status"]) == ["已存储", "编号已被占用"]


def test_a_record_the_audit_does_not_replay_shows_why(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record needing rules no ruleset models (UNSUPPORTED, from its importer) has no steps:
    the replay says so and shows the finding, in Chinese."""
    url = make_db(tmp_path / "unsupported.db")
    monkeypatch.setenv(ENV_URL, url)
    record = generate_hand("classic", 44)
    record.metadata["audit.unsupported"] = "rule_config lead_timer: unknown to the variant"
    model = ReadModel.open(url)
    (summary,) = ingest_records(model.sessions, model.tenant_id, [record])
    at = page("replay", "zh", game=summary.game.removeprefix("games/"))
    assert [w.value for w in at.warning] == [t("zh", "replay.not_replayed")] and not at.error
    assert "规则集未定的情形" in html_of(at) and not untranslated(at, data_words(url))


def test_the_readme_example_uploads_and_replays(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15: tests/fixtures/notation/example.txt (a hand and a match skeleton whose hand has
    two DEAL_INVALID findings at one step) uploads, and each of its games replays."""
    monkeypatch.setenv(ENV_URL, make_db(tmp_path / "example.db"))
    example = Path(__file__).resolve().parents[1] / "fixtures" / "notation" / "example.txt"
    at = page("upload", "en")
    at.file_uploader(key="upload-files").set_value(
        [("example.txt", example.read_bytes(), "text/plain")]
    ).run()
    at.button(key="upload-go").click().run()
    assert not at.exception and any("stored" in s.value for s in at.success)
    games = [link.proto.query_string for link in at.get("page_link")]
    assert len(games) == 2
    for query in games:
        game = dict(part.split("=", 1) for part in query.split("&"))["game"]
        replay = page("replay", "zh", game=game, step="1")
        assert not replay.exception
        for key in [b.key for b in replay.button if b.key and b.key.startswith("goto-")]:
            replay.button(key=key).click().run()
            assert not replay.exception


def test_the_language_switch_goes_to_the_url_and_stays_across_pages(seeded_env: Seeded) -> None:
    at = page("overview", "zh")
    assert at.title[0].value == "炒地皮审计"
    at.button_group(key="lang-switch").set_value("en").run()
    assert at.query_params["lang"] == "en" and at.title[0].value == "炒地皮 Chao Di Pi audits"
    at.query_params.pop("lang")
    at.switch_page("app_pages/games.py").run()
    assert at.title[0].value == "Games" and at.query_params["lang"] == "en"


def test_the_setting_decides_when_the_url_does_not(
    seeded_env: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = app().run()
    assert at.title[0].value == "炒地皮审计"  # no URL, setting nor browser: Chinese
    monkeypatch.setenv("CHAODIPI_LANG", "en")
    assert app().run().title[0].value == "炒地皮 Chao Di Pi audits"


def test_record_text_is_escaped_everywhere_it_is_shown(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names and ids from a record go into HTML escaped: no tag of theirs reaches the page."""
    url = make_db(tmp_path / "hostile.db")
    monkeypatch.setenv(ENV_URL, url)
    record = generate_hand("classic", 21)
    record.record_id = '<img src=x onerror="alert(1)">[red]*x*'
    for n, player in enumerate(record.players):
        player.id = f"p{n}<script>"
        player.display_name = f"<b onclick=alert({n})>name {n}</b>"
    model = ReadModel.open(url)
    (summary,) = ingest_records(model.sessions, model.tenant_id, [record])
    for name, params in (
        ("overview", {}),
        ("replay", {"game": summary.game.removeprefix("games/"), "step": "40"}),
        ("games", {}),
        ("players", {}),
    ):
        at = page(name, "en", **params)
        body = html_of(at)
        assert "p0<script>" not in body and "<img" not in body and "<b onclick" not in body, name
        if name != "overview":
            assert "&lt;b onclick=alert(" in body or "&lt;img" in body, name


def test_no_page_logs_a_dataframe_serialisation_error(
    seeded_env: Seeded, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 15: the Players page logged ArrowInvalid tracebacks (mixed-type columns)."""
    with caplog.at_level("WARNING"):
        for name in PAGES:
            page(name, "en")
        page("players", "en", vs="chen.jing")
    assert not [r.getMessage() for r in caplog.records if "Arrow" in r.getMessage()]
