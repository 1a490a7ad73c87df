"""Options several commands share, and how their values are read."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from chaodipi.cli.console import error, user

if TYPE_CHECKING:
    from chaodipi.engine.ruleset import Ruleset


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
