"""Every preset ruleset, as data the engine knows without registration (R-… in docs/rules.md).

The four seed rulesets (``classic``, ``shuangsheng``, ``anhui``, ``changshu``) and the foreign
programs' (``eighty``: the 80-fen-shengji web game, ``shanghai-80fen-0.7.14-v1``; ``botzone``: the
Botzone 双升 judger of Tractor-RL; ``godot``: the shengji-godot game) are values here;
``PRESETS`` is a read-only mapping of them by id. A house variant is built on purpose from one
of them, from a mapping or a TOML/JSON text:

>>> get_ruleset("eighty").kitty.per_card
2
>>> variant = ruleset_from_mapping({"base": "classic", "id": "house", "kitty": {"pair": 6}})
>>> (variant.kitty.pair, variant.kitty.single, "house" in PRESETS)
(6, 2, False)
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from chaodipi.engine.ruleset import (
    BiddingRule,
    FirstHandDealer,
    ForcedTie,
    ForcedUnit,
    HeldCheck,
    JokerTrump,
    KittyRule,
    LevelBand,
    LevelRule,
    NextDealer,
    OrderRule,
    Outcome,
    PassingAce,
    PenaltyBasis,
    Ruleset,
    RulesetError,
    ThrowCompare,
    ThrowRule,
    TrumpFallback,
    with_overrides,
)

# Links hold between places that are neighbours once the empty ones drop out: with a trump suit
# the level cards of the other suits sit under the trump suit's level card; in no-trump that
# place is empty and they sit right under LJ, so ("LJ", "other-level") links only there
# (R-UNIT-NT: ♣6♣6 LJ LJ at level 6 in no-trump is a tractor).
_STANDARD_ORDER = OrderRule(
    trump_tiers=("BJ", "LJ", "trump-level", "other-level", "trump-suit"),
    tractor_links=(
        ("BJ", "LJ"),
        ("LJ", "trump-level"),
        ("LJ", "other-level"),
        ("trump-level", "other-level"),
        ("other-level", "trump-suit"),
    ),
)

_PAIR_LADDER = ("1:*", "2:D", "2:C", "2:H", "2:S", "2:LJ", "2:BJ")
_LEVEL_PAIRS = ("2:D", "2:C", "2:H", "2:S")
_CHANGSHU_LADDER = (
    "1:*",
    "2:D",
    "2:C",
    "2:H",
    "2:S",
    "3:D",
    "3:C",
    "3:H",
    "3:S",
    "3:LJ",
    "3:BJ",
)


def _band(lo: int, hi: int | None, outcome: Outcome, levels: int = 0) -> LevelBand:
    return LevelBand(lo, hi, outcome, levels)


CLASSIC = Ruleset(
    id="classic",
    name="炒地皮 (classic)",
    decks=2,
    hand_size=25,
    kitty_size=8,
    order=_STANDARD_ORDER,
    throw=ThrowRule(penalty_per_card=10, penalty_basis=PenaltyBasis.ATTEMPT),
    kitty=KittyRule(single=2, pair=4, tractor=4, tractor_per_pair=True, throw=0),
    level=LevelRule(
        bands=(
            _band(0, 0, Outcome.DEALER_UP, 5),
            _band(5, 35, Outcome.DEALER_UP, 3),
            _band(40, 55, Outcome.DEALER_UP, 2),
            _band(60, 75, Outcome.DEALER_UP, 1),
            _band(80, 95, Outcome.SWAP),
            LevelBand(100, None, Outcome.DEFENDERS_UP, 1, anchor=100, direction=1, step=20),
        ),
        passing_ace=PassingAce.WRAP,
    ),
    bidding=BiddingRule(ladder=_PAIR_LADDER),
    reconstructed=("level.bands",),
)

SHUANGSHENG = dataclasses.replace(
    CLASSIC,
    id="shuangsheng",
    name="双升 (tournament)",
    throw=ThrowRule(penalty_per_card=0, stake_charge="half"),
    kitty=KittyRule(single=2, pair=4, tractor=4, tractor_per_pair=True, throw=2),
    level=LevelRule(
        bands=(
            _band(0, 0, Outcome.DEALER_UP, 6),
            _band(5, 10, Outcome.DEALER_UP, 5),
            _band(15, 20, Outcome.DEALER_UP, 4),
            _band(25, 30, Outcome.DEALER_UP, 3),
            _band(35, 35, Outcome.DEALER_UP, 2),
            _band(40, 75, Outcome.DEALER_UP, 1),
            _band(80, 115, Outcome.SWAP),
            _band(120, 120, Outcome.DEFENDERS_UP, 1),
            _band(125, 160, Outcome.DEFENDERS_UP, 2),
            _band(165, 200, Outcome.DEFENDERS_UP, 3),
            _band(205, 240, Outcome.DEFENDERS_UP, 4),
            _band(245, 280, Outcome.DEFENDERS_UP, 5),
            _band(285, None, Outcome.DEFENDERS_UP, 6),
        ),
        passing_ace=PassingAce.WIN_MATCH,
    ),
    reconstructed=(),
)

ANHUI = dataclasses.replace(
    CLASSIC,
    id="anhui",
    name="安徽炒地皮",
    throw=ThrowRule(penalty_per_card=10, penalty_basis=PenaltyBasis.FORCED_UNIT),
    kitty=KittyRule(single=2, pair=4, tractor=8, tractor_per_pair=False, throw=0),
    level=LevelRule(
        bands=(
            _band(0, 0, Outcome.DEALER_UP, 8),
            LevelBand(5, 75, Outcome.DEALER_UP, 0, anchor=80, direction=-1, step=10),
            _band(80, 85, Outcome.SWAP),
            LevelBand(90, None, Outcome.DEFENDERS_UP, 0, anchor=80, direction=1, step=10),
        ),
        passing_ace=PassingAce.WIN_MATCH,
        must_play=("J", "A"),
        next_dealer=NextDealer.BY_DECLARATION,
    ),
    bidding=BiddingRule(
        ladder=_PAIR_LADDER,
        overcall_bids=_LEVEL_PAIRS,  # 只能使用级牌来反主
        chao_di_bids=(*_LEVEL_PAIRS, "2:LJ", "2:BJ"),  # 任意主牌对; joker pairs 炒 only
        lock=False,
        big_joker_trump=JokerTrump.NO_TRUMP,
        little_joker_trump=JokerTrump.NO_TRUMP,
        first_hand_dealer=FirstHandDealer.BID_WINNER,
        chao_di_first_hand=True,  # 炒底牌不限次数: the text limits it to no hand
        chao_di_requires_higher=False,  # 炒底牌不限次数, any trump pair
        fallback_first_hand=TrumpFallback.FLIP_KITTY,
        fallback_later_hands=TrumpFallback.FLIP_KITTY,
    ),
    reconstructed=("level.bands",),
)

CHANGSHU = Ruleset(
    id="changshu",
    name="常熟炒地皮",
    decks=3,
    hand_size=39,
    kitty_size=6,
    order=OrderRule(
        trump_tiers=(
            "trump-suit-rank:5",
            "BJ",
            "LJ",
            "card:SA",
            "trump-level",
            "other-level",
            "trump-suit",
        ),
        tractor_links=(),
    ),
    throw=ThrowRule(penalty_per_card=0),
    kitty=KittyRule(
        single=2,
        pair=2,
        triple=2,
        tractor=2,
        tractor_per_pair=False,
        throw=2,
        last_trick_factor=2,
    ),
    level=LevelRule(
        bands=(
            _band(0, 0, Outcome.DEALER_WINS_MATCH),
            LevelBand(5, 115, Outcome.DEALER_UP, 0, anchor=120, direction=-1, step=10),
            _band(120, 125, Outcome.SWAP),
            LevelBand(130, None, Outcome.DEFENDERS_UP, 0, anchor=120, direction=1, step=10),
        ),
        passing_ace=PassingAce.WIN_MATCH,
    ),
    bidding=BiddingRule(
        ladder=_CHANGSHU_LADDER,
        declare_bids=_CHANGSHU_LADDER,  # 叫主 follows the same ladder (叫主時，也遵循以上規則)
        overcall_bids=_CHANGSHU_LADDER[1:],
        chao_di_bids=_CHANGSHU_LADDER[1:],  # 至少要兩張級牌才能抄底 (or three jokers)
        lock=False,
        declarer_may_overcall=True,
        big_joker_trump=JokerTrump.NO_TRUMP,
        little_joker_trump=JokerTrump.NO_TRUMP,
        first_hand_dealer=FirstHandDealer.BID_WINNER,
        chao_di_first_hand=True,
        fallback_first_hand=TrumpFallback.KITTY_FIRST_LEVEL,
        fallback_later_hands=TrumpFallback.KITTY_FIRST_LEVEL,
        overcall_adds_stake=True,
    ),
)

# The foreign programs' rulesets: the rules each program's code applies (docs/foreign-formats.md
# §1.7, §2.5 and §3.5). Where a program's code departs from its own rules by a bug, the ruleset
# keeps ours; docs/foreign-formats.md (§ What differs) lists those cases.

# Neither program ranks level pairs by suit: every level pair is one rung (strength 2).
_PAIR_BIDS = ("2:*", "2:LJ", "2:BJ")

EIGHTY = dataclasses.replace(
    CLASSIC,
    id="eighty",
    name="80-fen-shengji (shanghai-80fen-0.7.14-v1)",
    order=dataclasses.replace(
        CLASSIC.order,
        follow_shorter_tractors=True,  # partialTractorFollow
        throw_tractor_duty=False,  # followError checks tractors only for a tractor lead
        throw_compare=ThrowCompare.HIGHEST_CARD,  # resolveTrick: same signature, higher top
    ),
    # adjudicateThrow forces the lowest-top part of the whole throw; "There is no point fine".
    # adjudicateThrow: equal tops go in the order the leader listed the cards (R-THROW-FORCE-TIE).
    throw=ThrowRule(
        forced_unit=ForcedUnit.LOWEST_TOP,
        forced_tie=ForcedTie.ATTEMPT_ORDER,
        penalty_per_card=0,
    ),
    # scoreDeal: multiplier = 2 * the cards of the last lead, a throw's too.
    kitty=KittyRule(per_card=2, throw_per_card=2),
    level=LevelRule(
        bands=(
            LevelBand(0, 0, Outcome.DEALER_UP, 3),
            LevelBand(5, 35, Outcome.DEALER_UP, 2),
            LevelBand(40, 75, Outcome.DEALER_UP, 1),
            LevelBand(80, 115, Outcome.SWAP),
            LevelBand(120, None, Outcome.DEFENDERS_UP, 0, anchor=80, direction=1, step=40),
        ),
        passing_ace=PassingAce.WIN_MATCH,  # a level above 14 wins the match
        must_play=("2", "5", "T", "K"),  # rules.gates: passed only by winning there as dealer
        next_dealer=NextDealer.PARTNER_OR_NEXT,
    ),
    bidding=BiddingRule(
        ladder=("1:*", *_PAIR_BIDS),  # strength 1 < 2 < 3 (LJ pair) < 4 (BJ pair)
        declare_bids=("1:*", *_PAIR_BIDS),
        overcall_bids=_PAIR_BIDS,
        chao_di_bids=(),  # no 炒底
        lock=True,  # the declarer may turn its single into the same-suit pair
        declarer_may_overcall=False,
        big_joker_trump=JokerTrump.NO_TRUMP,
        little_joker_trump=JokerTrump.NO_TRUMP,
        first_hand_dealer=FirstHandDealer.BID_WINNER,
        # settleTrump: no bid, no-trump; `first` deals.
        fallback_first_hand=TrumpFallback.NO_TRUMP,
        fallback_later_hands=TrumpFallback.NO_TRUMP,
    ),
    reconstructed=(),
)

BOTZONE = dataclasses.replace(
    CLASSIC,
    id="botzone",
    name="Botzone 双升 (Tractor-RL judger)",
    # Level cards never link; jokers link only as LJ LJ BJ BJ led alone (checkThrow links
    # none). checkWinner compares a throw's answers by their largest unit's top alone.
    # checkLegalMove checks a follow's suit only when its type differs from the lead's, and a
    # throw's structure only when its largest unit is a tractor.
    order=dataclasses.replace(
        CLASSIC.order,
        tractor_links=(("BJ", "LJ"),),
        throw_compare=ThrowCompare.LARGEST_UNIT_TOP,
        same_shape_follow_free=True,
        throw_shape_needs_tractor=True,
        joker_tractor_alone=True,
    ),
    # checkThrow: 10 per card of every beatable unit; the lead shrinks to one card, the first
    # (lowest) of the beatable unit with the lowest last card.
    throw=ThrowRule(
        forced_unit=ForcedUnit.LOWEST_BEATEN_CARD,
        penalty_per_card=10,
        penalty_basis=PenaltyBasis.BEATABLE_UNITS,
    ),
    # A plain lead multiplies by its card count; a throw by its largest unit: single 2, pair 4,
    # tractor 2 a card.
    kitty=KittyRule(single=2, pair=4, triple=4, tractor=4, tractor_per_pair=True, per_card=1),
    level=LevelRule(
        # Botzone's match points for the deal (EndGame): banker side 3/2/1, defenders 1/2/3.
        bands=(
            LevelBand(0, 0, Outcome.DEALER_UP, 3),
            LevelBand(5, 35, Outcome.DEALER_UP, 2),
            LevelBand(40, 75, Outcome.DEALER_UP, 1),
            LevelBand(80, 115, Outcome.DEFENDERS_UP, 1),
            LevelBand(120, 155, Outcome.DEFENDERS_UP, 2),
            LevelBand(160, None, Outcome.DEFENDERS_UP, 3),
        ),
        match_points=True,
    ),
    bidding=BiddingRule(
        ladder=("1:*", *_PAIR_BIDS),
        declare_bids=("1:*",),  # one call with a single level card
        overcall_bids=_PAIR_BIDS,  # a snatch with a level pair or a joker pair
        chao_di_bids=(),
        lock=False,
        declarer_may_overcall=True,  # nothing stops the caller from snatching
        big_joker_trump=JokerTrump.NO_TRUMP,
        little_joker_trump=JokerTrump.NO_TRUMP,
        first_hand_dealer=FirstHandDealer.BID_WINNER,
        fallback_first_hand=TrumpFallback.RECORDED,  # a seeded random banker and suit
        fallback_later_hands=TrumpFallback.RECORDED,
        max_overcalls=1,  # banking["snatched"]: one snatch a deal
        # checkBanker tests each shown id with `in`: the caller may show its card again.
        held_check=HeldCheck.EACH_CARD,
    ),
    reconstructed=(),
)

# shengji-godot's v1 logger (docs/foreign-formats.md §3): its terminal host's rule_config.
GODOT = dataclasses.replace(
    CLASSIC,
    id="godot",
    name="shengji-godot (rule_config: no dumps, joker bids, must-play 5 10 K)",
    # card_pattern.gd: no joker or level pair links, but exactly BJ BJ LJ LJ is a tractor;
    # _check_follow_structure asks a follower for pairs only, never a tractor.
    # With allow_dump (rule_config), a dump answers a dump (_structure_matches) and the
    # highest card decides; a follow owes the dump's pairs, never a tractor.
    order=dataclasses.replace(
        CLASSIC.order,
        tractor_links=(("BJ", "LJ"),),
        tractor_duty=False,
        throw_tractor_duty=False,
        throw_compare=ThrowCompare.ANY_THROW,
    ),
    # allow_dump = false; with it (an override), challenge_dump checks each single and pair of
    # the dump against the others' highest, and a failed dump plays its lowest card, the
    # first listed of equal ones (_smallest_card), with no penalty.
    throw=ThrowRule(
        allowed=False,
        forced_unit=ForcedUnit.LOWEST_CARD,
        forced_tie=ForcedTie.ATTEMPT_ORDER,
        penalty_per_card=0,
        tractors_as_pairs=True,
    ),
    # get_bottom_multiplier of the winning play: single 1, pair 2, tractor 2 a pair.
    kitty=KittyRule(single=1, pair=2, triple=2, tractor=2, tractor_per_pair=True),
    level=LevelRule(
        bands=(
            LevelBand(0, 0, Outcome.DEALER_UP, 3),
            LevelBand(5, 35, Outcome.DEALER_UP, 2),
            LevelBand(40, 75, Outcome.DEALER_UP, 1),
            LevelBand(80, 115, Outcome.SWAP),
            LevelBand(120, 155, Outcome.DEFENDERS_UP, 1),
            LevelBand(160, 195, Outcome.DEFENDERS_UP, 2),
            LevelBand(200, None, Outcome.DEFENDERS_UP, 3),
        ),
        passing_ace=PassingAce.STOP_AT_ACE,  # apply_upgrade caps at A; at A a rise wins
        must_play=("5", "T", "K"),  # no_skip_ranks: a rise stops on them
        must_play_hold=False,  # v1's apply_upgrade: nothing holds a team on one
        next_dealer=NextDealer.SAME_OR_NEXT,  # new_dealer: kept -1 (same seat), else 下家
    ),
    bidding=BiddingRule(
        # bid_requires_joker: a joker with level cards of its colour's suit, or a joker pair
        # (公主, no-trump); the first valid bid wins and its bidder deals.
        ladder=("J+1:*", "J+2:*", "2:LJ", "2:BJ"),
        declare_bids=("J+1:*", "J+2:*", "2:LJ", "2:BJ"),
        overcall_bids=(),
        chao_di_bids=(),
        lock=False,
        big_joker_trump=JokerTrump.NO_TRUMP,
        little_joker_trump=JokerTrump.NO_TRUMP,
        first_hand_dealer=FirstHandDealer.BID_WINNER,
        fallback_first_hand=TrumpFallback.NO_TRUMP,  # nobody bids: no-trump
        fallback_later_hands=TrumpFallback.NO_TRUMP,
        joker_colour_match=True,  # trump_joker_color_match
    ),
    reconstructed=(),
)


BUILTIN: Final[tuple[str, ...]] = ("classic", "shuangsheng", "anhui", "changshu")
"""The four rulesets read from the source texts (docs/rules.md)."""

PRESETS: Final[Mapping[str, Ruleset]] = MappingProxyType(
    {r.id: r for r in (CLASSIC, SHUANGSHENG, ANHUI, CHANGSHU, EIGHTY, BOTZONE, GODOT)}
)
"""Every preset by id, read-only: the four of ``BUILTIN`` and the foreign programs' three."""


def get_ruleset(ruleset_id: str) -> Ruleset:
    """A preset by id (one of ``PRESETS``).

    >>> get_ruleset("poker")
    Traceback (most recent call last):
    ...
    chaodipi.engine.ruleset.RulesetError: unknown ruleset 'poker': expected one of anhui, ...
    """
    try:
        return PRESETS[ruleset_id]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise RulesetError(f"unknown ruleset {ruleset_id!r}: expected one of {known}") from None


def ruleset_from_mapping(data: Mapping[str, Any], where: str = "ruleset") -> Ruleset:
    """A house variant from a mapping: ``base`` (a preset id) plus field overrides.

    Without ``base``, ``id`` names the preset it starts from (``classic`` when neither is given).

    >>> data = {"base": "anhui", "id": "house", "throw": {"penalty_per_card": 5}}
    >>> house = ruleset_from_mapping(data)
    >>> house.id, house.throw.penalty_per_card, house.throw.penalty_basis.value
    ('house', 5, 'forced_unit')
    """
    base = get_ruleset(str(data.get("base", data.get("id", "classic"))))
    return with_overrides(base, {k: v for k, v in data.items() if k != "base"}, where)


def ruleset_from_text(text: str, filename: str) -> Ruleset:
    """A house variant from a ``.toml`` or ``.json`` file's text (its name picks the reader).

    >>> text = '{"base": "classic", "id": "club", "kitty": {"pair": 2}}'
    >>> ruleset_from_text(text, "club.json").kitty.pair
    2
    """
    import tomllib  # here, not at the top: only a TOML file needs it (start-up time)

    try:
        data = json.loads(text) if filename.endswith(".json") else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        kind = "JSON" if filename.endswith(".json") else "TOML"
        raise RulesetError(f"{filename}: not valid {kind}: {exc}") from None
    if not isinstance(data, dict):
        raise RulesetError(f"{filename}: expected a table at the top")
    return ruleset_from_mapping(data, filename)
