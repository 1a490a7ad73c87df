"""Options several commands share, and how their values are read."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from chaodipi.cli.console import error, user
from chaodipi.service.home import ENV_URL

if TYPE_CHECKING:
    from chaodipi.engine.ruleset import Ruleset

DatabaseOpt = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        envvar=ENV_URL,
        metavar="URL",
        help="SQLAlchemy URL (default: SQLite in the data folder, $CHAODIPI_HOME or the user's).",
    ),
]
ServerOpt = Annotated[
    str | None,
    typer.Option(
        "--server",
        metavar="HOST:PORT",
        help="A running server (default: the local database directly).",
    ),
]
KeyOpt = Annotated[
    str | None,
    typer.Option("--api-key", envvar="CHAODIPI_API_KEY", metavar="KEY", help="API key to send."),
]
TlsCaOpt = Annotated[
    Path | None,
    typer.Option(
        "--tls-ca",
        metavar="FILE",
        dir_okay=False,
        help="Speak TLS to the server, trusting this CA certificate (PEM).",
    ),
]
TlsCertOpt = Annotated[
    Path | None,
    typer.Option(
        "--tls-cert",
        metavar="FILE",
        dir_okay=False,
        help="Client certificate (PEM) for a server that asks for one (mutual TLS).",
    ),
]
TlsKeyOpt = Annotated[
    Path | None,
    typer.Option("--tls-key", metavar="FILE", dir_okay=False, help="The client certificate's key."),
]
TenantOpt = Annotated[
    str,
    typer.Option(
        "--tenant", metavar="NAME", help="Tenant whose data to read (local database only)."
    ),
]


def ruleset_option(value: str | None) -> Ruleset | None:
    """A ruleset named on the command line: a preset's id, or a TOML/JSON house-variant file."""
    if value is None:
        return None
    from chaodipi.engine.presets import BUILTIN, PRESETS, get_ruleset, ruleset_from_text
    from chaodipi.engine.ruleset import RulesetError

    path = Path(value)
    if path.suffix in (".toml", ".json") and path.is_file():
        try:
            return ruleset_from_text(path.read_text(encoding="utf-8"), path.name)
        except (OSError, UnicodeDecodeError, RulesetError) as exc:
            error(f"--ruleset {user(path)}: {user(exc)}")
            raise typer.Exit(2) from None
    try:
        return get_ruleset(value)
    except RulesetError:
        programs = [name for name in PRESETS if name not in BUILTIN]
        error(
            f"--ruleset {user(value)}: no such ruleset and no .toml or .json file by that name. "
            f"Rulesets: {', '.join(BUILTIN)}; the imported programs' own: {', '.join(programs)}"
        )
        raise typer.Exit(2) from None
