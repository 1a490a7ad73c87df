"""shengji-godot game logs (``game_logger.gd``, schema versions 1 and 2) as GameRecords.

Input (docs/foreign-formats.md §3): ``{"version", "created_at", "rule_config", "rounds"}`` as
the program's logger writes it, pretty or compact; an array or JSON Lines of logs too. Each
round (局) is one GameRecord under the ``godot`` ruleset, with the ``rule_config`` options
it can model as overrides and the others named as unsupported (``audit.unsupported``). The
hands come from the debug snapshot (``debug.initial_hands``), which a log written without
debug lacks: such a round cannot be replayed. A round still in progress (``_in_progress``)
is read as far as it goes (``audit.incomplete``).

The log names no players: seats get stable seat-based ids (``godot:seat0``, South).
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

from chaodipi.auditor.reading import INCOMPLETE_KEY, UNSUPPORTED_KEY
from chaodipi.engine import Table
from chaodipi.engine.cards import RANK_LETTERS
from chaodipi.engine.presets import GODOT
from chaodipi.importers import jsonpath as jp
from chaodipi.importers.problems import Collector, ImportResult, RecordError
from chaodipi.importers.protojson import documents, json_values
from chaodipi.v1 import records_pb2

VERSIONS = (1, 2)
"""Schema versions of ``game_logger.gd``: 2 renumbered the bid types (ADR-0001)."""
_SUITS = "♠♥♦♣"  # Card.Suit: SPADE 0, HEART 1, DIAMOND 2, CLUB 3
_SUIT_TOKENS = "SHDC"
_TRUMPS = {
    0: records_pb2.SUIT_SPADES,
    1: records_pb2.SUIT_HEARTS,
    2: records_pb2.SUIT_DIAMONDS,
    3: records_pb2.SUIT_CLUBS,
    -1: records_pb2.SUIT_NO_TRUMP,  # 公主
}
_TRUMP_TOKENS = {0: "S", 1: "H", 2: "D", 3: "C", -1: "NT"}
_JOKERS = {"BlackJoker": "LJ", "RedJoker": "BJ"}  # BlackJoker is the small joker (小王)
_RANKS = {str(n): RANK_LETTERS[n - 2] for n in range(2, 11)} | {"J": "J", "Q": "Q", "K": "K"}
_RANKS["A"] = "A"
_DIRECTIONS = ("South", "East", "North", "West")  # game_round.gd: 0南 → 1东 → 2北 → 3西
# Bid types by schema version: what the bidder shows (level cards, with a joker or not).
_BID_TYPES = {
    1: {1: ("rank", 1), 2: ("rank", 2), 3: ("joker", 1), 4: ("jokers", 2)},
    2: {1: ("rank", 1), 2: ("rank", 2), 3: ("joker", 1), 4: ("joker", 2), 5: ("jokers", 2)},
}
# rule_config as the godot preset reads it (the terminal host's config).
_CONFIG_DEFAULTS: dict[str, Any] = {
    "deck_count": 2,
    "trump_mode": 0,
    "fixed_trump_suit": -1,
    "joker_always_trump": True,
    "trump_joker_color_match": True,
    "bid_requires_joker": True,
    "allow_dump": False,
    "strict_follow_structure": True,
    "four_same_is_tractor": False,
    "tractor_allow_rank_card": True,
    "upgrade_threshold": 80,
    "upgrade_step": 1,
    "upgrade_table": [
        [0, 0, 3],
        [1, 0, 2],
        [40, 0, 1],
        [80, 1, 0],
        [120, 1, 1],
        [160, 1, 2],
        [200, 1, 3],
    ],
    "no_skip_enabled": True,
    "no_skip_ranks": [5, 10, 13],
}
# Keys the audit of a hand does not depend on: the session's starting rank and first dealer
# (each round logs its own), where the options came from (v2: base_preset, source,
# modified_fields; the options themselves are logged), and the sizes deck_count fixes.
_CONFIG_IGNORED = {
    "current_rank",
    "initial_dealer",
    "base_preset",
    "source",
    "modified_fields",
    "hand_size",
    "bottom_size",
    "total_score",
}
_MODELLED = {
    "trump_joker_color_match",
    "bid_requires_joker",
    "no_skip_enabled",
    "no_skip_ranks",
    "allow_dump",
    "upgrade_threshold",
    "upgrade_step",
    "upgrade_table",
    # Read per play: a round with a play they make a tractor of is unsupported (_unit_options).
    "four_same_is_tractor",
    "tractor_allow_rank_card",
}
"""The options the importer turns into overrides; any other off its default is unsupported."""


def _bands(table: list[list[int]], step: int) -> list[dict[str, Any]] | None:
    """Level bands (docs/rules.md R-LEVEL) of an upgrade table: each row from its threshold,
    rounded up to the 5 points scores come in, to the next row's; ``step`` times its levels."""
    rows = sorted(table)
    bands: list[dict[str, Any]] = []
    for i, (threshold, side, levels) in enumerate(rows):
        lo = -(-threshold // 5) * 5
        hi = -(-rows[i + 1][0] // 5) * 5 - 5 if i + 1 < len(rows) else None
        if hi is not None and hi < lo:
            return None  # two rows within one step of 5 points: the later one never applies
        outcome = "dealer_up" if side == 0 else "defenders_up" if levels else "swap"
        bands.append({"lo": lo, "hi": hi, "outcome": outcome, "levels": levels * step})
    return bands


def card_token(text: Any, path: str) -> str:
    """Our token of a godot card string: ``♠10`` → ``ST``, ``BlackJoker`` → ``LJ``."""
    if isinstance(text, str):
        if text in _JOKERS:
            return _JOKERS[text]
        if text[:1] in _SUITS and text[1:] in _RANKS:
            return _SUIT_TOKENS[_SUITS.index(text[0])] + _RANKS[text[1:]]
    raise RecordError(
        path,
        f"expected a card: a suit ♠ ♥ ♦ ♣ and a rank 2-10, J, Q, K, A, or BlackJoker / "
        f"RedJoker, found {text!r}",
    )


def _cards(value: Any, path: str, length: int | None = None) -> list[str]:
    return [card_token(c, f"{path}[{i}]") for i, c in enumerate(jp.array(value, path, length))]


def _rank(value: Any, path: str) -> str:
    return RANK_LETTERS[jp.integer(value, path, 2, 14) - 2]


def _seat(value: Any, path: str) -> int:
    return jp.integer(value, path, 0, 3)


class _Config:
    """``rule_config`` as the ``godot`` variant reads it: overrides, and what it cannot model."""

    def __init__(self, log: dict[str, Any], path: str) -> None:
        where = f"{path}.rule_config"
        config = jp.obj(log.get("rule_config", {}), where)
        values = {**_CONFIG_DEFAULTS, **config}
        for key, default in _CONFIG_DEFAULTS.items():
            if isinstance(default, bool) and not isinstance(values[key], bool):
                raise RecordError(
                    f"{where}.{key}", f"expected true or false, found {jp.kind(values[key])}"
                )
            if isinstance(default, int) and not isinstance(default, bool):
                jp.integer(values[key], f"{where}.{key}")
        self.decks = 1 if values["deck_count"] == 1 else 2
        self.colour_match: bool = values["trump_joker_color_match"]
        unknown = sorted(set(config) - set(_CONFIG_DEFAULTS) - _CONFIG_IGNORED)
        # Options whose rules no ruleset field says: a one-deck game, other trump modes,
        # jokers outside trump, dumps, no follow duty, a 4-card level tractor, another table.
        other = [
            f"{key} = {json.dumps(values[key])}"
            for key in _CONFIG_DEFAULTS
            if key not in _MODELLED and values[key] != _CONFIG_DEFAULTS[key]
        ]
        self.unsupported = []
        if unknown:
            self.unsupported.append(f"rule_config {', '.join(unknown)}: unknown to the variant")
        if other:
            self.unsupported.append(
                f"rule_config {', '.join(other)}: the godot variant models the terminal host's "
                "rules only"
            )
        self.four_same: bool = values["four_same_is_tractor"]
        self.rank_links: bool = values["tractor_allow_rank_card"]
        changes: dict[str, dict[str, Any]] = {}
        if values["allow_dump"]:
            # The preset holds the dump rules (challenge_dump, _smallest_card); only the switch.
            changes["throw"] = {"allowed": True}
        table = self._level_table(values, where)
        if table is None:
            self.unsupported.append(
                "rule_config upgrade_table, upgrade_threshold: a table that does not start at 0 "
                "or whose first attackers' row is not the threshold cannot be said as level bands"
            )
        elif table != _bands(_CONFIG_DEFAULTS["upgrade_table"], 1):
            changes["level"] = {"bands": table}
        ranks = jp.array(values["no_skip_ranks"], f"{where}.no_skip_ranks")
        must_play = (
            sorted(
                {_rank(r, f"{where}.no_skip_ranks[{i}]") for i, r in enumerate(ranks)},
                key=RANK_LETTERS.index,
            )
            if values["no_skip_enabled"]
            else []
        )
        if tuple(must_play) != GODOT.level.must_play:
            changes.setdefault("level", {})["must_play"] = must_play
        bidding: dict[str, Any] = {}
        if not values["bid_requires_joker"]:
            # Mode A: one level card or a level pair of a suit, or a joker pair (公主).
            ladder = ["1:*", "2:*", "2:LJ", "2:BJ"]
            bidding.update(ladder=ladder, declare_bids=ladder)
        if not self.colour_match:
            bidding["joker_colour_match"] = False
        if bidding:
            changes["bidding"] = bidding
        self.overrides = json.dumps(changes, sort_keys=True) if changes else ""

    @staticmethod
    def _level_table(values: dict[str, Any], where: str) -> list[dict[str, Any]] | None:
        """``upgrade_table`` × ``upgrade_step`` as level bands, if they can say it.

        upgrade_settlement.gd takes the row with the highest threshold the attackers reach;
        ``upgrade_threshold`` alone decides the dealer's loss (RuleConfig.validate keeps it the
        first attackers' row, the only table bands can say).
        """
        rows = jp.array(values["upgrade_table"], f"{where}.upgrade_table")
        table = []
        for i, row in enumerate(rows):
            at = f"{where}.upgrade_table[{i}]"
            cells = jp.array(row, at)
            if len(cells) < 3:
                raise RecordError(at, "expected [threshold, side, levels]")
            threshold = jp.integer(cells[0], f"{at}[0]", 0)
            side = jp.integer(cells[1], f"{at}[1]", 0, 1)
            table.append([threshold, side, jp.integer(cells[2], f"{at}[2]", 0)])
        step = jp.integer(values["upgrade_step"], f"{where}.upgrade_step", 1)
        attackers = [t for t, side, _ in table if side == 1]
        threshold = jp.integer(values["upgrade_threshold"], f"{where}.upgrade_threshold")
        if not table or min(t for t, _, _ in table) != 0 or min(attackers, default=-1) != threshold:
            return None
        return _bands(table, step)


class _Round:
    """One round (局) of the log as a GameRecord."""

    def __init__(self, rounds: list[Any], index: int, version: int, config: _Config, path: str):
        self.rounds_path = f"{path}.rounds"
        self.path = f"{self.rounds_path}[{index}]"
        self.round = jp.obj(rounds[index], self.path, "a round object")
        self.rounds = rounds
        self.index = index
        self.version = version
        self.config = config
        self.hand_size = 25 if config.decks == 2 else 12

    def field(self, key: str, what: str) -> Any:
        return jp.field(self.round, key, self.path, what)

    def game(self, record_id: str) -> records_pb2.GameRecord:
        r, at, config = self.round, self.path, self.config
        overrides = config.overrides
        if r.get("bid", {}) is None and not r.get("bid_history"):
            # No bidding at all (a deal the program's scenarios set up, v2 ``bid: null``): the
            # logged trump and dealer were given, not bid.
            changes = json.loads(overrides or "{}")
            changes["bidding"] = changes.get("bidding", {}) | {
                "fallback_first_hand": "recorded",
                "fallback_later_hands": "recorded",
            }
            overrides = json.dumps(changes, sort_keys=True)
        game = records_pb2.GameRecord(
            record_id=record_id, ruleset=GODOT.id, ruleset_overrides_json=overrides
        )
        game.players.extend(
            records_pb2.Player(id=f"godot:seat{s}", display_name=f"{_DIRECTIONS[s]} (seat {s})")
            for s in range(4)
        )
        ctx = game.context
        ctx.hand_number = jp.integer(
            self.field("round_num", "the round number"), f"{at}.round_num", 1, jp.INT32
        )
        ranks = jp.array(self.field("team_ranks", "the two teams' levels"), f"{at}.team_ranks", 2)
        ctx.team0_level = _rank(ranks[0], f"{at}.team_ranks[0]")
        ctx.team1_level = _rank(ranks[1], f"{at}.team_ranks[1]")
        dealer = _seat(self.field("dealer", "the dealer's seat"), f"{at}.dealer")
        ctx.dealer = dealer
        level = _rank(self.field("rank", "the level played"), f"{at}.rank")
        if "seed" in r:
            game.metadata["godot.seed"] = str(r["seed"])
        # After a counter-bid (v2) the counter-bidder took the dealer's buried cards as a new
        # bottom and buried again: the log keeps only that second bury (the round is unsupported).
        countered = bool(r.get("counter_bid_history"))
        self._deal(game, dealer, countered)
        bid = r.get("bid")
        if isinstance(bid, dict) and bid.get("type") != "NO_BID" and not countered:
            # The first valid bid decides the dealer (and so the level) in every round.
            ctx.first_hand = True
            self._bid(game, bid, dealer, level)
        trump = jp.integer(self.field("trump_suit", "the trump suit"), f"{at}.trump_suit", -1, 3)
        game.claim.trump.level = level
        game.claim.trump.suit = _TRUMPS[trump]
        self._tricks(game)
        unsupported = list(config.unsupported)
        unmodelled = self._rank_tractor(level, trump) or _unit_options(game, config, level, trump)
        if unmodelled:
            unsupported.append(unmodelled)
        if r.get("_in_progress") is True:
            game.metadata[INCOMPLETE_KEY] = (
                f"round {ctx.hand_number} was in progress when the log was written"
            )
        else:
            self._settlement(game, dealer)
        if countered:
            unsupported.append("a counter-bid (反主, counter_bid_history)")
        if unsupported:
            game.metadata[UNSUPPORTED_KEY] = "; ".join(unsupported)
        return game

    def _deal(self, game: records_pb2.GameRecord, dealer: int, countered: bool) -> None:
        at = f"{self.path}.debug"
        debug = jp.obj(
            jp.field(self.round, "debug", self.path, "the debug snapshot with the dealt hands"),
            at,
        )
        size, bottom_size = self.hand_size, 8 if self.config.decks == 2 else 6
        hands = jp.array(
            jp.field(debug, "initial_hands", at, f"4 hands of {size} cards"),
            f"{at}.initial_hands",
            4,
        )
        dealt = [_cards(h, f"{at}.initial_hands[{s}]", size) for s, h in enumerate(hands)]
        bottom = _cards(
            jp.field(debug, "bottom_cards", at, "the bottom cards"),
            f"{at}.bottom_cards",
            bottom_size,
        )
        # deck_manager.gd deals one card a seat in turn from seat 0, whoever deals.
        game.draw_order.first_drawer = 0
        game.draw_order.deck.extend([dealt[k % 4][k // 4] for k in range(4 * size)] + bottom)
        if countered:
            return
        with_bottom = _cards(
            jp.field(debug, "hand_with_bottom", at, "the dealer's hand and the bottom"),
            f"{at}.hand_with_bottom",
            size + bottom_size,
        )
        if with_bottom != dealt[dealer] + bottom:
            raise RecordError(
                f"{at}.hand_with_bottom",
                f"expected seat {dealer}'s dealt hand followed by the bottom cards",
            )
        indices = jp.array(
            jp.field(self.round, "buried_indices", self.path, "the buried cards' indices"),
            f"{self.path}.buried_indices",
            bottom_size,
        )
        picked = [
            with_bottom[jp.integer(i, f"{self.path}.buried_indices[{n}]", 0, len(with_bottom) - 1)]
            for n, i in enumerate(indices)
        ]
        buried = _cards(
            jp.field(debug, "buried_cards", at, "the buried cards"),
            f"{at}.buried_cards",
            bottom_size,
        )
        if picked != buried:
            raise RecordError(
                f"{at}.buried_cards", "expected the cards of hand_with_bottom at buried_indices"
            )
        game.kitty_exchanges.add(seat=dealer, picked_up=bottom, buried=buried)

    def _bid(
        self, game: records_pb2.GameRecord, bid: dict[str, Any], dealer: int, level: str
    ) -> None:
        """The winning bid: its cards are not logged, only its type and suit (A.1.3)."""
        at = f"{self.path}.bid"
        seat = _seat(jp.field(bid, "seat", at, "the bidder"), f"{at}.seat")
        if seat != dealer:
            raise RecordError(f"{at}.seat", f"expected {dealer}: the bidder deals the round")
        types = _BID_TYPES[self.version]
        kind = jp.integer(jp.field(bid, "type", at, "a bid type"), f"{at}.type")
        if kind not in types:
            raise RecordError(
                f"{at}.type",
                f"expected a version {self.version} bid type {min(types)}-{max(types)}, "
                f"found {kind}",
            )
        shows, count = types[kind]
        suit = jp.integer(jp.field(bid, "suit", at, "the suit bid"), f"{at}.suit", -1, 3)
        held = list(game.draw_order.deck[seat : 4 * self.hand_size : 4])
        if shows == "jokers":
            # Two identical jokers (公主); which pair is not logged: the one the bidder holds.
            joker = "LJ" if held.count("LJ") >= 2 and held.count("BJ") < 2 else "BJ"
            cards = [joker, joker]
        elif suit < 0:
            raise RecordError(f"{at}.suit", "expected a suit 0-3 for a bid with level cards")
        else:
            cards = [_SUIT_TOKENS[suit] + level] * count
            if shows == "joker":
                # Which joker is not logged: the one of the suit's colour (RedJoker ♥ ♦,
                # BlackJoker ♠ ♣), or without the colour rule the one the bidder holds.
                matching = "BJ" if _SUIT_TOKENS[suit] in "HD" else "LJ"
                other = "LJ" if matching == "BJ" else "BJ"
                free = not self.config.colour_match and matching not in held and other in held
                cards.insert(0, other if free else matching)
        game.bids.add(
            seat=seat,
            kind=records_pb2.BID_KIND_DECLARE,
            cards=cards,
            drawn_count=4 * self.hand_size,  # bids come after the whole deal
        )

    def _tricks(self, game: records_pb2.GameRecord) -> None:
        at = f"{self.path}.tricks"
        for t, raw in enumerate(jp.array(self.field("tricks", "the tricks"), at)):
            where = f"{at}[{t}]"
            trick_in = jp.obj(raw, where)
            leader = jp.field(trick_in, "lead_seat", where, "the leader")
            trick = game.tricks.add(leader=_seat(leader, f"{where}.lead_seat"))
            plays = jp.array(jp.field(trick_in, "plays", where, "the plays"), f"{where}.plays")
            for p, play_in in enumerate(plays):
                play_at = f"{where}.plays[{p}]"
                play = jp.obj(play_in, play_at)
                trick.plays.add(
                    seat=_seat(jp.field(play, "seat", play_at, "a seat"), f"{play_at}.seat"),
                    cards=_cards(jp.field(play, "cards", play_at, "the cards"), f"{play_at}.cards"),
                )
            self._failed_dump(trick, t)
            if len(plays) < 4:
                continue  # a trick in progress: nothing claimed yet
            trick.claim.winner = _seat(
                jp.field(trick_in, "winner", where, "the winner"), f"{where}.winner"
            )
            trick.claim.points = jp.integer(
                jp.field(trick_in, "trick_score", where, "the trick's points"),
                f"{where}.trick_score",
                0,
                jp.INT32,
            )

    def _failed_dump(self, trick: records_pb2.Trick, index: int) -> None:
        """The dump a lead attempted, when ``dump_failures`` (v2) says it failed there."""
        at = f"{self.path}.dump_failures"
        for n, raw in enumerate(jp.array(self.round.get("dump_failures") or [], at)):
            where = f"{at}[{n}]"
            failure = jp.obj(raw, where)
            number = jp.integer(jp.field(failure, "trick_num", where, "a trick number"), where)
            if number != index + 1:
                continue
            lead = trick.plays[0] if trick.plays else None
            seat = _seat(jp.field(failure, "seat", where, "the seat"), f"{where}.seat")
            played = card_token(jp.field(failure, "played", where, "a card"), f"{where}.played")
            if lead is None or lead.seat != seat or list(lead.cards) != [played]:
                raise RecordError(
                    where, f"expected trick {number} to be led by seat {seat} with {played}"
                )
            attempted = jp.field(failure, "attempted", where, "the attempted dump")
            lead.attempted.extend(_cards(attempted, f"{where}.attempted"))

    def _rank_tractor(self, level: str, trump: int) -> str:
        """A play the program calls a tractor that the variant reads otherwise, if any.

        The program links a level pair by rank with a trump pair of the next rank (What
        differs); the variant cannot say that, so such a round is not audited.
        """
        table = Table(GODOT, level, _TRUMP_TOKENS[trump])
        for t, trick in enumerate(self.round.get("tricks", [])):
            for play in trick.get("plays", []) if isinstance(trick, dict) else []:
                pattern = play.get("pattern") if isinstance(play, dict) else None
                if not isinstance(pattern, str) or not pattern.startswith("Tractor("):
                    continue
                cards = _cards(play.get("cards"), f"{self.path}.tricks[{t}]")
                if table.check_lead(" ".join(cards)).code == "CARDS_IMPOSSIBLE":
                    continue  # the audit finds cards no deck holds; they are no tractor
                units = table.lead(" ".join(cards)).units
                if len(units) != 1 or not units[0].is_tractor:
                    return (
                        f"trick {t + 1}: the program's tractor {' '.join(cards)} (a level pair "
                        "linked by rank) is not a tractor the godot variant can say"
                    )
        return ""

    def _settlement(self, game: records_pb2.GameRecord, dealer: int) -> None:
        """The claimed score, kitty, level change and next dealer (A.1.5)."""
        at = f"{self.path}.settlement"
        s = jp.obj(self.field("settlement", "the settlement"), at)

        def number(key: str, lo: int = 0, hi: int = jp.INT32) -> int:
            return jp.integer(jp.field(s, key, at, "a number"), f"{at}.{key}", lo, hi)

        claim = game.claim
        claim.defenders_points = number("final_score")  # the attackers' (our defenders') total
        claim.kitty_bonus = number("bottom_bonus")
        claim.kitty_multiplier = number("bottom_multiplier")  # 0 when the dealer won the last
        side = number("upgrading_side", 0, 1)  # 0 the dealer's team, 1 the attackers
        levels = number("upgrade_levels", 0, 3)
        new_rank = number("new_rank", 2, 14)
        over = jp.field(s, "game_over", at, "true or false")
        if not isinstance(over, bool):
            raise RecordError(f"{at}.game_over", f"expected true or false, found {jp.kind(over)}")
        result = claim.level_result
        if over:
            result.outcome = (
                records_pb2.OUTCOME_DEALER_WINS_MATCH
                if side == 0
                else records_pb2.OUTCOME_DEFENDERS_WIN_MATCH
            )
            result.levels = levels
            return
        if side == 0:
            result.outcome = records_pb2.OUTCOME_DEALER_UP
        elif levels == 0:
            result.outcome = records_pb2.OUTCOME_SWAP
        else:
            result.outcome = records_pb2.OUTCOME_DEFENDERS_UP
        ctx = game.context
        before = [RANK_LETTERS.index(ctx.team0_level), RANK_LETTERS.index(ctx.team1_level)]
        rising = dealer % 2 if side == 0 else 1 - dealer % 2
        after = list(before)
        if levels:
            after[rising] = new_rank - 2
        # The levels the next round starts at took effect: they are the claim when logged.
        after = self._next_ranks() or after
        result.levels = after[rising] - before[rising]  # moved, after a must-play stop
        result.dealer_team_level_after = RANK_LETTERS[after[dealer % 2]]
        result.defender_team_level_after = RANK_LETTERS[after[1 - dealer % 2]]
        seat = number("new_dealer", -1, 3)
        claim.next_dealer = dealer if seat < 0 else seat  # v1: -1 keeps the same dealer

    def _next_ranks(self) -> list[int] | None:
        """The team levels (rank indexes) the next round starts at, when the log holds it."""
        if self.index + 1 >= len(self.rounds) or not isinstance(self.rounds[self.index + 1], dict):
            return None
        following = self.rounds[self.index + 1]
        if "team_ranks" not in following:
            return None
        at = f"{self.rounds_path}[{self.index + 1}].team_ranks"
        ranks = jp.array(following["team_ranks"], at, 2)
        return [jp.integer(r, f"{at}[{i}]", 2, 14) - 2 for i, r in enumerate(ranks)]


def _unit_options(game: records_pb2.GameRecord, config: _Config, level: str, trump: int) -> str:
    """A play the program reads in a way the variant cannot say, if any (What differs).

    card_pattern.gd makes a tractor of four level cards in two pairs (``four_same_is_tractor``)
    and links a level pair by rank with a trump pair of the next rank (``tractor_allow_rank_card``);
    play_validator.gd takes a follow's suit from its first card, so a follow of a tractor listed
    led suit first but holding other cards is compared by its highest card (for a dump,
    ``ThrowCompare.ANY_THROW`` says it).
    """
    suit = _TRUMP_TOKENS[trump]
    at = RANK_LETTERS.index(level)
    near = {RANK_LETTERS[i] for i in (at - 1, at + 1) if 0 <= i < len(RANK_LETTERS)}

    def side_suit(card: str) -> str:
        return "" if card in ("LJ", "BJ") or card[1] == level or card[0] == suit else card[0]

    for t, trick in enumerate(game.tricks):
        for p, play in enumerate(trick.plays):
            for cards in (list(play.cards), list(play.attempted)):
                pairs = {c for c in cards if cards.count(c) >= 2}
                level_pairs = {c for c in pairs if c[1] == level and c not in ("LJ", "BJ")}
                if not level_pairs:
                    continue
                if config.four_same and len(cards) == 4 and len(level_pairs) == 2:
                    return (
                        f"trick {t + 1}: {' '.join(cards)} is a tractor for the program "
                        "(four_same_is_tractor), which the godot variant cannot say"
                    )
                if config.rank_links and any(c[0] == suit and c[1] in near for c in pairs):
                    return (
                        f"trick {t + 1}: {' '.join(cards)} holds a level pair the program links "
                        "by rank with a trump pair (tractor_allow_rank_card), which the godot "
                        "variant cannot say"
                    )
            lead = list(trick.plays[0].cards)
            led = side_suit(lead[0]) if lead else ""
            cards = list(play.cards)
            # A dump's follows are compared as the program does (ThrowCompare.ANY_THROW); a
            # tractor's (a lead of pairs only) are not.
            if (
                p
                and led
                and cards
                and len(lead) >= 4
                and all(lead.count(c) % 2 == 0 for c in lead)
                and side_suit(cards[0]) == led
                and any(side_suit(c) != led for c in cards)
            ):
                return (
                    f"trick {t + 1}: seat {play.seat}'s follow {' '.join(cards)} lists a led-suit "
                    "card first and holds others; the program takes its suit from that card and "
                    "compares its highest card, which the godot variant cannot say"
                )
    return ""


def is_godot_log(value: Any) -> bool:
    """Whether a JSON value looks like a shengji-godot log (``rounds`` and ``version``)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("rounds"), list)
        and value.get("version") in VERSIONS
    )


def games_from_godot(
    value: Any, path: str, stem: str
) -> tuple[list[records_pb2.GameRecord], list[RecordError]]:
    """The rounds of one log as GameRecords (ruleset ``godot``), and the rounds that are bad."""
    log = jp.obj(value, path, "a shengji-godot log {version, rounds, rule_config}")
    version = jp.field(log, "version", path, "the log schema version")
    if version not in VERSIONS:
        raise RecordError(f"{path}.version", f"expected 1 or 2, found {version!r}")
    rounds = jp.array(jp.field(log, "rounds", path, "the rounds"), f"{path}.rounds")
    config = _Config(log, path)
    games: list[records_pb2.GameRecord] = []
    errors: list[RecordError] = []
    for i in range(len(rounds)):
        try:
            reader = _Round(rounds, i, version, config, path)
            games.append(reader.game(f"{stem}:round{reader.round.get('round_num', i + 1)}"))
        except RecordError as exc:
            errors.append(exc)
    return games, errors


def read_godot(text: str, file: str, strict: bool = False) -> ImportResult:
    """GameRecords from a shengji-godot log file, one a round; a bad round is reported alone."""
    out = Collector(file, strict)
    values = json_values(text)
    if isinstance(values, RecordError):
        out.problem(values.location, values.message)
        return out.result
    stem = PurePath(file).stem
    for i, path, value in documents(values, out):
        prefix = stem if len(values) == 1 else f"{stem}#{i + 1}"
        try:
            games, errors = games_from_godot(value, path, prefix)
        except RecordError as exc:
            out.problem(exc.location, exc.message)
            continue
        for game in games:
            out.add(records_pb2.RecordFile(game=game))
        for error in errors:
            out.problem(error.location, error.message)
    return out.result
