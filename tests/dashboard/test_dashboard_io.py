"""Uploads and samples through the service's ingest path, and the commands' process setup."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from dashboard_support import make_db
from google.protobuf import json_format

from chaodipi import importers
from chaodipi.auditor import audit_game
from chaodipi.auditor.generate import generate_hand
from chaodipi.cli.dashboard import APP, prepare, streamlit_command, streamlit_env
from chaodipi.dashboard import exports, uploads
from chaodipi.dashboard.i18n import LANGS, t
from chaodipi.dashboard.uploads import ingest_files
from chaodipi.service.db import ENV_URL
from chaodipi.service.readmodel import ReadModel, StoredGame
from chaodipi.service.samples import load_samples, sample_records
from chaodipi.v1 import records_pb2, service_pb2


def test_upload_keeps_good_files_and_names_bad_ones(tmp_path: Path) -> None:
    model = ReadModel.open(make_db(tmp_path / "u.db"))
    hand = records_pb2.RecordFile(game=generate_hand("classic", 7))
    match = records_pb2.RecordFile(game=generate_hand("anhui", 8))
    files = [
        ("hand.pb", importers.dumps([hand], "pb")),
        ("bad.txt", b'[Game "x"]\n[Ruleset "classic"]\nnonsense here\n'),
        ("hand.json", importers.dumps([match], "json")),
        ("empty.txt", b""),
    ]
    outcome = ingest_files(model, files)
    assert [(r.file, r.status) for r in outcome.records if r.status == "stored"] == [
        ("hand.pb", "stored"),
        ("hand.json", "stored"),
    ]
    assert any(p.startswith("bad.txt") for p in outcome.problems) or any(
        r.file == "bad.txt" and r.status == "rejected" for r in outcome.records
    )
    assert any(p.startswith("empty.txt") for p in outcome.problems)
    again = ingest_files(model, files[:1])
    assert again.count("duplicate") == 1 and again.records[0].game_ids
    changed = records_pb2.RecordFile()
    changed.CopyFrom(hand)
    changed.game.metadata["note"] = "edited after it was stored"
    conflict = ingest_files(model, [("changed.pb", importers.dumps([changed], "pb"))])
    assert [r.status for r in conflict.records] == ["conflict"] and conflict.records[0].error


def test_the_upload_page_names_every_format_the_importers_read() -> None:
    assert list(uploads.FORMAT_KEYS) == list(importers.FORMATS)
    for lang in LANGS:
        text = uploads.formats_text(lang)
        assert all(t(lang, key) in text for key in uploads.FORMAT_KEYS.values())


def test_samples_carry_faults_and_load_only_once(tmp_path: Path) -> None:
    records, planted = sample_records(hands=10, matches=1)
    assert planted == 2 and len(records) == 11
    assert {r.game.ruleset for r in records if r.WhichOneof("record") == "game"} >= {
        "classic",
        "shuangsheng",
        "anhui",
        "changshu",
    }
    model = ReadModel.open(make_db(tmp_path / "s.db"))
    first = load_samples(model, hands=4, matches=0)
    assert first.stored == 4 and not first.skipped and model.games().total == 4
    assert load_samples(model, hands=4, matches=0).skipped


def test_prepare_migrates_and_fills_an_empty_database_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'up.db'}"
    assert prepare(url) > 0
    assert prepare(url) == 0


def test_streamlit_process_settings() -> None:
    command = streamlit_command(8600)
    assert command[1:5] == ["-m", "streamlit", "run", str(APP)]
    assert "--server.headless=true" in command and "--server.port=8600" in command
    assert "--client.toolbarMode=viewer" in command  # no "Deploy" button
    env = streamlit_env("sqlite:////tmp/x.db")
    assert env[ENV_URL] == "sqlite:////tmp/x.db"


def test_the_downloads_are_the_stored_game_with_its_stored_findings() -> None:
    """The annotated notation reads back as the record and carries the stored audit's findings
    as comments (the stored report, not a new audit: a finding only it holds is there); the
    JSON is the service's Game message, as GetGame answers it in its basic view."""
    record = generate_hand("classic", 11)
    report = audit_game(record)
    report.findings.add(code="ONLY_IN_THE_STORED_AUDIT", message="kept as stored")
    now = datetime(2026, 10, 1, tzinfo=UTC)
    game = StoredGame("g-1", "hash", now, now, None, None, record, report)
    text = exports.annotated_notation(game)
    assert text.startswith(exports.NOTATION_HEADER)
    assert "ONLY_IN_THE_STORED_AUDIT" in text and "kept as stored" in text
    (back,) = importers.load_bytes(text.encode(), "replay.txt").records
    assert back.game.record_id == record.record_id and back.game.tricks == record.tricks
    message = json_format.Parse(exports.game_json(game), service_pb2.Game())
    assert message.record == record and message.report == report and message.name == "games/g-1"
    assert not message.report.steps and message.record_id == record.record_id
    assert exports.file_stem(game) == record.record_id
    odd = StoredGame(
        "g-2", "", now, now, None, None, records_pb2.GameRecord(record_id="../x y"), report
    )
    assert exports.file_stem(odd) == "x_y"
