"""Ruleset variants for the foreign programs, as data on our ``Ruleset`` type.

``eighty``: the 80-fen-shengji web game (``shanghai-80fen-0.7.14-v1``); ``botzone``: the
Botzone 双升 judger of Tractor-RL. Both are built from ``classic`` with ``dataclasses.replace``
and registered on import, so a record can name them and the audit can use them; a user can
re-audit the same record under any preset to see what would differ. Rules the type cannot yet
say are listed in docs/foreign-formats.md and docs/notation.md (§ Ruleset variants).
"""

from __future__ import annotations

import dataclasses

from engine.ruleset import (
    CLASSIC,
    BiddingRule,
    FirstHandDealer,
    JokerTrump,
    KittyRule,
    LevelBand,
    LevelRule,
    NextDealer,
    Outcome,
    PassingAce,
    ThrowRule,
    TrumpFallback,
    register,
)

EIGHTY_GATES = (2, 5, 10, 13)
"""The 80-fen program's default ``rules.gates`` (levels 2, 5, 10, K may not be skipped)."""

_PAIR_BIDS = ("2:*", "2:LJ", "2:BJ")  # a level pair of any suit (no suit ranking), joker pairs
# A lock stands as the pair of its suit, so the ladder must rank level pairs by suit; the 80-fen
# program does not (strength 2 for every suit), which no genuine log can tell apart.
_RANKED_PAIR_BIDS = ("2:D", "2:C", "2:H", "2:S", "2:LJ", "2:BJ")

EIGHTY = register(dataclasses.replace(
    CLASSIC,
    id="eighty",
    name="80-fen-shengji (shanghai-80fen-0.7.14-v1)",
    order=dataclasses.replace(CLASSIC.order, follow_shorter_tractors=True),  # partialTractorFollow
    throw=ThrowRule(penalty_per_card=0),  # "There is no point fine"
    kitty=KittyRule(single=2, pair=4, triple=4, tractor=4, tractor_per_pair=True, throw=0),
    level=LevelRule(
        bands=(
            LevelBand(0, 0, Outcome.DEALER_UP, 3),
            LevelBand(5, 35, Outcome.DEALER_UP, 2),
            LevelBand(40, 75, Outcome.DEALER_UP, 1),
            LevelBand(80, 115, Outcome.SWAP),
            LevelBand(120, None, Outcome.DEFENDERS_UP, 0, anchor=80, direction=1, step=40),
        ),
        passing_ace=PassingAce.WIN_MATCH,  # a level above 14 wins the match
        must_play=("2", "5", "T", "K"),  # rules.gates
        next_dealer=NextDealer.PARTNER_OR_NEXT,
    ),
    bidding=BiddingRule(
        ladder=("1:*", *_RANKED_PAIR_BIDS),  # strength 1 < 2 < 3 (LJ pair) < 4 (BJ pair)
        declare_bids=("1:*", *_RANKED_PAIR_BIDS),
        overcall_bids=_RANKED_PAIR_BIDS,
        chao_di_bids=(),  # no 炒底
        lock=True,  # the declarer may turn its single into the same-suit pair
        declarer_may_overcall=False,
        big_joker_trump=JokerTrump.NO_TRUMP,
        little_joker_trump=JokerTrump.NO_TRUMP,
        first_hand_dealer=FirstHandDealer.BID_WINNER,
        fallback_first_hand=TrumpFallback.UNSUPPORTED,  # the program plays no-trump
        fallback_later_hands=TrumpFallback.UNSUPPORTED,
    ),
    reconstructed=(),
))

BOTZONE = register(dataclasses.replace(
    CLASSIC,
    id="botzone",
    name="Botzone 双升 (Tractor-RL judger)",
    # Level cards never link; jokers link only as LJ LJ BJ BJ.
    order=dataclasses.replace(CLASSIC.order, tractor_links=(("BJ", "LJ"),)),
    throw=ThrowRule(penalty_per_card=10),
    # A plain lead multiplies the kitty by its card count: single 1, pair 2, tractor 2 a pair.
    kitty=KittyRule(single=1, pair=2, triple=3, tractor=2, tractor_per_pair=True, throw=0),
    level=LevelRule(
        # Botzone's match points for the deal (EndGame), read as levels.
        bands=(
            LevelBand(0, 0, Outcome.DEALER_UP, 3),
            LevelBand(5, 35, Outcome.DEALER_UP, 2),
            LevelBand(40, 75, Outcome.DEALER_UP, 1),
            LevelBand(80, 115, Outcome.DEFENDERS_UP, 1),
            LevelBand(120, 155, Outcome.DEFENDERS_UP, 2),
            LevelBand(160, None, Outcome.DEFENDERS_UP, 3),
        ),
    ),
    bidding=BiddingRule(
        ladder=("1:*", *_PAIR_BIDS),
        declare_bids=("1:*",),  # one call with a single level card
        overcall_bids=_PAIR_BIDS,  # one snatch with a level pair or a joker pair
        chao_di_bids=(),
        lock=False,
        declarer_may_overcall=True,  # nothing stops the caller from snatching
        big_joker_trump=JokerTrump.NO_TRUMP,
        little_joker_trump=JokerTrump.NO_TRUMP,
        first_hand_dealer=FirstHandDealer.BID_WINNER,
        fallback_first_hand=TrumpFallback.UNSUPPORTED,  # a seeded random banker and suit
        fallback_later_hands=TrumpFallback.UNSUPPORTED,
    ),
    reconstructed=(),
))
