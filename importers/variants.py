"""Ruleset variants for the foreign programs, as data on our ``Ruleset`` type.

``eighty``: the 80-fen-shengji web game (``shanghai-80fen-0.7.14-v1``); ``botzone``: the
Botzone 双升 judger of Tractor-RL. Both are built from ``classic`` with ``dataclasses.replace``
and registered on import, so a record can name them and the audit can use them; a user can
re-audit the same record under any preset to see what would differ. Where a program's code
departs from its own rules by a bug, the variant keeps our rule; docs/foreign-formats.md
(§ What differs) lists those cases.
"""

from __future__ import annotations

import dataclasses

from chaodipi.engine.ruleset import (
    CLASSIC,
    BiddingRule,
    FirstHandDealer,
    ForcedUnit,
    JokerTrump,
    KittyRule,
    LevelBand,
    LevelRule,
    NextDealer,
    Outcome,
    PassingAce,
    PenaltyBasis,
    ThrowCompare,
    ThrowRule,
    TrumpFallback,
    register,
)

EIGHTY_GATES = (2, 5, 10, 13)
"""The 80-fen program's default ``rules.gates`` (levels 2, 5, 10, K may not be skipped)."""

# Neither program ranks level pairs by suit: every level pair is one rung (strength 2).
_PAIR_BIDS = ("2:*", "2:LJ", "2:BJ")

EIGHTY = register(
    dataclasses.replace(
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
        throw=ThrowRule(forced_unit=ForcedUnit.LOWEST_TOP, penalty_per_card=0),
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
)

BOTZONE = register(
    dataclasses.replace(
        CLASSIC,
        id="botzone",
        name="Botzone 双升 (Tractor-RL judger)",
        # Level cards never link; jokers link only as LJ LJ BJ BJ.
        order=dataclasses.replace(CLASSIC.order, tractor_links=(("BJ", "LJ"),)),
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
        ),
        reconstructed=(),
    )
)
