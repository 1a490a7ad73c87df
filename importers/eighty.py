"""The ``eighty-completed-deal`` v2 replay of the 80-fen-shengji web game, as a GameRecord.

Accepted input (docs/foreign-formats.md §1): the raw v2 object, its D1 ``gzip+base64``
envelope, a ``completed_games`` row whose ``replay_json`` holds either, or an array / JSON
Lines of those. The importer checks structure and card identity (ids 0–107, card objects that
agree with their ids, draws that agree with the hands, one deal epoch); the rules of play are
left to the audit under the ``eighty`` preset, so nothing is "fixed" here.
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from typing import Any

from chaodipi.auditor.reading import UNSUPPORTED_KEY
from chaodipi.engine.cards import RANK_LETTERS
from chaodipi.engine.presets import EIGHTY
from chaodipi.importers import jsonpath as jp
from chaodipi.importers.problems import Collector, ImportResult, RecordError
from chaodipi.importers.protojson import documents, json_values
from chaodipi.v1 import records_pb2

FORMAT = "eighty-completed-deal"
_ID_SUITS = "SHDC"  # suit order of card ids: S, H, D, C
_SUITS = {
    "S": records_pb2.SUIT_SPADES,
    "H": records_pb2.SUIT_HEARTS,
    "D": records_pb2.SUIT_DIAMONDS,
    "C": records_pb2.SUIT_CLUBS,
}
_BID_CARDS = {1: 1, 2: 2, 3: 2, 4: 2}  # strength → number of cards shown
_IGNORED_EVENTS = {"pass", "decision_applied", "dealing_complete", "rebel_choice"}
_LAST_SECOND = 253402300799  # 9999-12-31T23:59:59Z, the last time a datetime holds
RULESET_ID = "shanghai-80fen-0.7.14-v1"
"""The one ruleset string the program writes (src/rules.js)."""
SPEED_RUN_RUNGS = ("2", "5", "T", "K", "A")
_KNOWN_RULES = {
    "strictTractorFollow",
    "partialTractorFollow",
    "gates",
    "speedRun",
    "firstDealer",
    # Redeal votes: a completed replay holds only the epoch that was played out.
    "fullRebel",
    "pointRebelThreshold",
    "trumpRebelThreshold",
    "maxRedeal",
}
_DIRECTIONS = ("South", "East", "North", "West")
EIGHTY_GATES = (2, 5, 10, 13)
"""The program's default ``rules.gates`` (levels 2, 5, 10, K may not be skipped)."""


def card_token(card_id: int) -> str:
    """Our token of an 80-fen card id (``id % 54``: 13 ranks each of S, H, D, C, then LJ, BJ)."""
    face = card_id % 54
    if face >= 52:
        return "LJ" if face == 52 else "BJ"
    return _ID_SUITS[face // 13] + RANK_LETTERS[face % 13]


def _face(card_id: int) -> tuple[str, int]:
    face = card_id % 54
    return ("X", face - 37) if face >= 52 else (_ID_SUITS[face // 13], face % 13 + 2)


def _card_id(value: Any, path: str) -> int:
    return jp.integer(value, path, 0, 107)


def _card_object(value: Any, path: str) -> tuple[int, str]:
    card = jp.obj(value, path, "a card object {id, suit, rank}")
    card_id = _card_id(jp.field(card, "id", path, "a card id 0-107"), f"{path}.id")
    suit, rank = _face(card_id)
    if card.get("suit") != suit or card.get("rank") != rank:
        raise RecordError(
            path,
            f"suit {card.get('suit')!r} rank {card.get('rank')!r} does not match card id "
            f"{card_id}: expected suit {suit!r} and rank {rank}",
        )
    return card_id, card_token(card_id)


def _card_objects(value: Any, path: str) -> list[tuple[int, str]]:
    return [_card_object(c, f"{path}[{i}]") for i, c in enumerate(jp.array(value, path))]


def _level(value: Any, path: str, passed_ace_ok: bool = False) -> str:
    rank = jp.integer(value, path, 2, None if passed_ace_ok else 14)
    return "" if rank > 14 else RANK_LETTERS[rank - 2]


def _trump(value: Any, path: str) -> records_pb2.Trump:
    trump = jp.obj(value, path, "a trump object {rank, suit}")
    level = _level(jp.field(trump, "rank", path, "a rank 2-14"), f"{path}.rank")
    suit = trump.get("suit")
    if suit is None:
        return records_pb2.Trump(level=level, suit=records_pb2.SUIT_NO_TRUMP)
    if not isinstance(suit, str) or suit not in _SUITS:
        found = repr(suit) if isinstance(suit, str) else jp.kind(suit)
        raise RecordError(f"{path}.suit", f"expected S, H, D, C or null, found {found}")
    return records_pb2.Trump(level=level, suit=_SUITS[suit])


def _order(card_id: int, trump: tuple[int, str | None]) -> int:
    """cards.js ``order``: BJ 15, LJ 14, trump-suit level 13, other level cards 12, the rest by
    rank with the level skipped (2 … A as 0 … 12 less one above the level)."""
    suit, rank = _face(card_id)
    if rank >= 15:
        return rank - 1
    if rank == trump[0]:
        return 13 if trump[1] is None or suit == trump[1] else 12
    return rank - 2 - (rank > trump[0])


def program_split(card_ids: list[int], trump: tuple[int, str | None]) -> list[list[int]]:
    """The units of a lead as rules.js ``components`` cuts them, which the leader's order decides.

    Pairs of equal order (the level cards of two side suits, or of any two suits in no-trump)
    go in separate layers, the first listed in the first: only that one links into a tractor.
    Tractors and pairs come first, layer by layer, low to high; then the singles as listed.
    With ♠ trump at level 2, ♠A ♠A ♣2 ♣2 ♥2 ♥2 (ids 12 66 39 93 13 67):

    >>> def cut(ids): return [[card_token(c) for c in u] for u in program_split(ids, (2, "S"))]
    >>> cut([12, 66, 39, 93, 13, 67])
    [['SA', 'SA', 'C2', 'C2'], ['H2', 'H2']]
    >>> cut([13, 67, 39, 93, 12, 66])
    [['SA', 'SA', 'H2', 'H2'], ['C2', 'C2']]
    """
    faces: dict[tuple[str, int], list[int]] = {}
    for card in card_ids:
        faces.setdefault(_face(card), []).append(card)
    pairs = sorted((g for g in faces.values() if len(g) == 2), key=lambda g: _order(g[0], trump))
    layers: list[list[list[int]]] = []
    depth: dict[int, int] = {}  # order (at most 16 keys) → pairs of that order placed so far
    for pair in pairs:
        rank = _order(pair[0], trump)
        depth_here = depth.get(rank, 0)
        depth[rank] = depth_here + 1
        if depth_here == len(layers):
            layers.append([])
        layers[depth_here].append(pair)
    units: list[list[int]] = []
    for layer in layers:
        run = [*layer[0]]
        for below, pair in itertools.pairwise(layer):
            if _order(pair[0], trump) == _order(below[0], trump) + 1:
                run.extend(pair)
            else:
                units.append(run)
                run = [*pair]
        units.append(run)
    units.extend(g for g in faces.values() if len(g) == 1)
    return units


class _Row:
    """What a D1 ``completed_games`` row adds to its replay: when, and who sat where."""

    def __init__(self, row: dict[str, Any] | None, path: str) -> None:
        self.played_at = ""
        self.seats: list[Any] = []
        self.user_id = ""
        if row is None:
            return
        completed = row.get("completed_at")
        if isinstance(completed, int) and not isinstance(completed, bool):
            seconds = jp.integer(completed, f"{path}.completed_at", 0, _LAST_SECOND)
            self.played_at = datetime.fromtimestamp(seconds, UTC).isoformat()
        if "seats_json" in row:
            where = f"{path}.seats_json"
            self.seats = jp.array(jp.parse_embedded(row["seats_json"], where), where, 4)
        user = row.get("user_id")
        self.user_id = user if isinstance(user, str) else ""

    def players(self) -> list[records_pb2.Player]:
        """Players by seat: a row's seats name a kind (and an api seat its model), no name."""
        players = []
        for seat in range(4):
            where = _DIRECTIONS[seat]
            entry = self.seats[seat] if self.seats else None
            kind = entry.get("kind") if isinstance(entry, dict) else None
            if not isinstance(kind, str) or not kind:
                players.append(
                    records_pb2.Player(
                        id=f"eighty:seat{seat}", display_name=f"{where} (seat {seat})"
                    )
                )
                continue
            assert isinstance(entry, dict)
            model = "/".join(
                v for v in (entry.get("provider"), entry.get("model")) if isinstance(v, str) and v
            )
            if kind == "human" and self.user_id:
                player_id = f"eighty:human:{self.user_id}"
            elif model:
                player_id = f"eighty:{kind}:{model}"
            else:
                player_id = f"eighty:{kind}"
            shown = f"{kind} {model}" if model else kind
            players.append(records_pb2.Player(id=player_id, display_name=f"{where} ({shown})"))
        return players


def _unwrap(value: Any, path: str) -> tuple[dict[str, Any], str, _Row]:
    """The v2 object inside a row or envelope, its path, and what the row adds."""
    row = _Row(None, path)
    if isinstance(value, dict) and "replay_json" in value:
        row = _Row(value, path)
        path = f"{path}.replay_json"
        value = jp.parse_embedded(value["replay_json"], path)
    if jp.is_envelope(value):
        value = jp.open_envelope(value, path)
        path = f"{path}.data"
    if isinstance(value, list):
        raise RecordError(
            path,
            "a legacy version 1 replay (public events only) cannot be replayed: expected a "
            f"version 2 {FORMAT!r} object with the deal",
        )
    replay = jp.obj(value, path, f"a {FORMAT!r} object")
    if replay.get("format") != FORMAT:
        raise RecordError(f"{path}.format", f"expected {FORMAT!r}, found {replay.get('format')!r}")
    if replay.get("version") != 2:
        raise RecordError(
            f"{path}.version",
            f"expected version 2, found {replay.get('version')!r} (version 1 holds public "
            "events only and cannot be replayed)",
        )
    return replay, path, row


def _flag(rules: dict[str, Any], key: str, default: bool, path: str) -> bool:
    value = rules.get(key, default)
    if not isinstance(value, bool):
        raise RecordError(f"{path}.rules.{key}", f"expected true or false, found {jp.kind(value)}")
    return value


def _overrides(rules: dict[str, Any], path: str) -> str:
    """The ``eighty`` variant for the replay's rule options (docs/foreign-formats.md §1.9)."""
    changes: dict[str, dict[str, Any]] = {}
    gates = rules.get("gates", list(EIGHTY_GATES))
    tokens = tuple(
        _level(g, f"{path}.rules.gates[{i}]")
        for i, g in enumerate(jp.array(gates, f"{path}.rules.gates"))
    )
    if _flag(rules, "speedRun", False, path):
        # advanceMatch: one rung of 2, 5, 10, K, A per winning deal; gates are not read.
        changes["level"] = {"rungs": list(SPEED_RUN_RUNGS), "must_play": []}
    elif tokens != EIGHTY.level.must_play:
        changes["level"] = {"must_play": list(tokens)}
    order: dict[str, Any] = {}
    if not _flag(rules, "partialTractorFollow", True, path):
        order["follow_shorter_tractors"] = False
    if not _flag(rules, "strictTractorFollow", True, path):
        order["tractor_duty"] = False  # followError: no tractor check at all, pairs only
    if order:
        changes["order"] = order
    return json.dumps(changes, sort_keys=True) if changes else ""


def _unsupported(replay: dict[str, Any], rules: dict[str, Any]) -> str:
    """What the ``eighty`` variant cannot model in this replay (empty: everything)."""
    ruleset = replay.get("ruleset")
    if ruleset != RULESET_ID:
        return f"ruleset {ruleset!r}: the eighty variant models {RULESET_ID!r} only"
    unknown = sorted(set(rules) - _KNOWN_RULES)
    if unknown:
        return f"rule option(s) {', '.join(unknown)} that the eighty variant does not know"
    first = rules.get("firstDealer", "declaration")
    if first not in ("declaration", "random"):
        return f"rules.firstDealer {first!r}: the program knows declaration and random"
    return ""


class _Deal:
    """Reads the ``deal`` part: draws, hands and kitty, checked against each other."""

    def __init__(self, replay: dict[str, Any], path: str) -> None:
        where = f"{path}.deal"
        deal = jp.obj(jp.field(replay, "deal", path, "the deal"), where)
        self.first = jp.integer(
            jp.field(deal, "first", where, "a seat 0-3"), f"{where}.first", 0, 3
        )
        draws = jp.array(jp.field(deal, "draws", where, "100 draws"), f"{where}.draws", 100)
        self.draw_seqs: list[int] = []
        self.order: list[int] = []
        by_seat: list[list[int]] = [[], [], [], []]
        for i, raw in enumerate(draws):
            at = f"{where}.draws[{i}]"
            draw = jp.obj(raw, at, "a draw {seq, seat, card, dealt}")
            seat = jp.integer(jp.field(draw, "seat", at, "a seat"), f"{at}.seat", 0, 3)
            if seat != (self.first + i) % 4:
                raise RecordError(
                    f"{at}.seat",
                    f"expected seat {(self.first + i) % 4} (draw "
                    f"{i + 1} goes to seat (first + {i}) % 4), found {seat}",
                )
            if jp.integer(jp.field(draw, "dealt", at, "the draw number"), f"{at}.dealt") != i + 1:
                raise RecordError(f"{at}.dealt", f"expected {i + 1}: draws go in dealing order")
            card = _card_id(jp.field(draw, "card", at, "a card id"), f"{at}.card")
            self.draw_seqs.append(
                jp.integer(jp.field(draw, "seq", at, "an event number"), f"{at}.seq")
            )
            self.order.append(card)
            by_seat[seat].append(card)
        hands = jp.array(jp.field(deal, "hands", where, "4 hands"), f"{where}.hands", 4)
        for seat, hand in enumerate(hands):
            at = f"{where}.hands[{seat}]"
            ids = [_card_id(c, f"{at}[{i}]") for i, c in enumerate(jp.array(hand, at, 25))]
            if ids != by_seat[seat]:
                raise RecordError(at, "expected the cards this seat drew, in draw order")
        kitty = jp.array(jp.field(deal, "kitty", where, "8 kitty cards"), f"{where}.kitty", 8)
        self.kitty = [_card_id(c, f"{where}.kitty[{i}]") for i, c in enumerate(kitty)]
        seen: dict[int, str] = {}
        for card, at in [
            *((c, f"{where}.draws") for c in self.order),
            *((c, f"{where}.kitty") for c in self.kitty),
        ]:
            if card in seen:
                raise RecordError(at, f"card id {card} is dealt twice: expected 108 distinct ids")
            seen[card] = at

    def drawn_before(self, seq: int) -> int:
        """How many cards had been drawn before event number ``seq``."""
        return sum(1 for s in self.draw_seqs if s < seq)


class _Events:
    """Turns the event list into bids, tricks and the claim of a GameRecord."""

    def __init__(
        self,
        game: records_pb2.GameRecord,
        deal: _Deal,
        epoch: int,
        trump: tuple[int, str | None],
    ) -> None:
        self.game = game
        self.trump = trump
        self.deal = deal
        self.epoch = epoch
        self.last_bid: tuple[int, int, list[int]] | None = None  # seat, strength, card ids
        # path, seat, proposed (ids, as listed), forced (tokens)
        self.failed: tuple[str, int, list[int], list[str]] | None = None
        self.scored: tuple[dict[str, Any], str] | None = None  # the score and its path

    def read(self, events: list[Any], path: str) -> None:
        previous = -1
        for i, raw in enumerate(events):
            at = f"{path}[{i}]"
            event = jp.obj(raw, at, "an event {seq, deal, type, ...}")
            seq = jp.integer(jp.field(event, "seq", at, "an event number"), f"{at}.seq")
            if seq <= previous:
                raise RecordError(
                    f"{at}.seq", f"expected a number above {previous}: events go in seq order"
                )
            previous = seq
            if jp.field(event, "deal", at, "the deal epoch") != self.epoch:
                raise RecordError(f"{at}.deal", f"expected {self.epoch}, the replay's dealEpoch")
            kind = jp.text(jp.field(event, "type", at, "an event type"), f"{at}.type")
            handler = getattr(self, f"_on_{kind}", None)
            if handler is not None:
                handler(event, at, seq)
        if self.failed is not None:
            raise RecordError(self.failed[0], "expected a play of the forced cards after it")

    def _seat(self, event: dict[str, Any], at: str) -> int:
        return jp.integer(jp.field(event, "seat", at, "a seat 0-3"), f"{at}.seat", 0, 3)

    def _on_deal_started(self, event: dict[str, Any], at: str, seq: int) -> None:
        if "round" in event:
            self.game.context.hand_number = jp.integer(event["round"], f"{at}.round", 1, jp.INT32)

    def _on_cut(self, event: dict[str, Any], at: str, seq: int) -> None:
        self.game.context.first_hand = True

    def _on_declaration(self, event: dict[str, Any], at: str, seq: int) -> None:
        seat = self._seat(event, at)
        strength = jp.integer(
            jp.field(event, "strength", at, "a strength 1-4"), f"{at}.strength", 1, 4
        )
        cards = _card_objects(jp.field(event, "cards", at, "the cards shown"), f"{at}.cards")
        if len(cards) != _BID_CARDS[strength]:
            raise RecordError(
                f"{at}.cards",
                f"expected {_BID_CARDS[strength]} card(s) for "
                f"strength {strength}, found {len(cards)}",
            )
        ids = [c for c, _ in cards]
        bid = self.game.bids.add(seat=seat, drawn_count=self.deal.drawn_before(seq))
        last = self.last_bid
        if last is None:
            bid.kind = records_pb2.BID_KIND_DECLARE
            bid.cards.extend(t for _, t in cards)
        elif last[0] == seat and last[1] == 1 and strength == 2:
            bid.kind = records_pb2.BID_KIND_LOCK  # the declarer shows its level card again
            bid.cards.extend(t for c, t in cards if c not in last[2])
        else:
            bid.kind = records_pb2.BID_KIND_OVERCALL
            bid.cards.extend(t for _, t in cards)
        self.last_bid = (seat, strength, ids)

    def _on_trump_set(self, event: dict[str, Any], at: str, seq: int) -> None:
        trump = _trump(jp.field(event, "trump", at, "the trump"), f"{at}.trump")
        if trump != self.game.claim.trump:
            raise RecordError(f"{at}.trump", "expected the same trump as the replay's trump")
        if event.get("dealer") != self.game.kitty_exchanges[0].seat:
            raise RecordError(
                f"{at}.dealer", f"expected {self.game.kitty_exchanges[0].seat}, the replay's dealer"
            )

    def _on_throw_failed(self, event: dict[str, Any], at: str, seq: int) -> None:
        proposed = _card_objects(
            jp.field(event, "proposed", at, "the attempted throw"), f"{at}.proposed"
        )
        forced = _card_objects(jp.field(event, "forced", at, "the forced cards"), f"{at}.forced")
        self.failed = (at, self._seat(event, at), [c for c, _ in proposed], [t for _, t in forced])

    def _on_play(self, event: dict[str, Any], at: str, seq: int) -> None:
        seat = self._seat(event, at)
        cards = [
            t
            for _, t in _card_objects(
                jp.field(event, "cards", at, "the cards played"), f"{at}.cards"
            )
        ]
        index = jp.integer(jp.field(event, "trick", at, "a trick index"), f"{at}.trick", 0)
        tricks = self.game.tricks
        if index == len(tricks):
            trick = tricks.add(leader=seat)
        elif index == len(tricks) - 1:
            trick = tricks[-1]
        else:
            raise RecordError(
                f"{at}.trick",
                f"expected trick index {len(tricks) - 1} or {len(tricks)}, found {index}",
            )
        play = trick.plays.add(seat=seat, cards=cards)
        if self.failed is not None:
            where, thrower, proposed, forced = self.failed
            if thrower != seat or sorted(forced) != sorted(cards):
                raise RecordError(
                    at,
                    f"expected seat {thrower} to play the forced cards "
                    f"{' '.join(forced)} of the failed throw at {where}",
                )
            play.attempted.extend(card_token(c) for c in proposed)
            # The forced unit is one of the program's units of the attempt, which its order
            # decides (program_split): the audit takes them as the leader's split.
            for unit in program_split(proposed, self.trump):
                trick.declared_split.add(cards=[card_token(c) for c in unit])
            self.failed = None

    def _on_trick(self, event: dict[str, Any], at: str, seq: int) -> None:
        index = jp.integer(jp.field(event, "index", at, "a trick index"), f"{at}.index")
        if index != len(self.game.tricks) - 1:
            raise RecordError(
                f"{at}.index", f"expected {len(self.game.tricks) - 1}, the trick just played"
            )
        claim = self.game.tricks[-1].claim
        claim.winner = jp.integer(jp.field(event, "winner", at, "a seat"), f"{at}.winner", 0, 3)
        claim.points = jp.integer(
            jp.field(event, "points", at, "the trick's points"), f"{at}.points", 0, jp.INT32
        )

    def _on_round_scored(self, event: dict[str, Any], at: str, seq: int) -> None:
        where = f"{at}.score"
        score = jp.obj(jp.field(event, "score", at, "the score"), where)

        def number(key: str) -> int:
            # Points are never negative (no penalties), so total - attackPoints fits 32 bits.
            return jp.integer(
                jp.field(score, key, where, "a number"), f"{where}.{key}", 0, jp.INT32
            )

        total, attack = number("total"), number("attackPoints")
        claim = self.game.claim
        claim.defenders_points = total
        claim.kitty_bonus = total - attack
        dealer_team = self.game.kitty_exchanges[0].seat % 2
        tricks = self.game.tricks
        last = tricks[-1].claim if tricks else None
        if last is not None and last.HasField("winner") and last.winner % 2 != dealer_team:
            claim.kitty_multiplier = number("multiplier")
        self.scored = (score, where)


def _level_result(
    score: dict[str, Any],
    where: str,
    before: list[Any],
    after: list[Any],
    dealer_team: int,
    path: str,
) -> records_pb2.LevelResult:
    attackers_win = jp.field(score, "attackersWin", where, "true or false")
    levels_up = jp.integer(jp.field(score, "levelsUp", where, "a number"), f"{where}.levelsUp", 0)
    rising = 1 - dealer_team if attackers_win else dealer_team
    after_rank = jp.integer(after[rising], f"{path}.levelsAfter[{rising}]", 2, jp.INT32)
    rise = after_rank - jp.integer(before[rising], f"{path}.levelsBefore[{rising}]", 2, 14)
    result = records_pb2.LevelResult(levels=rise)
    if after_rank > 14:
        result.outcome = (
            records_pb2.OUTCOME_DEFENDERS_WIN_MATCH
            if attackers_win
            else records_pb2.OUTCOME_DEALER_WINS_MATCH
        )
        return result
    if not attackers_win:
        result.outcome = records_pb2.OUTCOME_DEALER_UP
    elif levels_up == 0:
        result.outcome = records_pb2.OUTCOME_SWAP
    else:
        result.outcome = records_pb2.OUTCOME_DEFENDERS_UP
    result.dealer_team_level_after = _level(after[dealer_team], f"{path}.levelsAfter")
    result.defender_team_level_after = _level(after[1 - dealer_team], f"{path}.levelsAfter")
    return result


def game_from_eighty(value: Any, path: str = "$") -> records_pb2.GameRecord:
    """One GameRecord (ruleset ``eighty``) from a v2 replay, its envelope or its D1 row."""
    replay, path, row = _unwrap(value, path)
    game_id = jp.text(jp.field(replay, "gameId", path, "the game id"), f"{path}.gameId")
    epoch = jp.integer(
        jp.field(replay, "dealEpoch", path, "the deal epoch"), f"{path}.dealEpoch", 1
    )
    dealer = jp.integer(jp.field(replay, "dealer", path, "a seat 0-3"), f"{path}.dealer", 0, 3)
    rules = jp.obj(replay.get("rules", {}), f"{path}.rules")
    before = jp.array(
        jp.field(replay, "levelsBefore", path, "two levels"), f"{path}.levelsBefore", 2
    )
    after = jp.array(jp.field(replay, "levelsAfter", path, "two levels"), f"{path}.levelsAfter", 2)
    game = records_pb2.GameRecord(
        record_id=f"{game_id}:{epoch}",
        ruleset=EIGHTY.id,
        ruleset_overrides_json=_overrides(rules, path),
        played_at=row.played_at,
    )
    game.metadata["eighty.ruleset"] = str(replay.get("ruleset", ""))
    game.metadata["eighty.rules"] = json.dumps(rules, sort_keys=True)
    unsupported = _unsupported(replay, rules)
    if unsupported:
        game.metadata[UNSUPPORTED_KEY] = unsupported
    game.players.extend(row.players())
    game.context.team0_level = _level(before[0], f"{path}.levelsBefore[0]")
    game.context.team1_level = _level(before[1], f"{path}.levelsBefore[1]")
    deal = _Deal(replay, path)
    game.draw_order.first_drawer = deal.first
    game.draw_order.deck.extend(card_token(c) for c in [*deal.order, *deal.kitty])
    buried = jp.array(jp.field(replay, "buried", path, "the 8 buried cards"), f"{path}.buried", 8)
    game.kitty_exchanges.add(
        seat=dealer,
        picked_up=[card_token(c) for c in deal.kitty],
        buried=[card_token(_card_id(c, f"{path}.buried[{i}]")) for i, c in enumerate(buried)],
    )
    game.claim.trump.CopyFrom(_trump(jp.field(replay, "trump", path, "the trump"), f"{path}.trump"))
    trump = replay["trump"]  # checked by _trump: a rank 2-14 and S, H, D, C or null
    events = _Events(game, deal, epoch, (trump["rank"], trump.get("suit")))
    events.read(
        jp.array(jp.field(replay, "events", path, "the event list"), f"{path}.events"),
        f"{path}.events",
    )
    if events.scored is None:
        raise RecordError(
            f"{path}.events", "expected a round_scored event: the deal is not complete"
        )
    score, where = events.scored
    game.claim.level_result.CopyFrom(_level_result(score, where, before, after, dealer % 2, path))
    if not game.context.first_hand:
        game.context.dealer = dealer
    return game


def _is_event_list(document: list[Any]) -> bool:
    # A version 1 replay is a bare array of events: one document, not a list of them.
    return all(isinstance(v, dict) and "type" in v and "seq" in v for v in document)


def read_eighty(text: str, file: str, strict: bool = False) -> ImportResult:
    """GameRecords from an 80-fen replay file; a bad replay is reported and skipped."""
    out = Collector(file, strict)
    values = json_values(text, _is_event_list)
    if isinstance(values, RecordError):
        out.problem(values.location, values.message)
        return out.result
    for _, path, value in documents(values, out):
        try:
            out.add(records_pb2.RecordFile(game=game_from_eighty(value, path)))
        except RecordError as exc:
            out.problem(exc.location, exc.message)
    return out.result
