"""Resource names (Google's AIP-122): ``games/{game}``, ``matches/{match}``,
``players/{player}``, relative to the caller's tenant.

>>> game_name("0123456789abcdef")
'games/0123456789abcdef'
>>> parse_name("name", "games/classic-1/a", "games")    # an id may hold "/"
'classic-1/a'
>>> parse_name("name", "classic-1", "games")
Traceback (most recent call last):
...
chaodipi.service.limits.BadArgument: name: 'classic-1' is not a name of the form games/{id}
"""

from __future__ import annotations

from chaodipi.service.limits import BadArgument, check_id, echo

GAMES = "games"
MATCHES = "matches"
PLAYERS = "players"


def game_name(game_id: str) -> str:
    """A game's resource name, ``games/{game}``."""
    return f"{GAMES}/{game_id}"


def match_name(match_id: str) -> str:
    """A match's resource name, ``matches/{match}``."""
    return f"{MATCHES}/{match_id}"


def player_name(player_id: str) -> str:
    """A player's resource name, ``players/{player}``."""
    return f"{PLAYERS}/{player_id}"


def parse_name(field: str, name: str, collection: str) -> str:
    """The id in a resource name ``{collection}/{id}``; ``BadArgument`` naming ``field`` for an
    empty or malformed name, or an id that breaks the id rules. The id is everything after the
    collection's slash, so it may hold ``/`` (record ids are the uploader's own)."""
    if not name:
        raise BadArgument(field, f"is empty: give {collection}/{{id}}")
    prefix = f"{collection}/"
    if not name.startswith(prefix):
        raise BadArgument(field, f"{echo(name)!r} is not a name of the form {collection}/{{id}}")
    return check_id(field, name[len(prefix) :])
