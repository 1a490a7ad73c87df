"""A stored game to take away: the annotated replay (notation with every finding of the stored
audit as a comment where it happened) and the service's ``Game`` message as protobuf JSON.

Both come from what is stored; nothing is audited again.
"""

from __future__ import annotations

from google.protobuf import json_format

from chaodipi.importers.annotate import game_notes
from chaodipi.importers.notation import format_game
from chaodipi.service.readmodel import StoredGame

NOTATION_HEADER = "# chaodipi notation v1 (docs/notation.md), with audit findings as comments"


def annotated_notation(game: StoredGame) -> str:
    """The game as notation with its stored findings as comments. Raises ``ValueError`` when
    the record holds text notation cannot write (the notation writer names it)."""
    return "\n".join([NOTATION_HEADER, *format_game(game.record, game_notes(game.report))]) + "\n"


def game_json(game: StoredGame) -> str:
    """``GetGame``'s answer in its basic view (the record, its stored audit, no steps) as
    JSON."""
    return json_format.MessageToJson(game.message(), indent=2, ensure_ascii=False)


def file_stem(game: StoredGame) -> str:
    """A file name for the game's downloads: its record id, else its game id, made safe."""
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in game.record.record_id)
    return stem.strip("._") or game.game_id
