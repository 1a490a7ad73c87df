"""Rulesets as data: the rule sections, their validation and field-by-field overrides.

Every difference between the rule texts is a field here, never a branch on the
ruleset's name (the presets are values in ``chaodipi.engine.presets``). A house
variant overrides a preset field by field:

>>> from chaodipi.engine.presets import CLASSIC
>>> variant = with_overrides(CLASSIC, {"id": "house", "kitty": {"pair": 6}})
>>> (variant.kitty.pair, variant.kitty.single)
(6, 2)

Fields read by reconstruction rather than from a clear text are listed in
``Ruleset.reconstructed`` (see docs/rules.md, R-LEVEL and R-LEVEL-AH).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from chaodipi.engine.cards import RANK_LETTERS


class RulesetError(ValueError):
    """A ruleset name or variant file that cannot be used."""


class PenaltyBasis(StrEnum):
    """What a failed throw's point penalty counts (R-THROW-PENALTY)."""

    ATTEMPT = "attempt"  # every card of the attempted throw (甩错一张罚十分)
    FORCED_UNIT = "forced_unit"  # every card of the unit that was forced
    BEATABLE_UNITS = "beatable_units"  # every card of every unit another seat beats


class ForcedUnit(StrEnum):
    """Which beaten unit of a failed throw the leader must play (R-THROW-FORCE)."""

    SMALLEST = "smallest"  # fewest cards, then lowest (强制出最小牌)
    LOWEST_TOP = "lowest_top"  # the unit with the lowest top of the whole throw, beaten or not
    LOWEST_BEATEN_CARD = "lowest_beaten_card"  # one card: the lowest of the lowest beaten unit
    LOWEST_CARD = "lowest_card"  # one card: the lowest of the whole throw, beaten or not


class ForcedTie(StrEnum):
    """Which of the tied smallest units a failed throw forces (R-THROW-FORCE-TIE).

    Units tie when the forced-unit rule cannot tell them apart: the same shape and cards of
    equal order (♣2 and ♥2 as other-suit level cards).
    """

    ANY = "any"  # forcing any one of them is correct: the audit accepts each
    ATTEMPT_ORDER = "attempt_order"  # the one whose top card comes first in the attempt's cards


class ThrowCompare(StrEnum):
    """How plays that answer a throw are compared for the trick (R-WIN)."""

    LARGEST_UNIT = "largest_unit"  # cut into the throw's units; largest unit first, then next
    # Cut as LARGEST_UNIT, but the top of the largest unit alone decides: equal tops go to the
    # earlier play, whatever the smaller units hold (the Botzone judger's checkWinner).
    LARGEST_UNIT_TOP = "largest_unit_top"
    HIGHEST_CARD = "highest_card"  # own canonical units match the throw's; highest card decides
    # shengji-godot: a play's suit is its first card's, any dump answers a dump, highest card
    ANY_THROW = "any_throw"


class Outcome(StrEnum):
    """Level outcome of a hand (R-LEVEL)."""

    DEALER_UP = "dealer_up"  # D+n; n = 0 keeps the deal without rising
    SWAP = "swap"  # the defenders take the deal at their own level
    DEFENDERS_UP = "defenders_up"  # A+n: the defenders take the deal and rise n
    DEALER_WINS_MATCH = "dealer_wins_match"  # e.g. changshu's 大光 at 0 points


class PassingAce(StrEnum):
    """What happens when a team's rise passes A (R-LEVEL)."""

    WRAP = "wrap"  # back to 2, play goes on
    WIN_MATCH = "win_match"  # the first team past A wins
    STOP_AT_ACE = "stop_at_ace"  # a rise stops on A; a team on A that rises wins the match


class NextDealer(StrEnum):
    """How the next dealer is chosen (R-MATCH-DEALER)."""

    PARTNER_OR_NEXT = "partner_or_next"  # kept deal: partner; lost deal: dealer's 下家
    SAME_OR_NEXT = "same_or_next"  # kept deal: the same seat; lost deal: dealer's 下家
    BY_DECLARATION = "by_declaration"  # anhui: 自放自打 / 上放下打, fixed by the next bidding


class MustPlayCleared(StrEnum):
    """What clears a must-play rank for a team, so that later it passes it freely (R-LEVEL-MUST)."""

    WIN = "win"  # a hand dealt there that the dealer's team won (kept the deal; D+0 too)
    DEAL = "deal"  # any hand dealt there, won or lost


class TrumpFallback(StrEnum):
    """How trump is set when nobody declares (R-BID)."""

    UNSUPPORTED = "unsupported"  # the text is silent: the audit reports it
    KITTY_CARD = "kitty_card"  # the suit of kitty card number ``fallback_kitty_index``
    FLIP_KITTY = "flip_kitty"  # flip one card a player: first level card, else highest side
    KITTY_FIRST_LEVEL = "kitty_first_level"  # kitty's first level card, else highest card
    NO_TRUMP = "no_trump"  # no-trump; in a first hand the first drawer deals
    RECORDED = "recorded"  # drawn at random by the program: the record's trump and dealer stand


class FirstHandDealer(StrEnum):
    """Who deals the first hand of a match (R-BID)."""

    FIRST_DECLARER = "first_declarer"  # 抢报: the first to show a level card
    BID_WINNER = "bid_winner"  # the last (highest) bidder before the kitty


class FirstHandLevels(StrEnum):
    """A first hand whose teams stand at different levels, with no dealer yet (R-BID)."""

    OWN_TEAM = "own_team"  # each bid shows its bidder's team's level card; the dealer's is played
    UNSUPPORTED = "unsupported"  # the texts do not say: the audit reports the hand unsupported


class HeldCheck(StrEnum):
    """How a bid's cards are checked against the bidder's hand (R-BID)."""

    COPIES = "copies"  # the copies shown are held and not shown before (亮过主的牌不能再次亮主)
    EACH_CARD = "each_card"  # each card shown is held; a held card may show again, twice too


class JokerTrump(StrEnum):
    """What a joker bid makes trump (R-BID)."""

    CHOOSE = "choose"  # the bidder names any suit or no-trump (对大王炒底后，可随意定主)
    NO_TRUMP = "no_trump"  # no-trump only


@dataclass(frozen=True, slots=True)
class LevelBand:
    """Defenders' points ``lo``..``hi`` (inclusive; ``hi`` None = no limit) and their result.

    The levels moved are ``levels``, plus, when ``step`` is set,
    ``((points - anchor) * direction) // step`` — the texts' ⌊(80-p)/10⌋ forms.
    """

    lo: int
    hi: int | None
    outcome: Outcome
    levels: int = 0
    anchor: int = 0
    direction: int = 1
    step: int | None = None

    def covers(self, points: int) -> bool:
        return points >= self.lo and (self.hi is None or points <= self.hi)

    def levels_for(self, points: int) -> int:
        if self.step is None:
            return self.levels
        return self.levels + ((points - self.anchor) * self.direction) // self.step


@dataclass(frozen=True, slots=True)
class OrderRule:
    """Card order and units (R-ORDER, R-UNIT).

    ``trump_tiers`` lists the trump places from high to low: ``BJ``, ``LJ``,
    ``trump-level`` (the trump suit's level card), ``other-level`` (level cards
    of the other suits, equal to each other), ``trump-suit`` (the rest of the
    trump suit by rank), ``card:XX`` (a card that is always trump, e.g. ``card:SA``)
    and ``trump-suit-rank:R`` (the trump suit's card of rank R). A card takes the
    highest place it qualifies for (R-ORDER-CS-DUAL). ``tractor_links`` names the
    pairs of neighbouring places (higher, lower) whose pairs form tractors (R-UNIT-TOP).
    The follow duty (R-FOLLOW-SHAPE) and the trick comparison (R-WIN) read the
    other fields, because they work from these order tables alone.
    """

    trump_tiers: tuple[str, ...]
    tractor_links: tuple[tuple[str, str], ...]
    follow_shorter_tractors: bool = False  # an unanswered tractor asks for one a pair shorter
    throw_tractor_duty: bool = True  # False: a thrown tractor is owed only as pairs
    throw_compare: ThrowCompare = ThrowCompare.LARGEST_UNIT
    tractor_duty: bool = True  # False: a led tractor is owed only as its pairs
    # True: a play of a led pair's or tractor's own shape, from a hand holding no such unit in
    # the led suit, owes no suit (an off-suit pair answers a pair; the Botzone judger).
    same_shape_follow_free: bool = False
    # True: a throw owes shape (tractors, pairs) only when it holds a tractor; a throw of
    # pairs and singles owes its suit alone (the Botzone judger).
    throw_shape_needs_tractor: bool = False
    # True: the jokers link (LJ LJ BJ BJ) only in a play of their own: inside a throw they are
    # two pairs, and a follower's jokers owe no tractor (the Botzone judger's checkThrow and
    # checkRes).
    joker_tractor_alone: bool = False


@dataclass(frozen=True, slots=True)
class ThrowRule:
    """Throws (甩牌): whether they exist, the forced unit, its tie-break and the penalty (R-THROW).

    With ``allowed`` false a lead of two or more units is illegal, never a throw.
    With ``tractors_as_pairs`` a thrown tractor is checked as its pairs: a higher pair held by
    another seat beats it, as it beats a thrown pair (shengji-godot's ``challenge_dump``).
    ``stake_charge`` names the table-stake charge of a failed throw (``half``: shuangsheng's
    half stake, 底金); each failed throw is one such unit, counted apart from the score.
    """

    allowed: bool = True
    forced_unit: ForcedUnit = ForcedUnit.SMALLEST
    forced_tie: ForcedTie = ForcedTie.ANY
    penalty_per_card: int = 10
    penalty_basis: PenaltyBasis = PenaltyBasis.ATTEMPT
    stake_charge: str = ""  # shuangsheng: half the table stake, recorded, not scored
    tractors_as_pairs: bool = False


@dataclass(frozen=True, slots=True)
class KittyRule:
    """Kitty multiplier by the last trick's lead format (R-KITTY, 抠底).

    A one-unit lead (also a failed throw's forced unit) multiplies by ``per_card``
    times its cards when ``per_card`` is set, else by its shape: ``single``, ``pair``,
    ``triple``, and a tractor ``tractor`` times its pairs when ``tractor_per_pair``,
    else ``tractor`` flat. A standing throw multiplies by ``throw`` when set, else by
    ``throw_per_card`` times its cards when set, else by its largest unit's shape
    value (不进行累加). ``last_trick_factor`` multiplies the last trick's own points.
    """

    single: int = 2
    pair: int = 4
    triple: int = 4
    tractor: int = 4
    tractor_per_pair: bool = True
    throw: int = 0
    per_card: int = 0
    throw_per_card: int = 0
    last_trick_factor: int = 1


@dataclass(frozen=True, slots=True)
class LevelRule:
    """Level change, passing A and the next dealer (R-LEVEL, R-MATCH).

    ``must_play`` ranks may not be skipped: a rise stops on the first one it would
    pass, and (``must_play_hold``) a team on one rises past it only by winning a hand
    it deals there (anhui J and A; the 80-fen program's gates 2, 5, 10, K). Such a win
    (or, with ``must_play_cleared = deal``, any hand dealt there) clears the rank for the
    rest of the match: a team that cleared it and sits on it as defenders passes it too.
    ``rungs``, when set, replace the steps of a rise: a side that rises moves to the
    next rung above its level, however many levels the table gives, and past the last
    rung wins the match; ``must_play`` is then not read (the 80-fen speed run).
    ``match_points``: the table's n are points for the deal, not levels (Botzone's
    EndGame): ``dealer_up`` n gives the dealer's side n points, ``defenders_up`` n the
    defenders; no level moves and no next dealer follows.
    """

    bands: tuple[LevelBand, ...]
    passing_ace: PassingAce = PassingAce.WRAP
    must_play: tuple[str, ...] = ()
    must_play_cleared: MustPlayCleared = MustPlayCleared.WIN
    next_dealer: NextDealer = NextDealer.PARTNER_OR_NEXT
    first_level: str = "2"
    must_play_hold: bool = True
    rungs: tuple[str, ...] = ()
    match_points: bool = False


@dataclass(frozen=True, slots=True)
class BiddingRule:
    """Declaring (报主/亮主), locking (上保险), overcalling (反主) and 炒底 (R-BID).

    ``ladder`` lists bid shapes from low to high as ``"<count>:<suit>"``: ``count``
    copies of one level card of suit S, H, C or D, ``*`` for a level card of any suit
    (all equal), or ``count`` copies of a joker, LJ or BJ; ``"J+<count>:<suit>"`` is
    one joker shown with ``count`` copies of a level card (its suit is trump), the
    joker's colour matching the suit's when ``joker_colour_match`` (BJ with ♥ ♦, LJ
    with ♠ ♣). ``held_check`` says how the shown cards must be held. ``declare_bids``,
    ``overcall_bids`` and ``chao_di_bids`` name the ladder entries each kind of bid
    may show; an empty ``chao_di_bids`` means no 炒底. An overcall must stand strictly
    higher on the ladder than the standing bid; a locked declaration stands as the
    pair of its suit (``2:*`` when the ladder does not rank pairs by suit).
    ``max_overcalls`` caps the overcalls (反主) of a hand; None sets no cap.
    """

    ladder: tuple[str, ...]
    declare_bids: tuple[str, ...] = ("1:*",)
    overcall_bids: tuple[str, ...] = ("2:D", "2:C", "2:H", "2:S", "2:LJ", "2:BJ")
    chao_di_bids: tuple[str, ...] = ("2:D", "2:C", "2:H", "2:S", "2:LJ", "2:BJ")
    lock: bool = True  # the declarer may show the same level card again (上保险)
    declarer_may_overcall: bool = False  # False: never over one's own standing bid
    big_joker_trump: JokerTrump = JokerTrump.CHOOSE
    little_joker_trump: JokerTrump = JokerTrump.NO_TRUMP
    first_hand_dealer: FirstHandDealer = FirstHandDealer.FIRST_DECLARER
    first_hand_levels: FirstHandLevels = FirstHandLevels.OWN_TEAM
    overcaller_becomes_dealer_first_hand: bool = True  # 反主反打
    chao_di_first_hand: bool = False  # classic: 除游戏第一局外
    chao_di_requires_higher: bool = True  # anhui: any trump pair 炒s, higher or not
    fallback_first_hand: TrumpFallback = TrumpFallback.UNSUPPORTED
    fallback_later_hands: TrumpFallback = TrumpFallback.KITTY_CARD
    fallback_kitty_index: int = 3  # 1-based: 正数第三张
    overcall_adds_stake: bool = False  # changshu 反主加分: every overcall and 抄底 adds one
    max_overcalls: int | None = None
    held_check: HeldCheck = HeldCheck.COPIES
    joker_colour_match: bool = False


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One complete set of rules; ``chaodipi.engine.presets.PRESETS`` holds the presets."""

    id: str
    name: str
    decks: int
    hand_size: int
    kitty_size: int
    order: OrderRule
    throw: ThrowRule
    kitty: KittyRule
    level: LevelRule
    bidding: BiddingRule
    reconstructed: tuple[str, ...] = field(default=())

    @property
    def points_in_play(self) -> int:
        return 100 * self.decks

    @property
    def max_unit_width(self) -> int:
        """Widest set of identical cards (pair, or with three decks a triple)."""
        return self.decks


_SECTIONS: dict[str, type[Any]] = {
    "order": OrderRule,
    "throw": ThrowRule,
    "kitty": KittyRule,
    "level": LevelRule,
    "bidding": BiddingRule,
}


OVERRIDE_INT_LIMIT = 1000
"""Whole numbers in a variant lie within ±this: every preset's do, and scores stay small."""

_ENUMS: dict[str, type[StrEnum]] = {
    "PenaltyBasis": PenaltyBasis,
    "ForcedUnit": ForcedUnit,
    "ForcedTie": ForcedTie,
    "PassingAce": PassingAce,
    "MustPlayCleared": MustPlayCleared,
    "ThrowCompare": ThrowCompare,
    "Outcome": Outcome,
    "NextDealer": NextDealer,
    "TrumpFallback": TrumpFallback,
    "FirstHandDealer": FirstHandDealer,
    "FirstHandLevels": FirstHandLevels,
    "JokerTrump": JokerTrump,
    "HeldCheck": HeldCheck,
}


def _kind(value: Any) -> str:
    names = {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "an array",
        tuple: "an array",
        dict: "a table",
    }
    return "nothing" if value is None else names.get(type(value), type(value).__name__)


_TUPLE_FIELDS = {"bands": "tuple[LevelBand, ...]", "tractor_links": "tuple[tuple[str, str], ...]"}
"""The tuple fields not of strings, by name (``_annotation`` of a mypyc-compiled class)."""


def _annotation(spec: dataclasses.Field[Any]) -> str:
    """A field's annotation as its source text (``int | None``), which ``_convert`` reads.

    Interpreted (``from __future__ import annotations``) ``spec.type`` is that text. Compiled
    by mypyc it is the erased class: ``int``, an enum, ``tuple`` for every tuple and ``type``
    for ``int | None``, so the text is rebuilt from it (tests/engine/test_ruleset.py checks
    that it matches the source for every field, in both builds).
    """
    kind = spec.type
    if isinstance(kind, str):
        return kind
    if kind is tuple:
        return _TUPLE_FIELDS.get(spec.name, "tuple[str, ...]")
    if isinstance(kind, type) and kind is not type:
        return kind.__name__
    return "int | None"  # the one union among the fields


def _convert(value: Any, annotation: str, where: str) -> Any:
    """A TOML/JSON value as the field's type (tuples, enums), or ``RulesetError`` naming it."""
    if annotation in _ENUMS:
        enum = _ENUMS[annotation]
        allowed = ", ".join(e.value for e in enum)
        if not isinstance(value, str) or value not in {e.value for e in enum}:
            raise RulesetError(f"{where}: expected one of {allowed}, found {value!r}")
        return enum(value)
    if annotation == "int | None" and value is None:
        return None
    if annotation in ("int", "int | None"):
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not (-OVERRIDE_INT_LIMIT <= value <= OVERRIDE_INT_LIMIT)
        ):
            raise RulesetError(
                f"{where}: expected a whole number from -{OVERRIDE_INT_LIMIT} "
                f"to {OVERRIDE_INT_LIMIT}, found {value!r}"
            )
        return value
    if annotation == "bool" and not isinstance(value, bool):
        raise RulesetError(f"{where}: expected true or false, found {_kind(value)}")
    if annotation == "str" and not isinstance(value, str):
        raise RulesetError(f"{where}: expected a string, found {_kind(value)}")
    if annotation in ("bool", "str"):
        return value
    if not isinstance(value, (list, tuple)):
        raise RulesetError(f"{where}: expected an array, found {_kind(value)}")
    if annotation.startswith("tuple[LevelBand"):
        return tuple(_level_band(b, f"{where}[{i}]") for i, b in enumerate(value))
    if annotation.startswith("tuple[tuple"):
        pairs = []
        for i, pair in enumerate(value):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise RulesetError(
                    f"{where}[{i}]: expected an array of 2 strings, found {_kind(pair)}"
                )
            pairs.append(
                tuple(_convert(v, "str", f"{where}[{i}][{j}]") for j, v in enumerate(pair))
            )
        return tuple(pairs)
    return tuple(_convert(v, "str", f"{where}[{i}]") for i, v in enumerate(value))


def _level_band(raw: Any, where: str) -> LevelBand:
    if not isinstance(raw, Mapping):
        raise RulesetError(f"{where}: expected a table with lo, hi, outcome")
    fields = {f.name: _annotation(f) for f in dataclasses.fields(LevelBand)}
    for key in raw:
        if key not in fields:
            raise RulesetError(f"{where}.{key}: unknown field; known: {', '.join(fields)}")
    missing = [name for name in ("lo", "hi", "outcome") if name not in raw]
    if missing:
        raise RulesetError(f"{where}: missing {', '.join(missing)}")
    return LevelBand(**{k: _convert(v, fields[k], f"{where}.{k}") for k, v in raw.items()})


def _replace_section(section: Any, overrides: Mapping[str, Any], where: str) -> Any:
    names = {f.name: f for f in dataclasses.fields(section)}
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in names:
            raise RulesetError(f"{where}.{key}: unknown field; known: {', '.join(names)}")
        changes[key] = _convert(value, _annotation(names[key]), f"{where}.{key}")
    return dataclasses.replace(section, **changes)


def with_overrides(base: Ruleset, data: Mapping[str, Any], where: str = "ruleset") -> Ruleset:
    """``base`` with the fields of ``data`` replaced (sections as tables), then validated.

    A bad field raises ``RulesetError`` naming it by its path under ``where``.
    """
    changes: dict[str, Any] = {}
    top_fields = {f.name: _annotation(f) for f in dataclasses.fields(Ruleset)}
    for key, value in data.items():
        if key in _SECTIONS:
            if not isinstance(value, Mapping):
                raise RulesetError(f"{where}.{key}: expected a table of fields")
            changes[key] = _replace_section(getattr(base, key), value, f"{where}.{key}")
        elif key in top_fields:
            changes[key] = _convert(value, top_fields[key], f"{where}.{key}")
        else:
            raise RulesetError(f"{where}.{key}: unknown field; known: {', '.join(top_fields)}")
    result = dataclasses.replace(base, **changes)
    validate(result, where)
    return result


def validate(ruleset: Ruleset, where: str = "ruleset") -> None:
    """Raise ``RulesetError`` naming the first inconsistent field."""
    if ruleset.decks not in (2, 3):
        raise RulesetError(f"{where}.decks: {ruleset.decks} decks are not supported (2 or 3)")
    deck = 54 * ruleset.decks
    low, high = hand_size_range(ruleset.decks)
    if not low <= ruleset.hand_size <= high:
        raise RulesetError(
            f"{where}.hand_size: {ruleset.hand_size} is not within {low}-{high} with "
            f"{ruleset.decks} decks (four hands and a kitty of 1 to a hand's size)"
        )
    if not 1 <= ruleset.kitty_size <= ruleset.hand_size:
        raise RulesetError(
            f"{where}.kitty_size: {ruleset.kitty_size} is not within 1-{ruleset.hand_size} "
            "(the kitty is no larger than a hand)"
        )
    if 4 * ruleset.hand_size + ruleset.kitty_size != deck:
        raise RulesetError(
            f"{where}: 4 hands of {ruleset.hand_size} and a kitty of {ruleset.kitty_size} "
            f"do not make {deck} cards"
        )
    for i, tier in enumerate(ruleset.order.trump_tiers):
        if not _known_tier(tier):
            raise RulesetError(f"{where}.order.trump_tiers: unknown place {tier!r}")
        if tier in ruleset.order.trump_tiers[:i]:
            raise RulesetError(f"{where}.order.trump_tiers: {tier!r} is listed twice")
    tiers = set(ruleset.order.trump_tiers)
    for upper, lower in ruleset.order.tractor_links:
        if upper not in tiers or lower not in tiers:
            raise RulesetError(
                f"{where}.order.tractor_links: ({upper!r}, {lower!r}) names no place"
            )
    for rank in (*ruleset.level.must_play, *ruleset.level.rungs, ruleset.level.first_level):
        if rank not in RANK_LETTERS:
            raise RulesetError(f"{where}.level: {rank!r} is not a rank")
    rungs = [RANK_LETTERS.index(r) for r in ruleset.level.rungs]
    if rungs != sorted(set(rungs)):
        raise RulesetError(f"{where}.level.rungs: the rungs must rise, each rank once")
    penalty = ruleset.throw.penalty_per_card
    if penalty < 0 or penalty % 5:
        # Every other score is a multiple of 5, and the level bands tile points in steps of 5.
        raise RulesetError(
            f"{where}.throw.penalty_per_card: {penalty} is not a multiple of 5 from 0"
        )
    _validate_bands(ruleset.level.bands, f"{where}.level.bands")
    if ruleset.level.match_points:
        # Match points go to one side or the other: a band that swaps the deal, or ends the
        # match, names no side to score.
        for i, band in enumerate(ruleset.level.bands):
            if band.outcome not in (Outcome.DEALER_UP, Outcome.DEFENDERS_UP):
                raise RulesetError(
                    f"{where}.level.bands[{i}].outcome: {band.outcome} gives no side match "
                    "points (with level.match_points, each band is dealer_up or defenders_up)"
                )
    _validate_bidding(ruleset, f"{where}.bidding")


def hand_size_range(decks: int) -> tuple[int, int]:
    """The hand sizes four hands and a kitty of 1 to a hand's size can have with ``decks``.

    They bound every play too: a seat holds at most a hand and the kitty.

    >>> hand_size_range(2), hand_size_range(3)
    ((22, 26), (33, 40))
    """
    deck = 54 * decks
    return (-(-deck // 5), (deck - 1) // 4)


def _validate_bands(bands: tuple[LevelBand, ...], where: str) -> None:
    # Points come in steps of 5, so the bands must tile 0, 5, 10, ... with no gap or overlap.
    if not bands or bands[0].lo != 0:
        raise RulesetError(f"{where}: the bands must start at 0 points")
    for i, band in enumerate(bands):
        if band.step is not None and band.step <= 0:
            raise RulesetError(f"{where}[{i}].step: {band.step} is not a positive step")
        lowest = min(band.levels_for(band.lo), band.levels_for(band.hi or band.lo))
        if lowest < 0 or (band.hi is None and band.step is not None and band.direction < 0):
            raise RulesetError(f"{where}[{i}].levels: the levels moved fall below 0")
        if band.hi is None:
            if i != len(bands) - 1:
                raise RulesetError(f"{where}[{i}]: only the last band may be open (hi unset)")
            return
        if band.hi < band.lo:
            raise RulesetError(f"{where}[{i}]: hi {band.hi} is below lo {band.lo}")
        if i + 1 < len(bands) and bands[i + 1].lo != band.hi + 5:
            raise RulesetError(
                f"{where}[{i + 1}].lo: {bands[i + 1].lo} does not follow {band.hi} "
                "(points move in steps of 5)"
            )
    raise RulesetError(f"{where}: the last band must be open (hi unset)")


_BID_SUITS = ("S", "H", "C", "D", "*", "LJ", "BJ")


def _validate_bidding(ruleset: Ruleset, where: str) -> None:
    rule = ruleset.bidding
    for entry in rule.ladder:
        count, _, suit = entry.partition(":")
        joker, plus, count = count.rpartition("+")
        if (
            not count.isdigit()
            or not 1 <= int(count) <= ruleset.decks
            or suit not in _BID_SUITS
            or (plus and (joker != "J" or suit in ("LJ", "BJ")))
        ):
            raise RulesetError(
                f"{where}.ladder: {entry!r} is not '<count>:<suit>' (or 'J+<count>:<suit>', "
                f"a joker with level cards) with a count of 1-{ruleset.decks} and a suit of "
                f"{', '.join(_BID_SUITS)}"
            )
    if len(set(rule.ladder)) != len(rule.ladder):
        raise RulesetError(f"{where}.ladder: an entry is listed twice")
    for name in ("declare_bids", "overcall_bids", "chao_di_bids"):
        for entry in getattr(rule, name):
            if entry not in rule.ladder:
                raise RulesetError(f"{where}.{name}: {entry!r} is not on the ladder")
    if rule.lock and "2:*" not in rule.ladder:
        missing = [f"2:{s}" for s in "SHCD" if f"2:{s}" not in rule.ladder]
        if missing:
            raise RulesetError(
                f"{where}.lock: a locked declaration stands as its pair, but the ladder "
                f"lacks {', '.join(missing)} (or 2:*)"
            )
    if rule.max_overcalls is not None and rule.max_overcalls < 0:
        raise RulesetError(f"{where}.max_overcalls: {rule.max_overcalls} is below 0")
    if not 1 <= rule.fallback_kitty_index <= ruleset.kitty_size:
        raise RulesetError(
            f"{where}.fallback_kitty_index: {rule.fallback_kitty_index} is not a kitty card "
            f"(1-{ruleset.kitty_size})"
        )


def _known_tier(tier: str) -> bool:
    if tier in ("BJ", "LJ", "trump-level", "other-level", "trump-suit"):
        return True
    prefix, _, arg = tier.partition(":")
    if prefix == "card":
        return len(arg) == 2 and arg[0] in "SHCD" and arg[1] in RANK_LETTERS
    return prefix == "trump-suit-rank" and len(arg) == 1 and arg in RANK_LETTERS
