"""Botzone 双升 judger logs (Tractor-RL ``judger.py``) as GameRecords.

Input (docs/foreign-formats.md §2): ``{"initdata": …, "log": [judge item, player item, …]}``
as the judger is fed, with ``initdata`` as an object or a JSON string and any extra Botzone
keys (``verdict``, ``time``, ``memory``…) ignored; a Botzone match object (``players`` by seat
beside ``log``) gives the players; a ``gzip+base64`` envelope around it is opened too. The
judge's requests drive the reading: each answer is read as a bid (deal stage), the bury
(cover stage) or a play (play stage); what was actually put on the table comes from the next
judge item, so a failed throw keeps its attempt. ``finish.content`` (Botzone's points for the
deal) is the claimed result. A log that is cut, has no ``finish`` or ends in the judger's
error is read as far as it goes, and the record says why it stops (``audit.incomplete``). A log
holding what the judger takes but no ruleset field says is marked ``audit.unsupported``.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

from chaodipi.auditor.reading import INCOMPLETE_KEY, UNSUPPORTED_KEY
from chaodipi.engine.cards import label_cards, parse_cards
from chaodipi.engine.presets import BOTZONE
from chaodipi.importers import jsonpath as jp
from chaodipi.importers.problems import Collector, ImportResult, RecordError
from chaodipi.importers.protojson import documents, json_values
from chaodipi.v1 import records_pb2

_RANKS = "A23456789TJQK"  # cardscale, with "0" (ten) written T
_SUITS = "SHCD"  # suitset s, h, c, d
_MAJORS = {
    "s": records_pb2.SUIT_SPADES,
    "h": records_pb2.SUIT_HEARTS,
    "c": records_pb2.SUIT_CLUBS,
    "d": records_pb2.SUIT_DIAMONDS,
    "n": records_pb2.SUIT_NO_TRUMP,
}


def card_token(card_id: int) -> str:
    """Our token of a Botzone card id: ``id % 54 = 4 * rank + suit`` (A, 2…K; s, h, c, d)."""
    face = card_id % 54
    if face >= 52:
        return "LJ" if face == 52 else "BJ"
    return _SUITS[face % 4] + _RANKS[face // 4]


def _ids(value: Any, path: str) -> list[int]:
    return [jp.integer(c, f"{path}[{i}]", 0, 107) for i, c in enumerate(jp.array(value, path))]


def _tokens(value: Any, path: str) -> list[str]:
    return [card_token(c) for c in _ids(value, path)]


def _level(value: Any, path: str) -> str:
    level = jp.text(value, path)
    letter = "T" if level in ("0", "10") else level.upper()
    if len(letter) != 1 or letter not in "23456789TJQKA":
        raise RecordError(path, f"expected a level 2-9, 0 (ten), J, Q, K or A, found {level!r}")
    return letter


def _only(item: dict[str, Any], path: str, what: str) -> tuple[str, Any]:
    if len(item) != 1:
        raise RecordError(path, f"expected exactly one key ({what}), found {len(item)}")
    return next(iter(item.items()))


_NO_FINISH = "the log has no finish item: the judger's result is not there to check"


class _Log:
    """Walks the log, request by request, building the GameRecord.

    ``incomplete`` says why the deal has no result to check, when it has none: the log is
    cut (on a request, or after an answer the judger never processed), has no ``finish``
    item, or the judger ended it with an error. The record then holds everything read.
    ``unsupported`` names the first thing the judger took that the ``botzone`` ruleset cannot
    replay: a side-suit throw holding that suit's level card, a bury of another size than 8.
    """

    def __init__(self, game: records_pb2.GameRecord, log: list[Any], path: str, level: str) -> None:
        self.game = game
        self.log = log
        self.path = path
        self.level = level
        self.unsupported = ""
        self.dealt = 0
        self.played = 0
        self.trick: records_pb2.Trick | None = None
        self.banking: dict[str, Any] = {}
        self.total = 0
        self.incomplete = ""

    def judge(self, index: int) -> dict[str, Any]:
        at = f"{self.path}[{index}]"
        item = jp.obj(self.log[index], at, "a judge item {output: …}")
        return jp.obj(jp.field(item, "output", at, "the judge's output"), f"{at}.output")

    def answer(self, index: int, seat: str) -> tuple[list[Any], str]:
        """The answer of ``seat`` at ``index`` and its path."""
        at = f"{self.path}[{index}]"
        item = jp.obj(self.log[index], at, 'a player item {"<seat>": {response}}')
        key, body = _only(item, at, f"the seat {seat} that was asked")
        if key != seat:
            raise RecordError(at, f"expected the answer of seat {seat}, found seat {key}")
        where = jp.key_path(at, key)
        response = jp.field(jp.obj(body, where), "response", where, "the answer")
        return jp.array(response, f"{where}.response"), f"{where}.response"

    def error_finish(self, index: int) -> dict[str, Any] | None:
        """The judge's output at ``index`` when it is a finish that reports an error."""
        if index >= len(self.log):
            return None
        item = self.log[index]
        output = item.get("output") if isinstance(item, dict) else None
        if not isinstance(output, dict) or output.get("command") != "finish":
            return None
        display = output.get("display")
        return output if isinstance(display, dict) and display.get("error") else None

    def read(self, deal: list[str]) -> None:
        for index in range(0, len(self.log), 2):
            output = self.judge(index)
            at = f"{self.path}[{index}].output"
            command = output.get("command")
            content = jp.obj(jp.field(output, "content", at, "the request"), f"{at}.content")
            self._after(index, output)
            if command == "finish":
                self._finish(content, output, at)
                return
            if command != "request":
                raise RecordError(f"{at}.command", f"expected request or finish, found {command!r}")
            seat, request = _only(content, f"{at}.content", "the seat asked")
            if seat not in ("0", "1", "2", "3"):
                raise RecordError(
                    f"{at}.content", f"expected a seat 0-3 as the key, found {seat!r}"
                )
            where = jp.key_path(f"{at}.content", seat)
            request = jp.obj(request, where)
            stage = request.get("stage")
            if stage not in ("deal", "cover", "play"):
                raise RecordError(
                    f"{where}.stage", f"expected deal, cover or play, found {stage!r}"
                )
            if index + 1 >= len(self.log):
                self.incomplete = (
                    f"the log ends at {self.path}[{index}], a {stage} request to seat {seat} "
                    "that was never answered"
                )
                return
            if not self._answer(index, int(seat), stage, request, where, deal):
                return
            if isinstance(request.get("global"), dict):
                self._global(request["global"], f"{where}.global")
        if not self.incomplete:
            self.incomplete = _NO_FINISH

    def _answer(
        self,
        index: int,
        seat: int,
        stage: str,
        request: dict[str, Any],
        where: str,
        deal: list[str],
    ) -> bool:
        """Read the answer to the request at ``index``; False when the reading stops there.

        An answer the judger never completed (the last item of a cut log, or the one its
        error finish rejects) is read unless it is a lead of several cards: whether the
        judger would cut that throw down shows only in its next item.
        """
        at = f"{self.path}[{index + 1}]"
        error = self.error_finish(index + 2)
        cut = index + 2 >= len(self.log)
        try:
            raw, answer_at = self.answer(index + 1, str(seat))
            cards = _tokens(raw, answer_at)
        except RecordError as exc:
            if error is None:
                raise
            self.incomplete = f"seat {seat}'s answer at {at} is not read ({exc.message})"
            return True  # the error finish comes next and ends the reading
        if stage == "play" and self._leads() and len(cards) > 1 and (cut or error is not None):
            why = "the log ends there" if cut else "the judger rejected it"
            self.incomplete = (
                f"seat {seat}'s lead of {len(cards)} cards at {at} is not read: {why} before "
                "checking it as a throw"
            )
            return not cut
        if stage == "deal":
            self._deal(seat, request, where, cards, answer_at, deal)
        elif stage == "cover":
            if len(cards) != 8 and not self.unsupported:
                # The judger takes a bury of any size; the hands of 25 and the kitty of 8 are
                # the ruleset's, so a deal played with others is not one it can replay.
                self.unsupported = (
                    f"seat {seat} buries {len(cards)} cards at {at}, which the judger takes "
                    "unchecked: no field models a kitty of another size than 8"
                )
            self.game.kitty_exchanges.add(
                seat=seat,
                picked_up=_tokens(
                    jp.field(request, "deliver", where, "the kitty"), f"{where}.deliver"
                ),
                buried=cards,
            )
        else:
            self._play(seat, request, where, cards)
        if cut:
            self.incomplete = (
                f"the log ends at {at}, seat {seat}'s answer, before the judger's next item"
                if self.played < 100
                else _NO_FINISH
            )
        return True

    def _leads(self) -> bool:
        """Whether the next play leads a trick."""
        return self.trick is None or len(self.trick.plays) == 4

    def _global(self, state: dict[str, Any], where: str) -> None:
        """Keep the banking (trump) and the score the judge shows to every request."""
        if "banking" in state:
            banking = jp.obj(state["banking"], f"{where}.banking")
            major = banking.get("major")
            if major is not None and not isinstance(major, str):
                raise RecordError(
                    f"{where}.banking.major",
                    f"expected a suit letter s, h, c, d or n (no trump), found {jp.kind(major)}",
                )
            self.banking = banking
        self.total = state.get("total_score", self.total)

    def _deal(
        self,
        seat: int,
        request: dict[str, Any],
        where: str,
        cards: list[str],
        answer_at: str,
        deal: list[str],
    ) -> None:
        delivered = _tokens(
            jp.field(request, "deliver", where, "the card dealt"), f"{where}.deliver"
        )
        if self.dealt >= 100 or delivered != [deal[self.dealt]]:
            expected = deal[self.dealt] if self.dealt < 100 else "no further card"
            raise RecordError(
                f"{where}.deliver",
                f"expected {expected} (card {self.dealt + 1} "
                "of initdata.allocation in dealing order)",
            )
        self.dealt += 1
        if not cards:
            return
        if len(cards) > 2:
            raise RecordError(
                answer_at,
                "expected [] (pass), one card (a call) or a pair "
                f"(a snatch), found {len(cards)} cards",
            )
        kind = records_pb2.BID_KIND_DECLARE if len(cards) == 1 else records_pb2.BID_KIND_OVERCALL
        self.game.bids.add(seat=seat, kind=kind, cards=cards, drawn_count=self.dealt)

    def _play(self, seat: int, request: dict[str, Any], where: str, cards: list[str]) -> None:
        history = jp.array(
            jp.field(request, "history", where, "the trick history"), f"{where}.history", 4
        )
        current = jp.array(history[1], f"{where}.history[1]")
        if not current:
            if self.trick is not None:
                self.trick.claim.winner = jp.integer(history[3], f"{where}.history[3]", 0, 3)
            self.trick = self.game.tricks.add(leader=seat)
        elif self.trick is None:
            raise RecordError(f"{where}.history[1]", "expected an empty trick at the first play")
        self.trick.plays.add(seat=seat, cards=cards)
        self.played += len(cards)
        if not current and not self.unsupported and self._side_throw_with_level(cards):
            level_card = label_cards(parse_cards(cards[0][0] + self.level))
            self.unsupported = (
                f"trick {len(self.game.tricks)}: seat {seat} leads "
                f"{label_cards(parse_cards(cards))}, a throw of one suit letter holding "
                f"{level_card}, a trump: the judger checks a throw's suit by the letter, and "
                "no field models its check, penalty and winner for such a throw"
            )

    def _side_throw_with_level(self, cards: list[str]) -> bool:
        """Whether a lead mixes a side suit's level card with other cards of that suit.

        The judger lets such a throw pass (checkThrow compares suit letters when the first card
        is no trump); the rules make the level card a trump, so the lead mixes two suits.
        """
        suits = {c[0] for c in cards}
        ranks = {c[1] for c in cards}
        major = str(self.banking.get("major", "")).upper()
        return (
            len(suits) == 1
            and not suits & {"L", "B"}
            and suits != {major}
            and self.level in ranks
            and len(ranks) > 1
        )

    def _after(self, index: int, output: dict[str, Any]) -> None:
        """Apply what a judge item shows about the previous play: the cards put down, the score."""
        if self.trick is None or not self.trick.plays or index == 0:
            return
        display = output.get("display")
        event = display.get("event") if isinstance(display, dict) else None
        if not isinstance(event, dict) or event.get("action") != "play":
            return
        at = f"{self.path}[{index}].output.display"
        play = self.trick.plays[-1]
        shown = _tokens(
            jp.field(event, "poker", f"{at}.event", "the cards played"), f"{at}.event.poker"
        )
        # A throw that stands is put down regrouped, unit by unit (checkThrow's split): only
        # other cards mean the judger cut it down.
        if sorted(shown) != sorted(play.cards):
            self.played -= len(play.cards) - len(shown)
            play.attempted.extend(play.cards)
            del play.cards[:]
            play.cards.extend(shown)
        change = display.get("get_score") if isinstance(display, dict) else None
        if len(self.trick.plays) == 1 and isinstance(change, int) and change:
            penalty = jp.integer(change, f"{at}.get_score", -jp.INT32, jp.INT32)
            self.trick.claim.penalty = abs(penalty)

    def _finish(self, content: dict[str, Any], output: dict[str, Any], at: str) -> None:
        display = output.get("display")
        errors = display.get("error") if isinstance(display, dict) else None
        self.game.metadata["botzone.scores"] = json.dumps(content, sort_keys=True)
        if errors:
            self.game.metadata["botzone.error"] = json.dumps(errors)
            why = (
                f"the judger ended the deal with an error at {at.removesuffix('.output')}: "
                f"{_verdict(errors, f'{at}.display')}"
            )
            self.incomplete = f"{why}; {self.incomplete}" if self.incomplete else why
            return
        change = display.get("get_score", 0) if isinstance(display, dict) else 0
        total = jp.integer(self.total, f"{at}.global.total_score", -jp.INT32, jp.INT32)
        points = total + jp.integer(change, f"{at}.display.get_score", -jp.INT32, jp.INT32)
        self.game.claim.defenders_points = jp.integer(
            points, f"{at}.display.get_score", -jp.INT32, jp.INT32
        )
        if self.game.kitty_exchanges:
            self.game.claim.level_result.CopyFrom(
                _match_points(content, self.game.kitty_exchanges[0].seat, f"{at}.content")
            )


def _verdict(errors: Any, where: str) -> str:
    """``seat 1 ILLEGAL_MOVE [4]``: the seat the judger blamed and its reason, as written."""
    blamed = [
        f"seat {seat} {reason}"
        for seat, reason in enumerate(errors if isinstance(errors, list) else [])
        if isinstance(reason, str)
    ]
    if blamed:
        return ", ".join(blamed)
    return f"{jp.kind(errors)} in {where}.error"


def _match_points(content: dict[str, Any], banker: int, where: str) -> records_pb2.LevelResult:
    """``finish.content`` (EndGame's points by seat) as the claimed result of the deal.

    One side's two seats score 1-3 each and the other side's 0: the banker's side scoring n
    is ``dealer_up`` n, the defenders scoring n ``defenders_up`` n (``LevelRule.match_points``).
    """
    points = [
        jp.integer(jp.field(content, str(s), where, "the seat's points"), f'{where}["{s}"]')
        for s in range(4)
    ]
    ours, theirs = points[banker % 2], points[1 - banker % 2]
    paired = points[0] == points[2] and points[1] == points[3]
    if not paired or min(ours, theirs) != 0 or not 1 <= max(ours, theirs) <= 3:
        raise RecordError(
            where,
            "expected Botzone's end-of-deal points: one side's two seats 1, 2 or 3 each and "
            f"the other side's 0, found {points}",
        )
    if ours:
        return records_pb2.LevelResult(outcome=records_pb2.OUTCOME_DEALER_UP, levels=ours)
    return records_pb2.LevelResult(outcome=records_pb2.OUTCOME_DEFENDERS_UP, levels=theirs)


def _name(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _player(entry: Any, seat: int) -> records_pb2.Player:
    """A seat's player from a Botzone match's ``players[seat]``, else a seat-based one.

    A bot entry is ``{"type": "bot", "bot": {"bot": {"_id", "name"}, "user": {"name"}}}``:
    the bot's id (stable across its versions) and ``name (user)``. A human entry's shape is
    not documented; its ``user`` (``_id``, ``name``) is used when it has one.
    """
    if isinstance(entry, dict):
        version = entry.get("bot")
        if isinstance(version, dict) and isinstance(version.get("bot"), dict):
            bot, user = version["bot"], version.get("user")
            bot_id, name = _name(bot.get("_id")), _name(bot.get("name"))
            owner = _name(user.get("name")) if isinstance(user, dict) else ""
            if bot_id:
                shown = name or bot_id
                return records_pb2.Player(
                    id=f"botzone:bot:{bot_id}",
                    display_name=f"{shown} ({owner})" if owner else shown,
                )
        user = entry.get("user")
        if isinstance(user, dict) and _name(user.get("_id")):
            user_id = _name(user.get("_id"))
            return records_pb2.Player(
                id=f"botzone:user:{user_id}", display_name=_name(user.get("name")) or user_id
            )
    return records_pb2.Player(id=f"botzone:seat{seat}", display_name=f"seat {seat}")


def game_from_botzone(value: Any, path: str, record_id: str) -> records_pb2.GameRecord:
    """One GameRecord (ruleset ``botzone``) from a judger log ``{initdata, log}``."""
    if jp.is_envelope(value):
        value = jp.open_envelope(value, path)
        path = f"{path}.data"
    match = jp.obj(value, path, "a Botzone log {initdata, log}")
    init_at = f"{path}.initdata"
    init = jp.obj(
        jp.parse_embedded(jp.field(match, "initdata", path, "the initdata"), init_at),
        init_at,
        "the initdata object",
    )
    allocation = jp.array(
        jp.field(init, "allocation", init_at, "4 hands of 25 card ids"), f"{init_at}.allocation", 4
    )
    hands = [
        _tokens(jp.array(h, f"{init_at}.allocation[{s}]", 25), f"{init_at}.allocation[{s}]")
        for s, h in enumerate(allocation)
    ]
    kitty = _tokens(
        jp.array(
            jp.field(init, "publiccard", init_at, "the 8 kitty cards"), f"{init_at}.publiccard", 8
        ),
        f"{init_at}.publiccard",
    )
    level = _level(init.get("level", "2"), f"{init_at}.level")
    first_round = init.get("first_round", True)
    if not isinstance(first_round, bool):
        raise RecordError(
            f"{init_at}.first_round", f"expected true or false, found {jp.kind(first_round)}"
        )
    banker = init.get("banker")
    first = 0 if banker is None else jp.integer(banker, f"{init_at}.banker", 0, 3)
    deal = [hands[(first + k) % 4][k // 4] for k in range(100)]
    game = records_pb2.GameRecord(record_id=record_id, ruleset=BOTZONE.id)
    # A Botzone match object lists its players by seat; the judger's own log names none.
    players = match.get("players")
    entries = players if isinstance(players, list) and len(players) == 4 else [None] * 4
    game.players.extend(_player(entry, seat) for seat, entry in enumerate(entries))
    game.context.team0_level = level
    game.context.team1_level = level
    game.context.first_hand = first_round
    if not first_round:
        game.context.dealer = first
    game.draw_order.first_drawer = first
    game.draw_order.deck.extend([*deal, *kitty])
    if "seed" in init:
        game.metadata["botzone.seed"] = str(init["seed"])
    log = _Log(
        game,
        jp.array(jp.field(match, "log", path, "the log items"), f"{path}.log"),
        f"{path}.log",
        level,
    )
    log.read(deal)
    if log.incomplete:
        game.metadata[INCOMPLETE_KEY] = log.incomplete
    if log.unsupported:
        game.metadata[UNSUPPORTED_KEY] = log.unsupported
    major = log.banking.get("major")
    if major in _MAJORS:
        game.claim.trump.level = level
        game.claim.trump.suit = _MAJORS[major]
    return game


def read_botzone(text: str, file: str, strict: bool = False) -> ImportResult:
    """GameRecords from a Botzone log file (one log, an array of logs, or JSON Lines)."""
    out = Collector(file, strict)
    values = json_values(text)
    if isinstance(values, RecordError):
        out.problem(values.location, values.message)
        return out.result
    stem = PurePath(file).stem
    for i, path, value in documents(values, out):
        record_id = stem if len(values) == 1 else f"{stem}#{i + 1}"
        try:
            out.add(records_pb2.RecordFile(game=game_from_botzone(value, path, record_id)))
        except RecordError as exc:
            out.problem(exc.location, exc.message)
    return out.result
