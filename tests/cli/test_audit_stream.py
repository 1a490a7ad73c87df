"""``chaodipi audit`` of a protobuf stream, read record by record: a bad record in the middle is
reported at its record and byte, the others audited, as when the file was read whole."""

from __future__ import annotations

import json
from pathlib import Path

from google.protobuf import json_format
from typer.testing import CliRunner

from chaodipi import importers
from chaodipi.auditor import audit_game
from chaodipi.auditor.generate import generate_hand
from chaodipi.cli.main import app
from chaodipi.v1 import records_pb2


def test_a_bad_record_in_a_stream_is_reported_and_the_others_audited(tmp_path: Path) -> None:
    records = [records_pb2.RecordFile(game=generate_hand("classic", seed)) for seed in range(4)]
    records[2].game.tricks[1].plays[0].MergeFromString(b"\x78\x01")  # an unknown field
    path = tmp_path / "hands.pb"
    importers.write(records, path, "pb")
    expected = [str(p) for p in importers.load(path).errors]
    assert len(expected) == 1 and "record 3 (byte " in expected[0]
    result = CliRunner().invoke(app, ["audit", str(path)], env={"COLUMNS": "250"})
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        f"hands.pb {records[i].game.record_id} (classic)" for i in (0, 1, 3)
    ]
    assert result.stderr.splitlines() == [f"error: {expected[0]}"]


def test_a_stream_audited_from_its_games_bytes_reports_as_the_records_do(tmp_path: Path) -> None:
    """Games a clean frame holds alone are audited from their bytes: the same reports as the
    records' own audits; a game whose string is not UTF-8 is still an unreadable record."""
    records = [records_pb2.RecordFile(game=generate_hand("anhui", seed)) for seed in range(5)]
    records[1].game.venue = "茶馆"
    records[3].game.venue = "x"
    data = bytearray(importers.write_pb(records))
    at = data.index(records_pb2.GameRecord(venue="x").SerializeToString())
    data[at + 2] = 0xFF  # not UTF-8
    path = tmp_path / "hands.pb"
    path.write_bytes(bytes(data))
    result = CliRunner().invoke(app, ["audit", "--json", str(path)])
    assert result.exit_code == 2
    assert "record 4 (byte " in result.stderr
    expected = [json_format.MessageToDict(audit_game(records[i].game)) for i in (0, 1, 2, 4)]
    assert json.loads(result.stdout) == expected
    lines = result.stdout.splitlines()  # an array of a report a line
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == 2 + len(expected)
    assert [json.loads(line.removesuffix(",")) for line in lines[1:-1]] == expected


def test_json_of_a_file_without_a_readable_record_is_an_empty_array(tmp_path: Path) -> None:
    path = tmp_path / "empty.pb"
    path.write_bytes(b"\x03abc")  # one frame, not a record
    result = CliRunner().invoke(app, ["audit", "--json", str(path)])
    assert result.exit_code == 2
    assert result.stdout == "[]\n"
    assert json.loads(result.stdout) == []
