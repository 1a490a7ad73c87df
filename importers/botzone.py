"""Botzone 双升 judger logs (Tractor-RL ``judger.py``) as GameRecords.

Input (docs/foreign-formats.md §2): ``{"initdata": …, "log": [judge item, player item, …]}``
as the judger is fed, with ``initdata`` as an object or a JSON string and any extra Botzone
keys (``verdict``, ``time``, ``memory``…) ignored; a ``gzip+base64`` envelope around it is
opened too. The judge's requests drive the reading: each answer is read as a bid (deal stage),
the bury (cover stage) or a play (play stage); what was actually put on the table comes from
the next judge item, so a failed throw keeps its attempt. A log the judger ended with an error
is imported up to that point, with the judger's verdict in the metadata.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

from chaodipi.engine.presets import BOTZONE
from chaodipi.importers import jsonpath as jp
from chaodipi.importers.problems import Collector, ImportResult, RecordError
from chaodipi.importers.protojson import json_values
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


class _Log:
    """Walks the log, request by request, building the GameRecord."""

    def __init__(self, game: records_pb2.GameRecord, log: list[Any], path: str) -> None:
        self.game = game
        self.log = log
        self.path = path
        self.dealt = 0
        self.trick: records_pb2.Trick | None = None
        self.banking: dict[str, Any] = {}
        self.total = 0

    def judge(self, index: int) -> dict[str, Any]:
        at = f"{self.path}[{index}]"
        item = jp.obj(self.log[index], at, "a judge item {output: …}")
        return jp.obj(jp.field(item, "output", at, "the judge's output"), f"{at}.output")

    def answer(self, index: int, seat: str) -> list[Any]:
        at = f"{self.path}[{index}]"
        if index >= len(self.log):
            raise RecordError(
                self.path,
                f"expected the answer of seat {seat} at index {index}: the log ends early",
            )
        item = jp.obj(self.log[index], at, 'a player item {"<seat>": {response}}')
        key, body = _only(item, at, f"the seat {seat} that was asked")
        if key != seat:
            raise RecordError(at, f"expected the answer of seat {seat}, found seat {key}")
        where = jp.key_path(at, key)
        response = jp.field(jp.obj(body, where), "response", where, "the answer")
        return jp.array(response, f"{where}.response")

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
            answer = self.answer(index + 1, seat)
            answer_at = f"{jp.key_path(f'{self.path}[{index + 1}]', seat)}.response"
            if stage == "deal":
                self._deal(int(seat), request, where, answer, answer_at, deal)
            elif stage == "cover":
                self._cover(int(seat), request, where, answer, answer_at)
            elif stage == "play":
                self._play(int(seat), request, where, answer, answer_at)
            else:
                raise RecordError(
                    f"{where}.stage", f"expected deal, cover or play, found {stage!r}"
                )
            if isinstance(request.get("global"), dict):
                self._global(request["global"], f"{where}.global")

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
        answer: list[Any],
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
        if not answer:
            return
        if len(answer) > 2:
            raise RecordError(
                answer_at,
                "expected [] (pass), one card (a call) or a pair "
                f"(a snatch), found {len(answer)} cards",
            )
        kind = records_pb2.BID_KIND_DECLARE if len(answer) == 1 else records_pb2.BID_KIND_OVERCALL
        self.game.bids.add(
            seat=seat, kind=kind, cards=_tokens(answer, answer_at), drawn_count=self.dealt
        )

    def _cover(
        self, seat: int, request: dict[str, Any], where: str, answer: list[Any], answer_at: str
    ) -> None:
        kitty = _tokens(jp.field(request, "deliver", where, "the kitty"), f"{where}.deliver")
        self.game.kitty_exchanges.add(seat=seat, picked_up=kitty, buried=_tokens(answer, answer_at))

    def _play(
        self, seat: int, request: dict[str, Any], where: str, answer: list[Any], answer_at: str
    ) -> None:
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
        self.trick.plays.add(seat=seat, cards=_tokens(answer, answer_at))

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
        if shown != list(play.cards):
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
            return
        change = display.get("get_score", 0) if isinstance(display, dict) else 0
        total = jp.integer(self.total, f"{at}.global.total_score", -jp.INT32, jp.INT32)
        points = total + jp.integer(change, f"{at}.display.get_score", -jp.INT32, jp.INT32)
        self.game.claim.defenders_points = jp.integer(
            points, f"{at}.display.get_score", -jp.INT32, jp.INT32
        )


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
        game, jp.array(jp.field(match, "log", path, "the log items"), f"{path}.log"), f"{path}.log"
    )
    log.read(deal)
    major = log.banking.get("major")
    if major in _MAJORS:
        game.claim.trump.level = level
        game.claim.trump.suit = _MAJORS[major]
    return game


def read_botzone(text: str, file: str, strict: bool = False) -> ImportResult:
    """GameRecords from a Botzone log file (one log, an array of logs, or JSON Lines)."""
    out = Collector(file, strict)
    documents = json_values(text)
    if isinstance(documents, RecordError):
        out.problem(documents.location, documents.message)
        return out.result
    stem = PurePath(file).stem
    for i, (path, value) in enumerate(documents):
        record_id = stem if len(documents) == 1 else f"{stem}#{i + 1}"
        try:
            out.add(records_pb2.RecordFile(game=game_from_botzone(value, path, record_id)))
        except RecordError as exc:
            out.problem(exc.location, exc.message)
    return out.result
