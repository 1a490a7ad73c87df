"""``chaodipi dump``: every stored game of a tenant with its stored audit, streamed out.

Two forms: JSON Lines, one stored game a line as the protobuf JSON the service answers for it
(the record, its audit report, its id, content hash and time stored), which reads back with any
protobuf library; or annotated notation, each game as text with its findings as comments. Games
come newest stored first, a page at a time, so memory stays flat; ``--after GAME`` resumes an
interrupted dump after the last game it wrote.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from chaodipi.cli.console import Command, count, error, progress_bar, stderr, user
from chaodipi.cli.options import DatabaseOpt, TenantOpt
from chaodipi.service.home import DEFAULT_TENANT

if TYPE_CHECKING:
    from chaodipi.service.readmodel import ReadModel, StoredGame

FORMATS = ("jsonl", "text")
PAGE = 200
"""Games read from the database at a time."""


def _jsonl(game: StoredGame) -> str:
    from chaodipi.auditor.jsondict import message_json

    # MessageToJson's text on one line, without its per-field descriptor work (jsondict).
    return message_json(game.message()) + "\n"


def _text(game: StoredGame) -> str:
    from chaodipi.importers.annotate import game_notes
    from chaodipi.importers.notation import format_game

    try:
        lines = format_game(game.record, game_notes(game.report))
    except ValueError as exc:  # a token the notation cannot write: say so, keep going
        return f"# game {game.game_id}: not written as notation ({exc}); dump it as jsonl\n\n"
    return "\n".join([f"# stored game {game.game_id}", *lines]) + "\n\n"


def dump_command(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here (default: stdout)."),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="jsonl (protobuf JSON) or text.")
    ] = "jsonl",
    after: Annotated[
        str | None,
        typer.Option(
            "--after", metavar="GAME", help="Resume after this game (the last one written)."
        ),
    ] = None,
    database_url: DatabaseOpt = None,
    tenant: TenantOpt = DEFAULT_TENANT,
) -> None:
    """Write every stored game of a tenant with its stored audit (a backup you can read)."""
    from chaodipi.cli.service import local_read_model

    if format not in FORMATS:
        error(f"--format {user(format)}: expected jsonl or text")
        raise typer.Exit(2)
    model = local_read_model(database_url, tenant)
    if model is None:
        error(f"nothing to dump: no game is stored for tenant {user(tenant)} in the database")
        raise typer.Exit(1)
    token = ""
    if after is not None:
        found = model.page_token_after(after)
        if found is None:
            error(f"--after {user(after)}: no such game for tenant {user(tenant)}")
            raise typer.Exit(1)
        token = found
    write = _jsonl if format == "jsonl" else _text
    if output is None:
        done, last = _dump(model, token, write, sys.stdout)
    else:
        with output.open("a" if after else "w", encoding="utf-8") as out:
            done, last = _dump(model, token, write, out)
    stderr().print(f"dumped {count(done, 'game')}" + (f"; the last was {last}" if last else ""))


def _dump(
    model: ReadModel, token: str, write: Callable[[StoredGame], str], out: TextIO
) -> tuple[int, str]:
    """Write games a page at a time from ``token``: how many, and the last game's id."""
    done, last = 0, ""
    page = model.games(page_size=PAGE, page_token=token)
    with progress_bar("dumping", page.total, unit="games") as advance:
        while True:
            for row in page.games:
                game = model.game(row.game_id)
                if game is None:  # deleted since the page was read
                    continue
                out.write(write(game))
                done, last = done + 1, game.game_id
                advance()
            out.flush()
            if not page.next_page_token:
                return done, last
            page = model.games(page_size=PAGE, page_token=page.next_page_token)


def register(app: typer.Typer) -> None:
    """Add ``dump`` to the CLI app."""
    app.command("dump", cls=Command)(dump_command)
