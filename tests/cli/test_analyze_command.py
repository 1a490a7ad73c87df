"""``chaodipi analyze``: every play's cost in a hand's last tricks, as text and JSON, and its
exit codes (0 every hand analysed, 1 one not analysed, 2 unreadable input)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from chaodipi.auditor.analysis import BUDGET
from chaodipi.auditor.generate import generate_hand
from chaodipi.cli.main import app
from chaodipi.importers import write
from chaodipi.v1 import records_pb2


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "hands.json"
    hands = [generate_hand("classic", seed) for seed in (4, 13)]
    write([records_pb2.RecordFile(game=hand) for hand in hands], path, "json")
    return path


def test_analyze_prints_each_plays_cost_and_exits_0(tmp_path: Path) -> None:
    result = run("analyze", _file(tmp_path), "--window", "2")
    assert result.exit_code == 0, result.output
    assert result.output.count("points lost") == 2
    assert "cost" in result.output and "under perfect play" in result.output


def test_analyze_json_gives_every_play_of_the_window(tmp_path: Path) -> None:
    result = run("analyze", _file(tmp_path), "--window", "2", "--json")
    assert result.exit_code == 0, result.output
    hands = json.loads(result.output)
    assert [len(hand["plays"]) for hand in hands] == [8, 8]
    for hand in hands:
        assert hand["analysed"] and sum(hand["lost_by_seat"]) == sum(
            play["cost"] for play in hand["plays"]
        )


def test_analyze_a_hand_over_its_budget_is_not_analysed_and_exits_1(tmp_path: Path) -> None:
    result = run("analyze", _file(tmp_path), "--window", "3", "--budget", "1")
    assert result.exit_code == 1
    output = " ".join(result.output.split())  # as wrapped to the terminal's width
    assert "not analysed: the search visited more than 1 position" in output
    assert "1 positions" not in output
    assert output.count("not analysed") == 2  # once for each hand, said once
    # On stderr, once for the run: what to do about it.
    assert result.stderr.splitlines() == [
        "warning: 2 hands stopped at the search budget of 1 position: a smaller --window or a "
        "larger --budget may analyse them"
    ]


def test_analyze_help_gives_the_solvers_default_budget() -> None:
    result = run("analyze", "--help")
    assert f"(default: {BUDGET:,})" in " ".join(result.output.split())


def test_analyze_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    assert run("analyze", missing).exit_code == 2
