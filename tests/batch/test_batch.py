"""The batch audit: local pool to a report folder and a database, resume, stopping, summary, Ray."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
import typer
from google.protobuf import json_format
from sqlalchemy import func, select
from typer.testing import CliRunner

from chaodipi import importers
from chaodipi.auditor import audit_game
from chaodipi.batch import (
    Control,
    DatabaseSink,
    FramedSink,
    JsonFolderSink,
    LocalBackend,
    Row,
    Summary,
    framed_reports,
    run_batch,
)
from chaodipi.batch.run import Result, audit_chunk
from chaodipi.batch.sinks import FRAMED, LEDGER, REPORTS, report_path
from chaodipi.batch.sources import count_units, expand, units
from chaodipi.cli.batch import register
from chaodipi.service.db import make_engine
from chaodipi.service.models import Game
from chaodipi.v1 import audit_pb2, records_pb2

RECORDS = 16 + 1 + 1  # hands, the match, the broken file's error


def _ledger(folder: Path) -> list[Row]:
    return sorted(JsonFolderSink(folder, resume=True).done(), key=lambda r: r.unit)


def _run(corpus: Path, out: Path, **options: object) -> Summary:
    backend = LocalBackend(2)
    try:
        sink = JsonFolderSink(out, resume=bool(options.pop("resume", False)))
        return run_batch([str(corpus)], sink, backend, **options)  # type: ignore[arg-type]
    finally:
        backend.close()


def test_units_are_stable_and_cover_every_file(corpus: Path) -> None:
    first = [(u[0], u[1]) for u in units(expand([str(corpus)]))]
    assert first == [(u[0], u[1]) for u in units(expand([str(corpus)]))]  # same ids every run
    again = [(u[0], u[1]) for u in units(expand([str(corpus / "*"), str(corpus)]))]
    assert sorted(first) == sorted(again)  # a file named twice is read once
    assert len(first) == RECORDS
    assert all(unit.startswith(str(corpus.resolve())) for unit, _ in first)


def test_units_are_counted_beforehand_only_in_streams(corpus: Path) -> None:
    streams = [str(corpus / "day1.pb"), str(corpus / "later" / "day2.pb")]
    assert count_units(expand(streams)) == len(list(units(expand(streams)))) == 12
    assert count_units(expand([str(corpus)])) is None  # JSON and text: known once read


def test_progress_shows_the_time_left_only_with_a_total() -> None:
    from rich.progress import MofNCompleteColumn, TimeRemainingColumn

    from chaodipi.cli.batch import _columns

    def kinds(total: int | None) -> set[type]:
        return {type(column) for column in _columns(total)}

    assert {MofNCompleteColumn, TimeRemainingColumn} <= kinds(12)
    assert not {MofNCompleteColumn, TimeRemainingColumn} & kinds(None)


def test_local_to_folder(corpus: Path, tmp_path: Path) -> None:
    summary = _run(corpus, tmp_path / "out", chunk_size=3)
    rows = _ledger(tmp_path / "out")
    assert len(rows) == summary.records == RECORDS
    assert summary.hands == 16 + 3 and summary.unreadable == 1 and not summary.interrupted
    (broken,) = [r for r in rows if r.status == "unreadable"]
    assert "broken.json" in broken.unit and broken.error
    # Each hand's row and report agree with the auditor run directly.
    for unit in units(expand([str(corpus / "day1.pb")])):
        (record,) = importers.load_bytes(unit[2], unit[0], "pb").records
        report = audit_game(record.game)
        (row,) = [r for r in rows if r.unit == unit[0]]
        assert (row.breaches, row.scoring_errors, row.warnings) == (
            report.breaches,
            report.scoring_errors,
            report.warnings,
        )
        saved = json.loads(
            (tmp_path / "out" / REPORTS / report_path(row.unit, row.record_id)).read_text(
                encoding="utf-8"
            )
        )
        assert saved["recordId"] == report.record_id
        assert len(saved.get("findings", [])) == len(report.findings)
    assert summary.findings > 0 and sum(summary.codes.values()) == summary.findings


def test_resume_skips_done_work(corpus: Path, tmp_path: Path) -> None:
    first = _run(corpus, tmp_path / "out")
    again = _run(corpus, tmp_path / "out", resume=True)
    assert again.new_records == 0 and again.new_hands == 0
    assert again.to_json()["findings"] == first.to_json()["findings"]
    assert again.records == first.records
    assert len(_ledger(tmp_path / "out")) == RECORDS


def test_stop_leaves_a_consistent_ledger_and_resume_finishes(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    control = Control()
    chunks = 0

    def stop_after_two(_summary: Summary) -> None:
        nonlocal chunks
        chunks += 1
        if chunks == 2:
            control.stop()

    partial = _run(corpus, out, chunk_size=2, control=control, on_chunk=stop_after_two)
    assert partial.interrupted
    done = _ledger(out)
    # Work in flight when the stop came is finished and written, nothing more is submitted.
    assert 4 <= len(done) == partial.records < RECORDS
    for row in done:
        if row.status != "unreadable":
            assert (out / REPORTS / report_path(row.unit, row.record_id)).exists()
    rest = _run(corpus, out, chunk_size=2, resume=True)
    assert rest.new_records == RECORDS - len(done) and not rest.interrupted
    assert _ledger(out) == _ledger_of_full_run(corpus, tmp_path / "full")


def _framed(corpus: Path, out: Path, **options: object) -> Summary:
    backend = LocalBackend(2)
    try:
        sink = FramedSink(out, resume=bool(options.pop("resume", False)))
        return run_batch([str(corpus)], sink, backend, **options)  # type: ignore[arg-type]
    finally:
        backend.close()


def test_framed_reports_are_the_json_reports(corpus: Path, tmp_path: Path) -> None:
    _framed(corpus, tmp_path / "framed", chunk_size=3)
    _run(corpus, tmp_path / "json", chunk_size=5)
    pairs = list(framed_reports(tmp_path / "framed"))
    assert sorted((row for row, _ in pairs), key=lambda r: r.unit) == _ledger(tmp_path / "json")
    kinds = set()
    for row, framed in pairs:
        if row.status == "unreadable":
            assert framed is None
            continue
        assert framed is not None
        kind = framed.WhichOneof("result")
        kinds.add(kind)
        report = framed.report if kind == "report" else framed.match_report
        saved = tmp_path / "json" / REPORTS / report_path(row.unit, row.record_id)
        assert json_format.Parse(saved.read_text(encoding="utf-8"), type(report)()) == report
    assert kinds == {"report", "match_report"}


def test_framed_resume_cuts_back_reports_the_ledger_lacks(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    control = Control()
    partial = _framed(corpus, out, chunk_size=2, control=control, on_chunk=lambda _: control.stop())
    assert partial.interrupted and partial.records < RECORDS
    with (out / FRAMED).open("ab") as stream:
        stream.write(b"\x0a\x05")  # a chunk's frames written, its ledger lines not (killed)
        stream.write((out / FRAMED).read_bytes()[:40])
    rest = _framed(corpus, out, chunk_size=2, resume=True)
    assert rest.new_records == RECORDS - partial.records
    pairs = list(framed_reports(out))
    assert len(pairs) == RECORDS
    assert sum(report is not None for _, report in pairs) == RECORDS - 1  # not the broken file
    whole = tmp_path / "whole"
    _framed(corpus, whole)
    by_unit = {row.unit: report for row, report in framed_reports(whole)}
    assert all(by_unit[row.unit] == report for row, report in pairs)
    assert (out / FRAMED).stat().st_size == (whole / FRAMED).stat().st_size


def _ledger_of_full_run(corpus: Path, out: Path) -> list[Row]:
    _run(corpus, out)
    return _ledger(out)


def test_torn_ledger_line_is_ignored(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(corpus, out)
    ledger = out / LEDGER
    lines = ledger.read_text(encoding="utf-8").splitlines(keepends=True)
    ledger.write_text("".join(lines[:-1]) + lines[-1][:20], encoding="utf-8")  # killed mid-line
    again = _run(corpus, out, resume=True)
    assert again.new_records == 1
    assert len(_ledger(out)) == RECORDS


def test_database_sink_stores_as_the_service(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAODIPI_HOME", str(tmp_path / "home"))
    url = f"sqlite:///{tmp_path / 'db' / 'audit.db'}"
    backend = LocalBackend(2)
    try:
        summary = run_batch([str(corpus)], DatabaseSink(url), backend, chunk_size=4)
        again = run_batch([str(corpus)], DatabaseSink(url, resume=True), backend)
    finally:
        backend.close()
    assert summary.records == RECORDS and again.new_records == 0
    engine = make_engine(url)
    with engine.connect() as connection:
        games = connection.scalar(select(func.count()).select_from(Game))
    engine.dispose()
    assert games == 16 + 3  # every hand, the match's hands included; the broken file is not
    assert "(17 stored, 0 already there)" in summary.destination


def test_summary_json_from_the_command(corpus: Path, tmp_path: Path) -> None:
    app = typer.Typer()
    app.callback()(lambda: None)
    register(app)
    report = tmp_path / "summary.json"
    result = CliRunner().invoke(
        app,
        [
            "audit-batch",
            str(corpus),
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "2",
            "--json",
            str(report),
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(report.read_text(encoding="utf-8"))
    assert summary["records"] == RECORDS and summary["hands"] == 19
    assert summary["unreadable"] == 1 and summary["interrupted"] is False
    findings = summary["findings"]
    assert findings["total"] == sum(findings["by_code"].values()) > 0
    assert findings["total"] == (
        findings["breaches"] + findings["scoring_errors"] + findings["warnings"]
    )
    tables = summary["worst_tables"]
    assert tables and tables == sorted(tables, key=lambda t: (-t["breaches"], -t["findings"]))
    for player in summary["worst_players"]:
        assert player["breaches_per_hand"] == round(player["breaches"] / player["hands"], 4)
    assert summary["new_hands"] == 19 and summary["elapsed_seconds"] > 0
    rerun = CliRunner().invoke(
        app,
        [
            "audit-batch",
            str(corpus),
            "--out",
            str(tmp_path / "out"),
            "--resume",
            "--json",
            "-",
        ],
    )
    assert rerun.exit_code == 0, rerun.output
    assert '"new_records": 0' in rerun.stdout


def test_analyze_counts_each_hand_as_the_solver_does(corpus: Path, tmp_path: Path) -> None:
    # The batch's endgame figures are analyse_game's, hand by hand: the clean hands of the corpus
    # analysed, the planted ones' breaches named, each player's points lost summed.
    from chaodipi.auditor.analysis import analyse_game

    app = typer.Typer()
    app.callback()(lambda: None)
    register(app)
    report = tmp_path / "summary.json"
    args = ["audit-batch", str(corpus), "--out", str(tmp_path / "out"), "--workers", "2"]
    result = CliRunner().invoke(app, [*args, "--analyze", "--window", "2", "--json", str(report)])
    assert result.exit_code == 0, result.output
    endgame = json.loads(report.read_text(encoding="utf-8"))["endgame"]

    analysed, why, lost = 0, Counter[str](), dict[str, list[int]]()
    for unit in units(expand([str(corpus)])):
        frame = unit[2]
        if unit[3]:
            continue  # the broken file: nothing to analyse
        length_end = next(i for i, byte in enumerate(frame) if not byte & 0x80) + 1
        record = records_pb2.RecordFile.FromString(frame[length_end:])
        if record.WhichOneof("record") == "game":
            hands = [(record.game, record.game.players)]
        else:
            hands = [(h, h.players or record.match.players) for h in record.match.hands]
        for hand, players in hands:
            analysis = analyse_game(hand, window=2)
            if not analysis.analysed:
                why[analysis.why] += 1
                continue
            analysed += 1
            for seat, points in enumerate(analysis.lost_by_seat()):
                pid = players[seat].id or players[seat].display_name
                tally = lost.setdefault(pid, [0, 0])
                tally[0] += 1
                tally[1] += points
    assert analysed > 0 and endgame["analysed"] == analysed
    assert endgame["not_analysed"] == dict(why)
    for row in endgame["players"]:
        assert [row["hands"], row["points_lost"]] == lost[row["player"]]
    assert "endgame analysis:" in result.stdout

    plain = CliRunner().invoke(app, [*args[:3], str(tmp_path / "plain"), "--json", "-"])
    assert plain.exit_code == 0, plain.output
    assert '"analysed": 0' in plain.stdout and "endgame analysis:" not in plain.stdout
    refused = CliRunner().invoke(app, [*args[:3], str(tmp_path / "x"), "--window", "2"])
    assert refused.exit_code == 2 and "--window needs --analyze" in refused.output


def test_command_rejects_a_missing_source(tmp_path: Path) -> None:
    app = typer.Typer()
    app.callback()(lambda: None)
    register(app)
    result = CliRunner().invoke(
        app, ["audit-batch", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2


def test_an_auditor_bug_fails_one_record_not_the_chunk(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunk = list(units(expand([str(corpus / "day1.pb")])))

    def flaky(record: records_pb2.GameRecord | bytes) -> audit_pb2.AuditReport:
        game = records_pb2.GameRecord.FromString(record) if isinstance(record, bytes) else record
        if game.record_id == "classic-2":
            raise IndexError("boom")
        return audit_game(record)

    monkeypatch.setattr("chaodipi.batch.run.audit_game", flaky)
    results = audit_chunk(chunk, "json", None)
    assert [r.row.status for r in results].count("failed") == 1
    (failed,) = [r.row for r in results if r.row.status == "failed"]
    assert failed.unit == chunk[2][0] and failed.error == "IndexError: boom"
    assert all(r.report for r in results if r.row.status != "failed")


def _all_results(corpus: Path) -> list[Result]:
    chunk = list(units(expand([str(corpus)])))
    return sorted(audit_chunk(chunk, "json", None), key=lambda r: r.row.unit)


@pytest.mark.slow
def test_ray_backend_gives_identical_results(
    corpus: Path, tmp_path: Path, ray_local: ModuleType
) -> None:
    from chaodipi.batch.ray_backend import RayBackend

    backend = RayBackend()
    assert backend.workers == 2
    summary = run_batch([str(corpus)], JsonFolderSink(tmp_path / "ray"), backend, chunk_size=3)
    backend.close()
    _run(corpus, tmp_path / "local", chunk_size=5)
    assert summary.records == RECORDS
    assert _ledger(tmp_path / "ray") == _ledger(tmp_path / "local")
    for name in sorted(
        p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("*.json")
    ):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert [r.row for r in _all_results(corpus)] == _ledger(tmp_path / "local")
