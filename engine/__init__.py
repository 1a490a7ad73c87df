"""The 炒地皮 rules engine: pure, typed, and fast (no I/O, no database, no network).

``from chaodipi import engine`` gives the whole public API; every value parses from the
records' tokens and prints back to them. docs/engine.md walks through a caller's session.

>>> from chaodipi import engine
>>> rules = engine.get_ruleset("classic")
>>> table = engine.Table(rules, level="6", trump="NT")
>>> lead = table.lead("C8 C8 C9 C9")
>>> lead.describe(), table.follow(engine.Hand("C2 C3 C4 C5 SA"), lead, "C2 C3 C4 C5").legal
('tractor of 2 pairs', True)

Modules by concern: ``cards`` (kinds, tokens, ``Cards`` and ``Hand``), ``ruleset`` (the
rules as data), ``presets`` (every preset), ``order`` (trump context), ``units`` (pairs,
triples, tractors), ``lead`` (leads and throws), ``follow`` (follow legality), ``trick``
(the winner), ``verdict``, ``table`` (one hand's checks), ``scoring``, ``level`` and
``bidding``.
"""

from chaodipi.engine.bidding import (
    Bid,
    BiddingState,
    BidError,
    BidKind,
    FallbackResult,
    Phase,
    RecordedDraw,
    Unsupported,
    apply_bid,
    bury,
    check_bid,
    end_drawing,
    fallback_trump,
    start_bidding,
)
from chaodipi.engine.cards import (
    KINDS,
    NO_TRUMP_TOKEN,
    POINTS,
    RANK_LETTERS,
    SUIT_LETTERS,
    CardError,
    Cards,
    Hand,
    card_label,
    card_token,
    format_cards,
    label_cards,
    parse_card,
    parse_cards,
    parse_level,
    parse_trump,
    points_of,
    trump_token,
)
from chaodipi.engine.lead import Beat, Lead, ThrowVerdict, lead_of_one_kind
from chaodipi.engine.level import (
    PAST_ACE,
    LevelResult,
    clears_must_play,
    level_result,
    match_points,
    next_dealer,
)
from chaodipi.engine.order import SUIT_NAMES, TRUMP
from chaodipi.engine.presets import (
    BUILTIN,
    PRESETS,
    get_ruleset,
    ruleset_from_mapping,
    ruleset_from_text,
)
from chaodipi.engine.ruleset import (
    FirstHandLevels,
    ForcedTie,
    NextDealer,
    Outcome,
    Ruleset,
    RulesetError,
    TrumpFallback,
)
from chaodipi.engine.scoring import (
    HandScore,
    kitty_bonus,
    kitty_multiplier,
    last_trick_bonus,
    penalty_effect,
    score_hand,
)
from chaodipi.engine.table import Table
from chaodipi.engine.units import Unit
from chaodipi.engine.verdict import LEGAL, Verdict

__all__ = [
    "BUILTIN",
    "KINDS",
    "LEGAL",
    "NO_TRUMP_TOKEN",
    "PAST_ACE",
    "POINTS",
    "PRESETS",
    "RANK_LETTERS",
    "SUIT_LETTERS",
    "SUIT_NAMES",
    "TRUMP",
    "Beat",
    "Bid",
    "BidError",
    "BidKind",
    "BiddingState",
    "CardError",
    "Cards",
    "FallbackResult",
    "FirstHandLevels",
    "ForcedTie",
    "Hand",
    "HandScore",
    "Lead",
    "LevelResult",
    "NextDealer",
    "Outcome",
    "Phase",
    "RecordedDraw",
    "Ruleset",
    "RulesetError",
    "Table",
    "ThrowVerdict",
    "TrumpFallback",
    "Unit",
    "Unsupported",
    "Verdict",
    "apply_bid",
    "bury",
    "card_label",
    "card_token",
    "check_bid",
    "clears_must_play",
    "end_drawing",
    "fallback_trump",
    "format_cards",
    "get_ruleset",
    "kitty_bonus",
    "kitty_multiplier",
    "label_cards",
    "last_trick_bonus",
    "lead_of_one_kind",
    "level_result",
    "match_points",
    "next_dealer",
    "parse_card",
    "parse_cards",
    "parse_level",
    "parse_trump",
    "penalty_effect",
    "points_of",
    "ruleset_from_mapping",
    "ruleset_from_text",
    "score_hand",
    "start_bidding",
    "trump_token",
]
