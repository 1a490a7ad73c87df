"""``chaodipi dump``: every stored game with its stored audit, as JSON Lines or notation, and a
dump that resumes after the last game it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import json_format
from typer.testing import CliRunner, Result

from chaodipi.auditor.generate import generate_hand
from chaodipi.cli.main import app
from chaodipi.service.ingest import ingest_records
from chaodipi.service.readmodel import ReadModel
from chaodipi.v1 import service_pb2

HANDS = 5


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Five stored hands (one with a planted scoring error) in a fresh data folder: their ids."""
    monkeypatch.setenv("CHAODIPI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CHAODIPI_DATABASE_URL", raising=False)
    model = ReadModel.open()
    hands = [generate_hand("classic", seed) for seed in range(HANDS)]
    hands[2].claim.defenders_points += 5
    summaries = ingest_records(model.sessions, model.tenant_id, hands)
    assert all(s.status == s.STATUS_STORED for s in summaries)
    return [s.game.removeprefix("games/") for s in summaries]


def replays(text: str) -> list[service_pb2.Game]:
    out = []
    for line in text.splitlines():
        replay = service_pb2.Game()
        json_format.Parse(line, replay)
        out.append(replay)
    return out


def test_dump_writes_every_game_with_its_stored_audit(stored: list[str], tmp_path: Path) -> None:
    target = tmp_path / "all.jsonl"
    result = run("dump", "-o", target)
    assert result.exit_code == 0, result.output
    dumped = replays(target.read_text(encoding="utf-8"))
    assert sorted(r.name for r in dumped) == sorted(f"games/{g}" for g in stored)
    planted = next(r for r in dumped if r.record.record_id == "classic-2")
    assert [f.code for f in planted.report.findings] == ["SCORE_MISMATCH"]
    assert all(r.record.tricks and r.content_hash for r in dumped)


def test_dump_resumes_after_the_last_game_written(stored: list[str], tmp_path: Path) -> None:
    whole = replays(run("dump").stdout)
    first_two = tmp_path / "part.jsonl"
    first_two.write_text(
        "".join(json_format.MessageToJson(r, indent=None) + "\n" for r in whole[:2])
    )
    resumed = run("dump", "-o", first_two, "--after", whole[1].name.removeprefix("games/"))
    assert resumed.exit_code == 0, resumed.output
    assert [r.name for r in replays(first_two.read_text())] == [r.name for r in whole]


def test_dump_as_annotated_notation(stored: list[str]) -> None:
    result = run("dump", "--format", "text")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("[Game ") == HANDS
    assert "SCORE_MISMATCH" in result.stdout and "# stored game " in result.stdout


def test_dump_names_what_is_wrong(stored: list[str]) -> None:
    assert run("dump", "--after", "nope").exit_code == 1
    assert run("dump", "--tenant", "nobody").exit_code == 1
    bad = run("dump", "--format", "xml")
    assert bad.exit_code == 2 and "jsonl or text" in bad.output
