"""load / load_bytes / detect_format / write, the notation example, and the CLI commands."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from chaodipi.auditor.wire import encode_varint
from chaodipi.cli.records import register
from chaodipi.importers import detect_format, dumps, load, load_bytes, write
from chaodipi.v1 import records_pb2

FIXTURES = Path(__file__).parent.parent / "fixtures"
GAME = records_pb2.GameRecord(record_id="g1", ruleset="classic", venue="club")
MATCH = records_pb2.MatchRecord(match_id="m1", hands=[GAME])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("notation/example.txt", "text"),
        ("eighty/deal-25-tricks.json", "eighty"),
        ("eighty/deal-25-tricks.envelope.json", "eighty"),
        ("botzone/full-deal.json", "botzone"),
        ("botzone/full-deal.platform.json", "botzone"),
    ],
)
def test_detect_fixtures(name: str, expected: str) -> None:
    assert detect_format(name, (FIXTURES / name).read_bytes()) == expected


def test_detect_protobuf_forms() -> None:
    assert detect_format("x.pb", b"") == "pb"
    assert detect_format("x", GAME.SerializeToString()) == "pb"
    assert detect_format("x.json", b'{"recordId": "g1"}') == "json"
    assert detect_format("x.jsonl", b'{"game": {}}\n{"match": {}}\n') == "json"


def test_json_lines_are_told_by_their_first_line_and_a_bad_later_one_rejected_alone() -> None:
    # Without a name to go by, JSON Lines are detected from their first line alone (not by
    # reading every line twice); a broken later line is a problem at its line, and the lines
    # around it are read.
    data = b'{"recordId": "g1"}\n\n{"recordId": "g2"}\n{"recordId": \n{"recordId": "g3"}\n'
    assert detect_format("games.log", data) == "json"
    result = load_bytes(data, "games.log")
    [problem] = result.errors
    assert problem.location == "line 4 column 14"
    assert problem.message.startswith("not valid JSON")
    assert [r.game.record_id for r in result.records] == ["g1", "g2", "g3"]
    assert detect_format("games.log", b"{\n" + data) == "text"  # a first line that is no value


@pytest.mark.parametrize(
    ("data", "note"),
    [
        (GAME.SerializeToString(), "read as one GameRecord message"),
        (records_pb2.RecordFile(game=GAME).SerializeToString(), "read as one RecordFile message"),
        (MATCH.SerializeToString(), "read as one MatchRecord message"),
        (
            dumps([records_pb2.RecordFile(game=GAME)] * 2, "pb"),
            "read as a length-delimited stream of 2 RecordFile messages",
        ),
    ],
)
def test_pb_framing_is_chosen_and_said(data: bytes, note: str) -> None:
    result = load_bytes(data, "r.pb")
    assert result.errors == []
    assert result.notes == [f"r.pb: {note}"]
    assert len(result.records) in (1, 2)


def test_pb_stream_keeps_good_records_around_a_bad_one() -> None:
    good = records_pb2.RecordFile(game=GAME).SerializeToString()
    bad = b"\xff\xff"
    data = b"".join(encode_varint(len(d)) + d for d in (good, bad, good))
    result = load_bytes(data, "s.pb")
    assert len(result.records) == 2
    assert [str(p) for p in result.errors] == [
        f"s.pb: record 2 (byte {1 + len(good)}): "
        "expected a RecordFile message holding a game or a match"
    ]


def _frame(game: bytes) -> bytes:
    """A stream of one RecordFile holding a game given as its bytes."""
    record = b"\x0a" + encode_varint(len(game)) + game
    return encode_varint(len(record)) + record


def test_pb_record_written_in_another_field_order_is_read() -> None:
    # venue (13) before record_id (1): not what this library writes back, still a clean record
    venue, record_id = b"\x6a\x04club", b"\x0a\x02g1"
    result = load_bytes(_frame(venue + record_id), "s.pb")
    assert result.errors == []
    assert result.records[0].game == records_pb2.GameRecord(record_id="g1", venue="club")


@pytest.mark.parametrize(
    "game",
    [
        GAME.SerializeToString() + b"\xa0\x06\x01",  # field 100, at the end
        b"\xa0\x06\x01" + GAME.SerializeToString(),  # field 100, first: out of field order
        b"\x52\x03\xa0\x06\x01",  # field 100 in a trick (field 10)
    ],
)
def test_pb_record_with_unknown_fields_is_refused(game: bytes) -> None:
    result = load_bytes(_frame(game), "s.pb")
    assert result.records == []
    assert len(result.errors) == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"recordId": "g1", "ruleset": "classic", "venue": "club"}',
        '[{"game": {"recordId": "g1", "ruleset": "classic", "venue": "club"}}]',
        '{"record_id": "g1", "ruleset": "classic", "venue": "club"}\n',
    ],
)
def test_json_shapes(text: str) -> None:
    (record,) = load_bytes(text.encode(), "r.json", strict=True).records
    assert record.game == GAME


def test_write_to_path_and_stream(tmp_path: Path) -> None:
    records = [records_pb2.RecordFile(game=GAME), records_pb2.RecordFile(match=MATCH)]
    for to in ("pb", "json", "text"):
        path = tmp_path / f"out.{to}"
        write(records, path, to)
        assert load(path, strict=True).records == records
        stream = io.BytesIO()
        write(records, stream, to)
        assert stream.getvalue() == path.read_bytes()
    single = json.loads(dumps(records[:1], "json"))
    assert single == {"game": {"recordId": "g1", "ruleset": "classic", "venue": "club"}}


def test_notation_example_reads_clean() -> None:
    result = load(FIXTURES / "notation/example.txt", strict=True)
    game, match = (r for r in result.records)
    assert game.game.record_id == "club-2024-05-01-h1"
    assert match.match.hands[0].tricks[0].declared_split[0].cards == ["SA", "SA", "SA"]
    auditor = pytest.importorskip("chaodipi.auditor")
    report = auditor.audit_game(game.game)
    assert (report.breaches, report.scoring_errors) == (0, 0)


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


def test_cli_import_converts_and_counts(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    result = CliRunner().invoke(
        _app(),
        [
            "import",
            str(FIXTURES / "eighty/deal-shapes.json"),
            str(FIXTURES / "botzone/full-deal.json"),
            "--to",
            "text",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(load(out, strict=True).records) == 2


def test_cli_import_exit_codes(tmp_path: Path) -> None:
    runner, out = CliRunner(), tmp_path / "out.pb"
    bad = FIXTURES / "eighty/bad-card.json"
    good = FIXTURES / "botzone/full-deal.json"
    assert runner.invoke(_app(), ["import", str(good), str(bad), "-o", str(out)]).exit_code == 1
    assert runner.invoke(_app(), ["import", str(bad), "-o", str(out)]).exit_code == 2
    strict = runner.invoke(_app(), ["import", str(good), str(bad), "--strict", "-o", str(out)])
    assert strict.exit_code == 2


def test_cli_export_writes_findings_after_their_play(tmp_path: Path) -> None:
    pytest.importorskip("chaodipi.auditor")
    # The deal is clean under its own variant; classic forces another unit of its throw.
    out = tmp_path / "audited.txt"
    result = CliRunner().invoke(
        _app(),
        [
            "export",
            str(FIXTURES / "eighty/deal-shapes.json"),
            "--ruleset",
            "classic",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "# audit under 'classic': 1 breach, 4 scoring errors, 0 warnings" in text
    lines = text.split("\n")
    trick = next(i for i, line in enumerate(lines) if line.startswith("trick 3 "))
    assert lines[trick + 1].startswith("# BREACH THROW_ENFORCED_WRONGLY (trick 3, play 1, seat 0)")
    assert len(load(out, strict=True).records) == 1  # comments do not change the record
    own = tmp_path / "own.txt"
    CliRunner().invoke(
        _app(), ["export", str(FIXTURES / "eighty/deal-shapes.json"), "-o", str(own)]
    )
    assert "# audit under 'eighty': 0 breaches, 0 scoring errors" in own.read_text()


def test_cli_import_and_export_of_files_without_records_say_so_and_write_nothing(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "none.json"
    empty.write_text("[]")  # JSON Lines of no record: read without an error, and nothing in it
    for command in ("import", "export"):
        out = tmp_path / f"out-{command}.txt"
        result = CliRunner().invoke(_app(), [command, str(empty), "-o", str(out)])
        assert result.exit_code == 2, result.output
        said = " ".join(result.output.split())
        assert f"no record was read from 1 file: nothing written to {out}" in said
        assert not out.exists()
