"""Every page under Streamlit's AppTest, against temporary databases."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashboard_support import APP, Seeded, make_db
from streamlit.testing.v1 import AppTest

from chaodipi import importers
from chaodipi.auditor.generate import generate_hand
from chaodipi.service.db import ENV_URL
from chaodipi.v1 import records_pb2

TIMEOUT = 60


def app() -> AppTest:
    """The dashboard, not yet run."""
    return AppTest.from_file(str(APP), default_timeout=TIMEOUT)


def page(name: str, **params: str) -> AppTest:
    """The dashboard switched to one of its pages and run, with URL query parameters."""
    at = app()
    at.query_params.update(params)
    at.run()
    at.switch_page(f"app_pages/{name}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def html_of(at: AppTest) -> str:
    return "".join(str(h.proto.body) for h in at.html)


def test_empty_database_offers_samples_and_loads_them(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_URL, make_db(tmp_path / "empty.db"))
    at = app().run()
    assert not at.exception
    assert any("empty" in s.value for s in at.subheader)
    at.button(key="load-samples").click().run()
    assert not at.exception
    assert any("Sample games loaded" in s.value for s in at.success)
    assert at.metric[0].value != "0"


def test_overview_lists_games_with_findings(seeded_env: Seeded) -> None:
    at = app().run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert labels == ["Games", "With findings", "Breaches", "Players"]
    assert len(at.get("plotly_chart")) == 1


def test_replay_steps_forward_back_and_to_the_next_finding(seeded_env: Seeded) -> None:
    at = page("replay", game=seeded_env.revoke)
    assert at.session_state["step"] == 1
    at.button(key="next-play").click().run()
    assert at.session_state["step"] == 2
    at.button(key="back-play").click().run()
    assert at.session_state["step"] == 1
    at.button(key="next-trick").click().run()
    trick_end = at.session_state["step"]
    assert trick_end > 2 and any("Trick 1 complete" in m.value for m in at.markdown)
    at.button(key="back-trick").click().run()
    assert at.session_state["step"] == 1
    at.button(key="next-finding").click().run()
    assert not at.exception
    assert 'data-code="FOLLOW_REVOKE"' in html_of(at)
    assert " alt" in html_of(at)  # the legal alternative is highlighted
    at.selectbox(key="jump-trick").select(3).run()
    assert any("Trick 3 complete" in m.value for m in at.markdown)
    at.slider(key="step").set_value(1).run()
    assert any("Deal" in m.value for m in at.markdown)
    assert at.query_params["game"] == seeded_env.revoke


def test_replay_of_a_throw_shows_the_cards_that_beat_it(seeded_env: Seeded) -> None:
    at = page("replay", game=seeded_env.throw)
    for _ in range(5):
        if 'data-code="THROW_NOT_ENFORCED"' in html_of(at):
            break
        at.button(key="next-finding").click().run()
    assert 'data-code="THROW_NOT_ENFORCED"' in html_of(at) and " beat" in html_of(at)


def test_replay_without_a_game_picks_one_with_findings(seeded_env: Seeded) -> None:
    at = page("replay")
    assert at.query_params["game"]
    assert at.button(key="next-finding").disabled is False


def test_replay_of_an_unknown_game(seeded_env: Seeded) -> None:
    at = page("replay", game="nope")
    assert any("No stored game" in e.value for e in at.error)


def test_games_filters(seeded_env: Seeded) -> None:
    at = page("games")
    everything = len(at.dataframe[0].value)
    assert everything >= 11
    at.segmented_control(key="f-state").set_value("clean").run()
    clean = at.dataframe[0].value
    assert 0 < len(clean) < everything and set(clean["codes"]) == {""}
    at.segmented_control(key="f-state").set_value("with findings").run()
    assert all(at.dataframe[0].value["codes"])
    at.segmented_control(key="f-state").set_value("all").run()
    at.selectbox(key="f-code").select("FOLLOW_REVOKE").run()
    frame = at.dataframe[0].value
    assert len(frame) == 1 and frame["replay"][0] == f"replay?game={seeded_env.revoke}"
    at.selectbox(key="f-code").select(None).run()
    at.selectbox(key="f-ruleset").select("anhui").run()
    assert set(at.dataframe[0].value["ruleset"]) == {"anhui"}
    player = at.selectbox(key="f-player").options[0]
    at.selectbox(key="f-player").select_index(0).run()
    assert not at.exception and len(at.dataframe[0].value) >= 1
    assert player
    assert len(at.get("plotly_chart")) == 1


def test_players_page_compares_two_players(seeded_env: Seeded) -> None:
    at = page("players")
    assert len(at.get("plotly_chart")) == 5
    at.selectbox(key="player-b").select_index(0).run()
    assert not at.exception
    summary = at.dataframe[0].value
    assert len(summary.columns) == 2 and "breaches per 100 hands" in summary.index


def test_upload_reports_the_bad_file_and_stores_the_good_one(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_URL, make_db(tmp_path / "upload.db"))
    good = importers.dumps([records_pb2.RecordFile(game=generate_hand("classic", 42))], "text")
    at = page("upload")
    at.file_uploader(key="upload-files").set_value(
        [
            ("broken.json", b"{not json", "application/json"),
            ("good.txt", good, "text/plain"),
        ]
    ).run()
    at.button(key="upload-go").click().run()
    assert not at.exception
    assert any("1 stored" in s.value for s in at.success)
    assert any(e.value.startswith("broken.json") for e in at.error)
    table = at.dataframe[0].value
    assert list(table["file"]) == ["good.txt"] and list(table["status"]) == ["stored"]
    assert table["replay"][0].startswith("replay?game=")
