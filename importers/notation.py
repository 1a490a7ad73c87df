"""The chaodipi text notation: ``RecordFile``s as readable text, in the spirit of PGN.

See docs/notation.md for the grammar. Writing then reading gives back the same records.
The reader is pure: ``read_text(text, file, strict)`` collects one problem per bad record
(with its line number and what was expected) and keeps every good record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence

from chaodipi.auditor.wire import NOTATION_OUTCOMES, SUIT_TOKENS
from chaodipi.importers.problems import Collector, ImportResult, RecordError
from chaodipi.importers.tokens import bad_token, card, rank
from chaodipi.v1 import records_pb2

SUIT_WORDS: dict[int, str] = {0: "-", **{int(k): v for k, v in SUIT_TOKENS.items()}}
"""A suit as the notation writes it: its token (``S`` … ``NT``), or ``-`` when unset."""
BID_WORDS = {0: "-", 1: "declare", 2: "lock", 3: "overcall", 4: "chaodi", 5: "flip"}
OUTCOME_WORDS: dict[int, str] = {int(k): v for k, v in NOTATION_OUTCOMES.items()}
"""A level outcome as the notation writes it (``D+2``: the word, then the levels)."""

Anchor = tuple[str, int]
"""Where a comment goes in a written game: ``("header", 0)``, ``("deal", 0)``, ``("bid", i)``,
``("bury", i)``, ``("trick", i)`` (0-based indexes into the record) or ``("end", 0)``."""

GameNotes = Mapping[Anchor, Sequence[str]]
"""Comment lines to write into one game, by anchor."""

_HEADER = re.compile(r"^\[\s*(\w+)(.*)\]$")
_HEADER_ARG = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[^\s"\]]+)')
_INT = re.compile(r"^[+-]?\d+$")
_USAGE = {
    "draw": "draw <seat>: <cards>",
    "hand": "hand <seat>: <cards>",
    "kitty": "kitty: <cards>",
    "bid": "bid <seat> <kind>: <cards> [trump=<suit>] [drawn=<count>]",
    "bury": "bury <seat>: <picked-up cards> => <buried cards>",
    "trick": "trick <number> @<leader>: <play> | <play> ... [; split (<cards>) ...] [; claim ...]",
    "claim": "claim [points=<n>] [multiplier=<n>] [bonus=<n>] [result=<D+n|swap|A+n|...>] "
    "[after=<level>:<level>] [next-dealer=<seat>] [trump=<level>:<suit>] [stake=<n>]",
}
_LINE_PATTERNS = {
    "draw": re.compile(r"^draw\s+([+-]?\d+)\s*:(.*)$"),
    "hand": re.compile(r"^hand\s+([+-]?\d+)\s*:(.*)$"),
    "kitty": re.compile(r"^kitty\s*:(.*)$"),
    "bid": re.compile(r"^bid\s+([+-]?\d+)\s+([\w-]+)\s*:(.*)$"),
    "bury": re.compile(r"^bury\s+([+-]?\d+)\s*:(.*)=>(.*)$"),
    "trick": re.compile(r"^trick\s+(\d+)\s+@([+-]?\d+)\s*:(.*)$"),
    "claim": re.compile(r"^claim(?:\s+(.*))?$"),
}
_GAME_ARGS = {
    "Ruleset": (1, "a ruleset id"),
    "Overrides": (1, "a JSON object as a string"),
    "Player": (2, "player id, display name"),
    "Levels": (2, "team 0's level, team 1's level"),
    "HandNumber": (1, "the hand's number in its match"),
    "FirstHand": (1, '"yes" or "no"'),
    "Dealer": (1, "the dealer's seat"),
    "Date": (1, "an RFC 3339 date-time"),
    "Venue": (1, "a place"),
    "Meta": (2, "key, value"),
}
_GAME_HEADERS = tuple(_GAME_ARGS)
_MATCH_HEADERS = ("Ruleset", "Overrides", "Player", "Winner", "FinalLevels")
_REPEATABLE = ("Player", "Meta")


# Writing


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _cards(tokens: Iterable[str]) -> str:
    return " ".join(card(t) for t in tokens) or "-"


def _word(words: Mapping[int, str], value: int) -> str:
    return words.get(value, str(value))


def _outcome(result: records_pb2.LevelResult) -> str:
    word = _word(OUTCOME_WORDS, result.outcome)
    if result.outcome in (records_pb2.OUTCOME_DEALER_UP, records_pb2.OUTCOME_DEFENDERS_UP):
        return f"{word}+{result.levels}"
    return f"{word}+{result.levels}" if result.levels else word


def _play(play: records_pb2.Play, expected_seat: int) -> str:
    parts = [] if play.seat == expected_seat else [f"@{play.seat}"]
    if play.attempted:
        parts += [_cards(play.attempted), "=>"]
    parts.append(_cards(play.cards))
    return " ".join(parts)


def _trick(number: int, trick: records_pb2.Trick) -> str:
    plays = " | ".join(_play(p, (trick.leader + k) % 4) for k, p in enumerate(trick.plays))
    line = f"trick {number} @{trick.leader}: {plays}".rstrip()
    if trick.declared_split:
        units = " ".join(f"({' '.join(card(t) for t in u.cards)})" for u in trick.declared_split)
        line += f" ; split {units}"
    if trick.HasField("claim"):
        line += " ; claim"
        for key, name in (("winner", "winner"), ("points", "points"), ("penalty", "penalty")):
            if trick.claim.HasField(name):  # type: ignore[arg-type]
                line += f" {key}={getattr(trick.claim, name)}"
    return line


def _claim(claim: records_pb2.HandClaim) -> str:
    fields = ["claim"]
    if claim.HasField("defenders_points"):
        fields.append(f"points={claim.defenders_points}")
    if claim.HasField("kitty_multiplier"):
        fields.append(f"multiplier={claim.kitty_multiplier}")
    if claim.HasField("kitty_bonus"):
        fields.append(f"bonus={claim.kitty_bonus}")
    if claim.HasField("level_result"):
        result = claim.level_result
        fields.append(f"result={_outcome(result)}")
        if result.dealer_team_level_after or result.defender_team_level_after:
            fields.append(
                f"after={result.dealer_team_level_after}:{result.defender_team_level_after}"
            )
    if claim.HasField("next_dealer"):
        fields.append(f"next-dealer={claim.next_dealer}")
    if claim.HasField("trump"):
        fields.append(f"trump={claim.trump.level}:{_word(SUIT_WORDS, claim.trump.suit)}")
    if claim.HasField("stake_units"):
        fields.append(f"stake={claim.stake_units}")
    return " ".join(fields)


def _comments(notes: GameNotes | None, anchor: Anchor) -> list[str]:
    if not notes:
        return []
    return ["# " + " ".join(text.split()) for text in notes.get(anchor, ())]


def _check_writable(message: records_pb2.GameRecord | records_pb2.MatchRecord, what: str) -> None:
    found = bad_token(message, "", json_names=False)
    if found:
        raise ValueError(f"{what}: {found[0]}: {found[1]}")


def format_game(game: records_pb2.GameRecord, notes: GameNotes | None = None) -> list[str]:
    """The lines of one hand; ``notes`` adds ``#`` comment lines at their anchors."""
    _check_writable(game, f"game {game.record_id!r}")
    lines = [f"[Game {_q(game.record_id)}]"]
    if game.ruleset:
        lines.append(f"[Ruleset {_q(game.ruleset)}]")
    if game.ruleset_overrides_json:
        lines.append(f"[Overrides {_q(game.ruleset_overrides_json)}]")
    lines += [f"[Player {_q(p.id)} {_q(p.display_name)}]" for p in game.players]
    if game.HasField("context"):
        ctx = game.context
        lines.append(f"[Levels {_q(ctx.team0_level)} {_q(ctx.team1_level)}]")
        if ctx.hand_number:
            lines.append(f'[HandNumber "{ctx.hand_number}"]')
        if ctx.first_hand:
            lines.append('[FirstHand "yes"]')
        if ctx.HasField("dealer"):
            lines.append(f'[Dealer "{ctx.dealer}"]')
    if game.played_at:
        lines.append(f"[Date {_q(game.played_at)}]")
    if game.venue:
        lines.append(f"[Venue {_q(game.venue)}]")
    lines += [f"[Meta {_q(k)} {_q(game.metadata[k])}]" for k in sorted(game.metadata)]
    lines += _comments(notes, ("header", 0))
    deal = game.WhichOneof("deal")
    if deal == "draw_order":
        lines.append(f"draw {game.draw_order.first_drawer}: {_cards(game.draw_order.deck)}")
    elif deal == "dealt_hands":
        lines += [f"hand {i}: {_cards(h.cards)}" for i, h in enumerate(game.dealt_hands.hands)]
        lines.append(f"kitty: {_cards(game.dealt_hands.kitty)}")
    lines += _comments(notes, ("deal", 0))
    for i, bid in enumerate(game.bids):
        line = f"bid {bid.seat} {_word(BID_WORDS, bid.kind)}: {_cards(bid.cards)}"
        if bid.HasField("trump_chosen"):
            line += f" trump={_word(SUIT_WORDS, bid.trump_chosen)}"
        if bid.HasField("drawn_count"):
            line += f" drawn={bid.drawn_count}"
        lines += [line, *_comments(notes, ("bid", i))]
    for i, ex in enumerate(game.kitty_exchanges):
        lines.append(f"bury {ex.seat}: {_cards(ex.picked_up)} => {_cards(ex.buried)}")
        lines += _comments(notes, ("bury", i))
    for i, trick in enumerate(game.tricks):
        lines += [_trick(i + 1, trick), *_comments(notes, ("trick", i))]
    if game.HasField("claim"):
        lines.append(_claim(game.claim))
    lines += _comments(notes, ("end", 0))
    return lines


def format_match(
    match: records_pb2.MatchRecord,
    hand_notes: Sequence[GameNotes | None] = (),
    notes: Sequence[str] = (),
) -> list[str]:
    """The lines of one match: its headers, each hand, then ``[EndMatch]``."""
    _check_writable(match, f"match {match.match_id!r}")
    lines = [f"[Match {_q(match.match_id)}]"]
    if match.ruleset:
        lines.append(f"[Ruleset {_q(match.ruleset)}]")
    if match.ruleset_overrides_json:
        lines.append(f"[Overrides {_q(match.ruleset_overrides_json)}]")
    lines += [f"[Player {_q(p.id)} {_q(p.display_name)}]" for p in match.players]
    if match.HasField("claimed_result"):
        claim = match.claimed_result
        if claim.HasField("winning_team"):
            lines.append(f'[Winner "{claim.winning_team}"]')
        lines.append(f"[FinalLevels {_q(claim.team0_final_level)} {_q(claim.team1_final_level)}]")
    lines += ["# " + " ".join(text.split()) for text in notes]
    for i, hand in enumerate(match.hands):
        lines += ["", *format_game(hand, hand_notes[i] if i < len(hand_notes) else None)]
    lines += ["", "[EndMatch]"]
    return lines


def format_records(records: Iterable[records_pb2.RecordFile]) -> str:
    """The notation text of several records (games and matches), ready to write to a file."""
    blocks = ["# chaodipi notation v1 (docs/notation.md)"]
    for record in records:
        kind = record.WhichOneof("record")
        if kind == "game":
            blocks.append("\n".join(format_game(record.game)))
        elif kind == "match":
            blocks.append("\n".join(format_match(record.match)))
        else:
            raise ValueError("a RecordFile holds neither a game nor a match")
    return "\n\n".join(blocks) + "\n"


# Reading


def _strip_comment(line: str) -> str:
    if "#" not in line:  # most lines: no comment to find
        return line.strip()
    quoted = escaped = False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i].strip()
    return line.strip()


def _int(text: str, what: str) -> int:
    if not _INT.match(text) or not -(2**31) <= int(text) < 2**31:
        raise ValueError(f"{what}: expected a whole number, found {text!r}")
    return int(text)


def _enum(words: Mapping[int, str], text: str, what: str) -> int:
    for value, word in words.items():
        if word.lower() == text.lower():
            return value
    if _INT.match(text):
        return _int(text, what)
    raise ValueError(f"{what}: expected one of {', '.join(words.values())}, found {text!r}")


def _read_cards(text: str, what: str) -> list[str]:
    return _card_tokens(text.split(), what)


def _card_tokens(tokens: list[str], what: str) -> list[str]:
    """Canonical card tokens of a play's or hand's tokens (``-``: no cards)."""
    if tokens == ["-"]:
        return []
    try:
        return [card(token) for token in tokens]
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def _fields(tokens: Sequence[str], allowed: Sequence[str], what: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or key not in allowed:
            raise ValueError(
                f"{what}: unexpected {token!r}: expected fields "
                + ", ".join(f"{k}=..." for k in allowed)
            )
        if key in found:
            raise ValueError(f"{what}: field {key}= given twice")
        found[key] = value
    return found


def _outcome_value(text: str, result: records_pb2.LevelResult) -> None:
    word, plus, levels = text.rpartition("+")
    if not plus or not _INT.match(levels):
        word, levels = text, "0"
    result.outcome = _enum(OUTCOME_WORDS, word, "claim result")  # type: ignore[assignment]
    result.levels = _int(levels, "claim result levels")


def _pair(text: str, what: str) -> tuple[str, str]:
    first, sep, second = text.partition(":")
    if not sep:
        raise ValueError(f"{what}: expected two values as <first>:<second>, found {text!r}")
    return first, second


class _State:
    """What one game has seen so far, for order and duplicate checks."""

    def __init__(self, game: records_pb2.GameRecord) -> None:
        self.game = game
        self.headers: dict[str, int] = {}
        self.body = False
        self.lines: dict[str, int] = {}


class _Parser:
    def __init__(self, text: str, out: Collector) -> None:
        self.text = text
        self.out = out
        self.line = 0
        self.record: records_pb2.RecordFile | None = None  # a top-level game or a match
        self.match_line = 0
        self.match_headers: dict[str, int] = {}
        self.state: _State | None = None
        self.skip: str | None = None  # "game" or "match" while skipping a bad record

    def run(self) -> ImportResult:
        for number, raw in enumerate(self.text.split("\n"), 1):
            self.line = number
            line = _strip_comment(raw.rstrip("\r"))
            if not line or self._skipping(line):
                continue
            try:
                self._line(line)
            except (RecordError, ValueError) as exc:
                self._fail(exc.message if isinstance(exc, RecordError) else str(exc))
        if self.record is not None and self.record.HasField("match"):
            self.line = len(self.text.rstrip("\n").split("\n"))
            self._fail(
                f"match {self.record.match.match_id!r} (line {self.match_line}) is not closed: "
                "expected [EndMatch] before the end of the file"
            )
        self._close_game()
        return self.out.result

    def _skipping(self, line: str) -> bool:
        if self.skip is None:
            return False
        tag = _HEADER.match(line)
        name = tag.group(1) if tag else ""
        if self.skip == "match" and name == "EndMatch":
            self.skip = None
            return True
        if name == "Match" or (self.skip == "game" and name == "Game"):
            self.skip = None
            return False
        return True

    def _fail(self, message: str) -> None:
        if self.record is not None:
            self.skip = "match" if self.record.HasField("match") else "game"
        self.record, self.state = None, None
        self.out.problem(f"line {self.line}", message)

    def _line(self, line: str) -> None:
        if line.startswith("["):
            tag, args = self._header(line)
            self._apply_header(tag, args)
        else:
            self._body(line)

    def _header(self, line: str) -> tuple[str, list[str]]:
        found = _HEADER.match(line)
        if not found:
            raise ValueError(f'malformed header {line!r}: expected [Tag "value" ...]')
        tag, rest = found.group(1), found.group(2)
        args: list[str] = []
        pos = 0
        while pos < len(rest.rstrip()):
            arg = _HEADER_ARG.match(rest, pos)
            if not arg:
                raise ValueError(f"malformed header [{tag}]: expected quoted values after the tag")
            token = arg.group(1)
            if token.startswith('"'):
                try:
                    args.append(json.loads(token))
                except json.JSONDecodeError:
                    raise ValueError(
                        f"malformed header [{tag}]: bad string {token}: expected a double-quoted "
                        'string with \\" and \\\\ escapes'
                    ) from None
            else:
                args.append(token)
            pos = arg.end()
        return tag, args

    def _close_game(self) -> None:
        if self.record is not None and self.record.HasField("game"):
            self.out.add(self.record)
            self.record = None
        if self.record is None:
            self.state = None

    def _apply_header(self, tag: str, args: list[str]) -> None:
        if tag == "Game":
            self._expect_args(tag, args, 1, "the record id")
            self._close_game()
            if self.record is not None and self.record.HasField("match"):
                game = self.record.match.hands.add()
            else:
                self.record = records_pb2.RecordFile()
                self.record.game.SetInParent()
                game = self.record.game
            game.record_id = args[0]
            self.state = _State(game)
        elif tag == "Match":
            self._expect_args(tag, args, 1, "the match id")
            if self.record is not None and self.record.HasField("match"):
                self._fail(
                    f"match {self.record.match.match_id!r} (line {self.match_line}) is not "
                    "closed: expected [EndMatch] before the next [Match]"
                )
                self.skip = None
            self._close_game()
            self.record = records_pb2.RecordFile()
            self.record.match.SetInParent()
            self.record.match.match_id = args[0]
            self.match_line, self.match_headers = self.line, {}
        elif tag == "EndMatch":
            self._expect_args(tag, args, 0, "")
            if self.record is None or not self.record.HasField("match"):
                raise ValueError("[EndMatch] without an open [Match]: expected a [Match] before it")
            self.out.add(self.record)
            self.record, self.state = None, None
        elif self.state is not None:
            self._game_header(tag, args, self.state)
        elif self.record is not None and self.record.HasField("match"):
            self._match_header(tag, args, self.record.match)
        else:
            raise ValueError(
                f"header [{tag}] before any record: expected a [Game] or [Match] first"
            )

    def _expect_args(self, tag: str, args: list[str], count: int, meaning: str) -> None:
        if len(args) != count:
            wanted = f"{count} value{'s' if count != 1 else ''}"
            wanted += f" ({meaning})" if meaning else ""
            raise ValueError(f"[{tag}] takes {wanted}: found {len(args)}")

    def _once(self, seen: dict[str, int], tag: str) -> None:
        if tag in seen and tag not in _REPEATABLE:
            raise ValueError(f"[{tag}] given twice (first on line {seen[tag]}): expected it once")
        seen.setdefault(tag, self.line)

    def _match_header(self, tag: str, args: list[str], match: records_pb2.MatchRecord) -> None:
        if tag not in _MATCH_HEADERS:
            raise ValueError(
                f"unknown match header [{tag}]: expected one of {', '.join(_MATCH_HEADERS)}, "
                "or [Game] to start the match's first hand"
            )
        self._once(self.match_headers, tag)
        if tag == "Ruleset":
            self._expect_args(tag, args, 1, "a ruleset id")
            match.ruleset = args[0]
        elif tag == "Overrides":
            self._expect_args(tag, args, 1, "a JSON object as a string")
            match.ruleset_overrides_json = args[0]
        elif tag == "Player":
            self._expect_args(tag, args, 2, "player id, display name")
            match.players.add(id=args[0], display_name=args[1])
        elif tag == "Winner":
            self._expect_args(tag, args, 1, "team 0 or 1")
            match.claimed_result.winning_team = _int(args[0], "[Winner]")
        else:
            self._expect_args(tag, args, 2, "team 0's and team 1's final level")
            match.claimed_result.team0_final_level = rank(args[0])
            match.claimed_result.team1_final_level = rank(args[1])

    def _game_header(self, tag: str, args: list[str], state: _State) -> None:
        if tag not in _GAME_HEADERS:
            raise ValueError(
                f"unknown game header [{tag}]: expected one of {', '.join(_GAME_HEADERS)}"
            )
        if state.body:
            raise ValueError(f"header [{tag}] after the hand's moves: expected headers first")
        self._once(state.headers, tag)
        game = state.game
        count, meaning = _GAME_ARGS[tag]
        self._expect_args(tag, args, count, meaning)
        if tag == "Ruleset":
            game.ruleset = args[0]
        elif tag == "Overrides":
            game.ruleset_overrides_json = args[0]
        elif tag == "Player":
            game.players.add(id=args[0], display_name=args[1])
        elif tag == "Levels":
            self._context(game, "team0_level", rank(args[0]))
            self._context(game, "team1_level", rank(args[1]))
        elif tag == "HandNumber":
            self._context(game, "hand_number", _int(args[0], "[HandNumber]"))
        elif tag == "FirstHand":
            if args[0].lower() not in ("yes", "no"):
                raise ValueError(f'[FirstHand]: expected "yes" or "no", found {args[0]!r}')
            self._context(game, "first_hand", args[0].lower() == "yes")
        elif tag == "Dealer":
            self._context(game, "dealer", _int(args[0], "[Dealer]"))
        elif tag == "Date":
            game.played_at = args[0]
        elif tag == "Venue":
            game.venue = args[0]
        else:
            game.metadata[args[0]] = args[1]

    @staticmethod
    def _context(game: records_pb2.GameRecord, name: str, value: int | bool | str) -> None:
        game.context.SetInParent()
        setattr(game.context, name, value)

    def _body(self, line: str) -> None:
        if self.state is None:
            raise ValueError(
                f"move line {line.split()[0]!r} outside a hand: expected a [Game] header first"
            )
        state = self.state
        state.body = True
        keyword = re.split(r"[\s:]", line, maxsplit=1)[0]
        pattern = _LINE_PATTERNS.get(keyword)
        if pattern is None:
            raise ValueError(
                f"unknown line {keyword!r}: expected a [Header] or one of "
                + ", ".join(_LINE_PATTERNS)
            )
        found = pattern.match(line)
        if not found:
            raise ValueError(f"malformed {keyword} line: expected `{_USAGE[keyword]}`")
        getattr(self, f"_{keyword}")(state, *found.groups())

    def _once_line(self, state: _State, keyword: str) -> None:
        if keyword in state.lines:
            raise ValueError(
                f"a second {keyword} line (first on line {state.lines[keyword]}): expected one"
            )
        state.lines[keyword] = self.line

    def _deal_kind(self, state: _State, kind: str) -> None:
        current = state.game.WhichOneof("deal")
        if current is not None and current != kind:
            given = "draw order" if current == "draw_order" else "hand and kitty lines"
            raise ValueError(
                f"the deal is already given as {given}: expected either a draw line or "
                "hand and kitty lines, not both"
            )

    def _draw(self, state: _State, seat: str, cards: str) -> None:
        self._deal_kind(state, "draw_order")
        self._once_line(state, "draw")
        draw = state.game.draw_order
        draw.SetInParent()
        draw.first_drawer = _int(seat, "draw seat")
        draw.deck.extend(_read_cards(cards, "draw"))

    def _hand(self, state: _State, seat: str, cards: str) -> None:
        self._deal_kind(state, "dealt_hands")
        dealt = state.game.dealt_hands
        if _int(seat, "hand seat") != len(dealt.hands):
            raise ValueError(
                f"hand {seat}: expected hand {len(dealt.hands)} next (hands go in seat order 0-3)"
            )
        dealt.hands.add().cards.extend(_read_cards(cards, f"hand {seat}"))

    def _kitty(self, state: _State, cards: str) -> None:
        self._deal_kind(state, "dealt_hands")
        self._once_line(state, "kitty")
        state.game.dealt_hands.SetInParent()
        state.game.dealt_hands.kitty.extend(_read_cards(cards, "kitty"))

    def _bid(self, state: _State, seat: str, kind: str, rest: str) -> None:
        number = len(state.game.bids) + 1
        tokens = rest.split()
        split = next((i for i, t in enumerate(tokens) if "=" in t), len(tokens))
        fields = _fields(tokens[split:], ("trump", "drawn"), f"bid {number}")
        bid = records_pb2.BidEvent(
            seat=_int(seat, f"bid {number} seat"),
            kind=_enum(BID_WORDS, kind, f"bid {number} kind"),  # type: ignore[arg-type]
            cards=_card_tokens(tokens[:split], f"bid {number}"),
        )
        if "trump" in fields:
            bid.trump_chosen = _enum(SUIT_WORDS, fields["trump"], f"bid {number} trump")  # type: ignore[assignment]
        if "drawn" in fields:
            bid.drawn_count = _int(fields["drawn"], f"bid {number} drawn")
        state.game.bids.append(bid)

    def _bury(self, state: _State, seat: str, picked: str, buried: str) -> None:
        number = len(state.game.kitty_exchanges) + 1
        state.game.kitty_exchanges.add(
            seat=_int(seat, f"bury {number} seat"),
            picked_up=_read_cards(picked, f"bury {number} picked-up cards"),
            buried=_read_cards(buried, f"bury {number} buried cards"),
        )

    def _trick(self, state: _State, number: str, leader: str, rest: str) -> None:
        expected = len(state.game.tricks) + 1
        if int(number) != expected:
            raise ValueError(f"trick {number}: expected trick {expected} next (numbered from 1)")
        trick = state.game.tricks.add(leader=_int(leader, f"trick {number} leader"))
        sections = rest.split(";")
        if sections[0].strip():
            first = trick.leader
            plays = trick.plays
            for k, text in enumerate(sections[0].split("|")):
                self._read_play(plays.add(), text, (first + k) % 4, number, k + 1)
        seen: set[str] = set()
        for section in (s.strip() for s in sections[1:]):
            name = section.split(maxsplit=1)[0] if section else ""
            if name not in ("split", "claim") or name in seen:
                raise ValueError(
                    f"trick {number}: unexpected section {section!r}: expected at most one "
                    "'; split (<cards>) ...' and one '; claim [winner=<seat>] [points=<n>] "
                    "[penalty=<n>]'"
                )
            seen.add(name)
            body = section[len(name) :]
            if name == "split":
                self._read_split(trick, body, number)
            else:
                self._read_trick_claim(trick, body, number)

    @staticmethod
    def _read_play(play: records_pb2.Play, text: str, seat: int, trick: str, number: int) -> None:
        """Play ``number`` of a trick, read into ``play`` (added to the trick in place: a
        message appended would be copied)."""
        what = f"trick {trick} play {number}"
        tokens = text.split()
        if tokens and tokens[0].startswith("@"):
            seat = _int(tokens.pop(0)[1:], f"{what} seat")
        play.seat = seat
        if not tokens:
            raise ValueError(f"{what}: expected cards (write '-' for a play of no cards)")
        if "=>" in tokens:
            cut = tokens.index("=>")
            play.attempted.extend(_card_tokens(tokens[:cut], f"{what} attempted throw"))
            tokens = tokens[cut + 1 :]
            if not tokens:
                raise ValueError(f"{what}: expected the forced cards after '=>'")
        play.cards.extend(_card_tokens(tokens, what))

    @staticmethod
    def _read_split(trick: records_pb2.Trick, body: str, number: str) -> None:
        units = re.findall(r"\(([^()]*)\)", body)
        if re.sub(r"\([^()]*\)", "", body).strip() or not units:
            raise ValueError(
                f"trick {number} split: expected units in parentheses, e.g. "
                "'; split (SA SA SA) (SK SK)'"
            )
        for unit in units:
            tokens = unit.split()
            trick.declared_split.add().cards.extend(
                _card_tokens(tokens, f"trick {number} split") if tokens else []
            )

    @staticmethod
    def _read_trick_claim(trick: records_pb2.Trick, body: str, number: str) -> None:
        fields = _fields(body.split(), ("winner", "points", "penalty"), f"trick {number} claim")
        trick.claim.SetInParent()
        for key, value in fields.items():
            setattr(trick.claim, key, _int(value, f"trick {number} claim {key}"))

    def _claim(self, state: _State, rest: str | None) -> None:
        self._once_line(state, "claim")
        allowed = (
            "points",
            "multiplier",
            "bonus",
            "result",
            "after",
            "next-dealer",
            "trump",
            "stake",
        )
        fields = _fields((rest or "").split(), allowed, "claim")
        claim = state.game.claim
        claim.SetInParent()
        numbers = {
            "points": "defenders_points",
            "multiplier": "kitty_multiplier",
            "bonus": "kitty_bonus",
            "next-dealer": "next_dealer",
            "stake": "stake_units",
        }
        for key, value in fields.items():
            if key in numbers:
                setattr(claim, numbers[key], _int(value, f"claim {key}"))
            elif key == "result":
                claim.level_result.SetInParent()
                _outcome_value(value, claim.level_result)
            elif key == "after":
                dealer, defender = _pair(value, "claim after")
                claim.level_result.dealer_team_level_after = rank(dealer)
                claim.level_result.defender_team_level_after = rank(defender)
            else:
                level, suit = _pair(value, "claim trump")
                claim.trump.level = rank(level)
                claim.trump.suit = _enum(SUIT_WORDS, suit, "claim trump suit")  # type: ignore[assignment]


def read_text(text: str, file: str, strict: bool = False) -> ImportResult:
    """Every record in a notation text; bad records are reported and skipped (strict: raised)."""
    out = Collector(file, strict)
    return _Parser(text, out).run()
