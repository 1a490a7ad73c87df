"""The command line as a new user meets it: honest exit codes, clear messages, text from records
printed as written (never read as Rich markup), the same data from any folder, one server a port.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from chaodipi.auditor.generate import generate_hand
from chaodipi.cli.main import Commands, app
from chaodipi.service.home import data_dir
from chaodipi.service.server import PortInUse, ServerConfig
from chaodipi.v1 import records_pb2
from tests.service.service_support import ServerThread

MARKUP = "[red]Li[/] [/]"
"""Text that Rich would read as markup: a style, a closing tag, and a bare closing tag."""


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CHAODIPI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CHAODIPI_DATABASE_URL", raising=False)
    return tmp_path


def marked_hand() -> records_pb2.GameRecord:
    """A generated hand whose ids and names hold markup-like text, and one planted breach."""
    hand = generate_hand("classic", 7)
    hand.record_id = f"game {MARKUP}"
    for seat, player in enumerate(hand.players):
        player.id = f"p{seat}{MARKUP}"
        player.display_name = f"name {seat} {MARKUP}"
    hand.claim.defenders_points += 5  # a SCORE_MISMATCH, so findings are printed too
    hand.tricks[0].leader = (hand.tricks[0].leader + 1) % 4  # and breaches (OUT_OF_TURN)
    return hand


def write_records(path: Path, *records: records_pb2.GameRecord) -> Path:
    path.write_bytes(
        b"".join(
            records_pb2.RecordFile(game=r).SerializeToString()
            for r in records[:1]  # one message: a .pb file of a single record
        )
    )
    return path


@pytest.fixture
def marked_file(home: Path) -> Path:
    return write_records(home / "[bold]odd[red] name.pb", marked_hand())


def shows(result: Result, text: str) -> bool:
    """Whether the output holds the text (Rich may wrap or pad it, never drop its brackets)."""
    squashed = re.sub(r"\s+", " ", result.output)
    return text in squashed


def test_markup_in_records_and_file_names_is_printed_as_written(marked_file: Path) -> None:
    audited = run("audit", marked_file)
    assert audited.exit_code == 1, audited.output
    assert shows(audited, "[bold]odd[red] name.pb") and shows(audited, f"game {MARKUP}")
    assert "SCORE_MISMATCH" in audited.output
    as_json = run("audit", "--json", marked_file)
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout)[0]["recordId"] == f"game {MARKUP}"
    imported = run("import", marked_file, "-o", marked_file.with_suffix(".txt"), "--to", "text")
    assert imported.exit_code == 0 and shows(imported, "[bold]odd[red] name.pb"), imported.output
    exported = run("export", marked_file, "-o", marked_file.with_suffix(".ann.txt"))
    assert exported.exit_code == 0 and shows(exported, "[bold]odd[red] name.ann.txt")
    batch = run("audit-batch", marked_file, "-o", marked_file.parent / "reports", "--workers", 1)
    assert batch.exit_code == 0, batch.output
    assert shows(batch, f"game {MARKUP}")


def test_markup_survives_upload_replay_and_stats(marked_file: Path) -> None:
    server = ServerThread(ServerConfig(port=0, audit_workers=0, grace_seconds=1))
    try:
        uploaded = run("upload", "--server", server.target, "--details", marked_file)
    finally:
        server.stop()
    assert uploaded.exit_code == 0, uploaded.output
    assert shows(uploaded, f"game {MARKUP}")
    game_id = re.search(r"\b([0-9a-f]{16})\b", uploaded.output)
    assert game_id is not None, uploaded.output
    replay = run("replay", game_id.group(1))
    assert replay.exit_code == 0, replay.output
    assert shows(replay, f"name 0 {MARKUP}") and shows(replay, f"p0{MARKUP}")
    stats = run("stats", "--player", f"p1{MARKUP}")
    assert stats.exit_code == 0 and shows(stats, f"p1{MARKUP}"), stats.output
    nobody = run("stats", "--player", f"nobody{MARKUP}")
    assert nobody.exit_code == 0 and shows(nobody, f"no stored hands with nobody{MARKUP}")
    assert shows(run("keys", "list"), "no API keys: create one with chaodipi keys create")
    created = run("keys", "create", "--tenant", MARKUP)
    assert created.exit_code == 0 and shows(created, MARKUP), created.output
    assert shows(run("keys", "list"), MARKUP)


def test_an_unreadable_or_empty_file_is_named_and_exits_2(home: Path) -> None:
    empty = home / "empty.txt"
    empty.write_text("")
    result = run("audit", empty)
    assert result.exit_code == 2
    assert "empty.txt" in result.output and "empty" in result.output.split("empty.txt", 1)[1]
    garbage = home / "garbage.json"
    garbage.write_text('{"a": 1}')
    uploaded = run("upload", "--server", "127.0.0.1:9", garbage)
    assert uploaded.exit_code == 2
    assert "nothing to upload" in uploaded.output and "garbage.json" in uploaded.output


def test_a_server_not_there_is_named_without_grpc_internals(home: Path) -> None:
    with socket.socket() as free:  # a port nothing listens on once closed: refused
        free.bind(("127.0.0.1", 0))
        target = f"127.0.0.1:{free.getsockname()[1]}"
    for args in (["stats"], ["replay", "0123456789abcdef"]):
        result = run(*args, "--server", target)
        assert result.exit_code == 1, result.output
        output = " ".join(result.output.split())
        assert f"cannot reach a chaodipi server at {target} (connection refused)" in output
        assert "UNKNOWN" not in output and "answered" not in output


def test_a_database_that_cannot_be_used_is_named_without_a_traceback(home: Path) -> None:
    with socket.socket() as free:  # a port nothing listens on once closed: refused
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    blocked = home / "a-file"
    blocked.write_text("")
    cases = {
        f"postgresql://postgres@127.0.0.1:{port}/test": "Connection refused",
        f"sqlite:///{blocked}/sub/games.db": "cannot be made: Not a directory",
        "nosuchdb://somewhere": "Can't load plugin",
    }
    for url, reason in cases.items():
        for args in (["stats", "--database-url", url], ["audit-batch", str(home), "--store", url]):
            result = run(*args)
            assert result.exit_code == 2, result.output
            output = " ".join(result.output.split())
            assert output.startswith("error: cannot use the database (") and reason in output
            assert "Traceback" not in output and "Error" not in output, output


def test_a_batch_destination_that_cannot_be_written_is_named(home: Path) -> None:
    blocked = home / "a-file"
    blocked.write_text("")
    result = run("audit-batch", str(home), "--out", blocked)
    assert result.exit_code == 2
    assert f"--out {blocked}: cannot write there (File exists)" in " ".join(result.output.split())


def test_a_port_out_of_range_is_refused_not_wrapped(home: Path) -> None:
    # gRPC would take 99999 as 34463 (99999 - 65536): the option refuses it first.
    for args in (
        ["serve", "--port", "99999"],
        ["serve", "--port", "-1"],
        ["up", "--dashboard-port", "0"],
        ["dashboard", "--port", "65536"],
    ):
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "Invalid value for '--" in result.output, args


def test_a_dashboard_port_in_use_is_named_before_anything_starts(home: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for args, option in (
            (["dashboard", "--port", port], "--port"),
            (["up", "--dashboard-port", port], "--dashboard-port"),
        ):
            result = run(*args)
            assert result.exit_code == 1, result.output
            said = " ".join(result.output.split())
            assert f"cannot serve the dashboard on 127.0.0.1:{port}" in said
            assert said.endswith(f"choose another port with {option}")
            assert "loaded" not in said  # nothing was prepared or started


def test_a_wide_table_off_a_terminal_keeps_its_headers_whole(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = write_records(home / "games.pb", generate_hand("classic", 3), generate_hand("anhui", 4))
    url = f"sqlite:///{home / 'games.db'}"
    assert run("audit-batch", games, "--store", url).exit_code == 0
    monkeypatch.delenv("COLUMNS", raising=False)  # as a pipe or a file sees it
    result = CliRunner().invoke(app, ["stats", "--database-url", url])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "player" in line)
    for column in ("player", "defending", "throws ok/failed", "levels +/-", "breaches"):
        assert column in header, header


def test_an_output_file_that_cannot_be_written_is_named_without_a_traceback(home: Path) -> None:
    games = write_records(home / "games.pb", generate_hand("classic", 3))
    nowhere = home / "no-such-folder" / "out"
    for args in (
        ["generate", "--count", "1", f"{nowhere}.pb"],
        ["sample", f"{nowhere}.pb"],
        ["export", games, "-o", f"{nowhere}.txt"],
        ["import", games, "-o", f"{nowhere}.pb"],
    ):
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        said = " ".join(result.output.split())
        assert f"error: {nowhere}" in said and "No such file or directory" in said, said
        assert "Traceback" not in said


def test_an_error_off_a_terminal_is_one_line_however_long(home: Path) -> None:
    missing = home / ("long-folder-name-" * 10) / "missing.pb"
    result = CliRunner().invoke(app, ["audit", str(missing)])  # Rich's default width: 80
    assert result.exit_code == 2
    (line,) = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert str(missing) in line, result.output


def test_an_unknown_ruleset_lists_the_rulesets_not_the_formats(home: Path) -> None:
    result = run("audit", "--ruleset", "foo", home)
    assert result.exit_code == 2
    text = re.sub(r"\s+", " ", result.output)
    assert "Rulesets: classic, shuangsheng, anhui, changshu" in text
    assert "pb" not in text.split("Rulesets:")[1].split(",")


def test_results_are_in_words_not_enum_names(home: Path) -> None:
    clean = write_records(home / "clean.pb", generate_hand("shuangsheng", 3))
    result = run("audit", clean)
    assert result.exit_code == 0, result.output
    assert "OUTCOME_" not in result.output and "SUIT_" not in result.output
    assert re.search(r"dealer side (up \d|keeps)|defenders (take|win)", result.output)


def test_help_shows_value_names_not_python_types() -> None:
    commands = ("audit", "upload", "audit-batch", "generate", "serve", "analyze", "keys")
    for args in [("--help",)] + [(command, "--help") for command in commands]:
        result = run(*args)
        assert result.exit_code == 0
        assert not re.search(r"<(bool|str|int|float|list\[\w+\]|Path)>", result.output), (
            args,
            result.output,
        )


def test_every_command_is_listed_and_loads_when_named() -> None:
    # The commands of other modules are loaded only when named; help still lists them all.
    listed = run("--help").output
    for names in Commands.lazy.values():
        for name in names:
            assert re.search(rf"│ {re.escape(name)}\s", listed), name
            assert run(name, "--help").exit_code == 0, name
    assert run("no-such-command").exit_code == 2


def test_a_second_server_on_the_same_port_fails_loudly(home: Path) -> None:
    first = ServerThread(ServerConfig(port=0, audit_workers=0, grace_seconds=1))
    try:
        with pytest.raises(PortInUse, match="in use"):
            ServerThread(ServerConfig(port=first.running.port, audit_workers=0))
        refused = run("serve", "--port", first.running.port, "--audit-workers", 0)
        assert refused.exit_code == 1 and "in use" in refused.output
    finally:
        first.stop()


def test_every_command_finds_the_same_data_from_any_folder(
    home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.delenv("CHAODIPI_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg"))
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    assert data_dir() == home / "xdg" / "chaodipi"
    monkeypatch.setenv("CHAODIPI_HOME", str(home / "mine"))
    assert data_dir() == home / "mine"


@pytest.fixture
def progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr("chaodipi.cli.console.interactive", lambda *, quiet=False: not quiet)
    yield


def test_generate_shows_progress_with_rate_and_time_left(
    home: Path, progress_on_a_terminal: None
) -> None:
    result = run("generate", home / "g.pb", "--count", 3)
    assert result.exit_code == 0, result.output
    assert "wrote 3 hands" in result.output
