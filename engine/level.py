"""Level change after a hand and the next dealer (R-LEVEL, R-MATCH, R-MATCH-DEALER).

Levels are rank indexes 0-12 (2 … A); ``PAST_ACE`` (13) marks a team that has
passed A. Teams are ``"dealer"`` (主打方) and ``"defenders"`` (捡分方); the team of
seat ``s`` is ``s % 2``.

Must-play ranks (anhui J and A, 必打; the 80-fen program's gates 2, 5, 10, K): a
rise that would pass one stops on it, and a team on one passes it only by winning
a hand it deals there. So a dealer on J that rises may pass J, while defenders on
J rise to nothing and stay on J; a dealer on A that rises passes A, defenders on
A stay on A (R-LEVEL-MUST). The match's history enters as the ranks each team has
cleared before this hand (``clears_must_play``): a cleared rank is passed freely.

>>> from chaodipi.engine.presets import ANHUI
>>> r = level_result(ANHUI, 50, "T", "5")
>>> (r.table_levels, r.levels, RANK_LETTERS[r.dealer_level_after])
(3, 1, 'J')
>>> print(r)  # doctest: +NORMALIZE_WHITESPACE
dealer_up, table 3, moved 1; stops on J (must play);
dealer team at J, defenders at 5, next deal: dealer
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal

from chaodipi.engine.cards import RANK_LETTERS, parse_level
from chaodipi.engine.ruleset import (
    LevelBand,
    MustPlayCleared,
    NextDealer,
    Outcome,
    PassingAce,
    Ruleset,
)

Team = Literal["dealer", "defenders"]

PAST_ACE: Final = 13
"""Level index of a team that has passed A and so won the match (WIN_MATCH)."""

# The outcomes and next-dealer rules as module constants, read without the enum type's
# attribute hook (see ``engine.bidding``).
_DEALER_WINS_MATCH: Final = Outcome.DEALER_WINS_MATCH
_DEALER_UP: Final = Outcome.DEALER_UP
_DEFENDERS_UP: Final = Outcome.DEFENDERS_UP
_SWAP: Final = Outcome.SWAP
_PARTNER_OR_NEXT: Final = NextDealer.PARTNER_OR_NEXT
_SAME_OR_NEXT: Final = NextDealer.SAME_OR_NEXT


@dataclass(frozen=True, slots=True)
class LevelResult:
    """What a hand's defenders' points do to the levels (R-LEVEL).

    ``table_levels`` is the table's n (D+n / A+n); ``levels`` the levels actually
    moved after a must-play stop (``stopped_at``, a rank index). ``next_deal`` is the
    team that deals the next hand. When ``match_winner`` is set the match is over,
    and the next match starts both teams at ``LevelRule.first_level``.
    """

    outcome: Outcome
    table_levels: int
    levels: int
    dealer_level_after: int
    defender_level_after: int
    next_deal: Team
    match_winner: Team | None
    stopped_at: int | None

    def __init__(
        self,
        outcome: Outcome,
        table_levels: int,
        levels: int,
        dealer_level_after: int,
        defender_level_after: int,
        next_deal: Team,
        match_winner: Team | None = None,
        stopped_at: int | None = None,
    ) -> None:
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "table_levels", table_levels)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "dealer_level_after", dealer_level_after)
        object.__setattr__(self, "defender_level_after", defender_level_after)
        object.__setattr__(self, "next_deal", next_deal)
        object.__setattr__(self, "match_winner", match_winner)
        object.__setattr__(self, "stopped_at", stopped_at)

    def describe(self) -> str:
        """One line for a referee: outcome, table and moved levels, stop, levels after."""
        parts = [f"{self.outcome.value}, table {self.table_levels}, moved {self.levels}"]
        if self.stopped_at is not None:
            parts.append(f"stops on {RANK_LETTERS[self.stopped_at]} (must play)")
        parts.append(
            f"dealer team at {_level_name(self.dealer_level_after)}, "
            f"defenders at {_level_name(self.defender_level_after)}, next deal: {self.next_deal}"
        )
        if self.match_winner is not None:
            parts.append(f"match won by the {self.match_winner}")
        return "; ".join(parts)

    def __str__(self) -> str:
        return self.describe()


_ACE: Final = RANK_LETTERS.index("A")
_NO_RANKS: Final[frozenset[int]] = frozenset()


def _level_name(level: int) -> str:
    return "past A" if level >= PAST_ACE else RANK_LETTERS[level]


def _rise(
    ruleset: Ruleset, level: int, levels: int, *, deals_now: bool, cleared: frozenset[int]
) -> tuple[int, int, int | None, bool]:
    """A team's rise: (new level, levels moved, must-play stop, passed A)."""
    rule = ruleset.level
    if rule.rungs:
        # A speed ladder: any rise is one rung up, and past the last rung wins the match.
        if levels <= 0:
            return level, 0, None, False
        rung = next((r for r in (RANK_LETTERS.index(x) for x in rule.rungs) if r > level), None)
        if rung is None:
            return PAST_ACE, PAST_ACE - level, None, True
        return rung, rung - level, None, False
    target = level + levels
    if levels > 0 and rule.must_play:
        for rank in _rank_indexes(rule.must_play):
            if rank in cleared:
                continue
            # Passing a must-play rank needs a hand won as dealer on it; landing on it is fine.
            held = rank == level and not deals_now and rule.must_play_hold
            if level < rank < target or held:
                return rank, rank - level, rank, False
    if target <= _ACE:
        return target, levels, None, False
    if rule.passing_ace is PassingAce.WRAP:
        return target % len(RANK_LETTERS), levels, None, False
    if rule.passing_ace is PassingAce.STOP_AT_ACE and level < _ACE:
        return _ACE, _ACE - level, None, False
    return PAST_ACE, levels, None, True


@cache
def _rank_indexes(ranks: tuple[str, ...]) -> tuple[int, ...]:
    """Rank letters as indexes, in order: a ruleset's must-play ranks, read once."""
    return tuple(sorted(RANK_LETTERS.index(r) for r in ranks))


def _level(team: str, level: int | str) -> int:
    if isinstance(level, int):
        if not 0 <= level <= _ACE:
            raise ValueError(f"bad {team} level {level}: expected a rank index 0-12")
        return level
    return parse_level(level)


def level_result(
    ruleset: Ruleset,
    defenders_points: int,
    dealer_team_level: int | str,
    defender_team_level: int | str,
    *,
    dealer_team_cleared: Iterable[int | str] = (),
    defender_team_cleared: Iterable[int | str] = (),
) -> LevelResult:
    """The level outcome of a hand from the defenders' points (R-LEVEL, R-MATCH).

    Points below 0 read as 0 (R-SCORE). Levels are rank tokens (``"T"``) or indexes 0-12.
    ``dealer_team_cleared`` and ``defender_team_cleared`` are the must-play ranks each team
    cleared earlier in the match (R-LEVEL-MUST; see ``clears_must_play``); a hand audited
    alone has none.

    >>> from chaodipi.engine.presets import CLASSIC
    >>> result = level_result(CLASSIC, 45, "6", "3")
    >>> result.outcome.value, result.levels, RANK_LETTERS[result.dealer_level_after]
    ('dealer_up', 2, '8')
    """
    dealer = _level("dealer", dealer_team_level)
    defender = _level("defenders", defender_team_level)
    if ruleset.level.match_points:
        raise ValueError(f"{ruleset.id}: the table gives match points, not levels (match_points)")
    band, n = _band(ruleset, defenders_points)
    if band.outcome is _DEALER_WINS_MATCH:
        return LevelResult(band.outcome, n, 0, dealer, defender, "dealer", "dealer")
    if band.outcome is _DEALER_UP:
        cleared = _ranks("dealer", dealer_team_cleared)
        after, moved, stop, won = _rise(ruleset, dealer, n, deals_now=True, cleared=cleared)
        return LevelResult(
            band.outcome,
            n,
            moved,
            after,
            defender,
            "dealer",
            "dealer" if won else None,
            stop,
        )
    if band.outcome is _SWAP:
        return LevelResult(band.outcome, n, 0, dealer, defender, "defenders")
    cleared = _ranks("defenders", defender_team_cleared)
    after, moved, stop, won = _rise(ruleset, defender, n, deals_now=False, cleared=cleared)
    return LevelResult(
        band.outcome,
        n,
        moved,
        dealer,
        after,
        "defenders",
        "defenders" if won else None,
        stop,
    )


def _ranks(team: str, ranks: Iterable[int | str]) -> frozenset[int]:
    if not ranks:  # most teams have cleared none (a hand audited alone, early in a match)
        return _NO_RANKS
    return frozenset(_level(f"{team} cleared", rank) for rank in ranks)


def clears_must_play(ruleset: Ruleset, dealt_level: int | str, result: LevelResult) -> bool:
    """Whether this hand clears the must-play rank its dealer's team dealt at (R-LEVEL-MUST).

    A team dealt at a must-play rank clears it by winning the hand (keeping the deal, D+0
    included) or, with ``LevelRule.must_play_cleared = deal``, by dealing there at all. A
    match's audit carries the cleared ranks of each team to the next hands' ``level_result``.

    >>> from chaodipi.engine.presets import ANHUI
    >>> kept = level_result(ANHUI, 75, "J", "5")  # D+0: the dealers stay on J but have won it
    >>> lost = level_result(ANHUI, 80, "J", "5")
    >>> clears_must_play(ANHUI, "J", kept), clears_must_play(ANHUI, "J", lost)
    (True, False)
    >>> level_result(ANHUI, 100, "5", "J", defender_team_cleared=["J"]).describe()
    'defenders_up, table 2, moved 2; dealer team at 5, defenders at K, next deal: defenders'
    """
    rule = ruleset.level
    if RANK_LETTERS[_level("dealt", dealt_level)] not in rule.must_play:
        return False
    return rule.must_play_cleared is MustPlayCleared.DEAL or result.next_deal == "dealer"


def _band(ruleset: Ruleset, defenders_points: int) -> tuple[LevelBand, int]:
    """The level band of the defenders' points (below 0 read as 0) and its n."""
    points = max(defenders_points, 0)
    for band in ruleset.level.bands:
        if band.covers(points):
            return band, band.levels_for(points)
    raise ValueError(f"{ruleset.id}: no level band covers {points} points")


def match_points(ruleset: Ruleset, defenders_points: int) -> tuple[Team, int]:
    """The side that scores and its points for the deal, where the table gives match points.

    ``LevelRule.match_points`` (Botzone's EndGame): a ``dealer_up`` band gives the dealer's
    side n points, a ``defenders_up`` band the defenders; the other side scores 0.

    >>> from chaodipi.engine.presets import BOTZONE
    >>> match_points(BOTZONE, 35), match_points(BOTZONE, 120)
    (('dealer', 2), ('defenders', 2))
    """
    if not ruleset.level.match_points:
        raise ValueError(f"{ruleset.id}: the table gives levels, not match points")
    band, n = _band(ruleset, defenders_points)
    if band.outcome is _DEALER_UP:
        return "dealer", n
    if band.outcome is _DEFENDERS_UP:
        return "defenders", n
    raise ValueError(f"{ruleset.id}: a match-points band is dealer_up or defenders_up")


def seat_by_declaration(holding_team: int, declarer: int) -> int:
    """自放自打, 上放下打: the holding team's declarer deals; else the member after the declarer."""
    return declarer if declarer % 2 == holding_team else (declarer + 1) % 4


def next_dealer(
    ruleset: Ruleset, dealer: int, result: LevelResult, *, declarer_next_hand: int | None = None
) -> int | None:
    """The seat that deals the next hand (R-MATCH-DEALER).

    ``PARTNER_OR_NEXT``: a kept deal (D+n, D+0 too) passes to the dealer's partner, a
    lost one to the dealer's 下家; ``SAME_OR_NEXT``: a kept deal stays with the dealer.
    ``BY_DECLARATION`` (anhui): the seat follows from
    who declared in the next hand (``declarer_next_hand``; for a kitty flip, the seat
    whose flip decided). None when that is not known, or when the match is over (the
    next match's first hand picks its dealer by bidding).

    >>> from chaodipi.engine.presets import CLASSIC
    >>> kept, lost = level_result(CLASSIC, 45, "6", "3"), level_result(CLASSIC, 85, "6", "3")
    >>> next_dealer(CLASSIC, 1, kept), next_dealer(CLASSIC, 1, lost)
    (3, 2)
    """
    if not 0 <= dealer < 4:
        raise ValueError(f"bad dealer seat {dealer}: expected 0-3")
    if result.match_winner is not None:
        return None
    keeps = result.next_deal == "dealer"
    if ruleset.level.next_dealer is _PARTNER_OR_NEXT:
        return (dealer + 2) % 4 if keeps else (dealer + 1) % 4
    if ruleset.level.next_dealer is _SAME_OR_NEXT:
        return dealer if keeps else (dealer + 1) % 4
    if declarer_next_hand is None:
        return None
    holding_team = dealer % 2 if keeps else (dealer + 1) % 2
    return seat_by_declaration(holding_team, declarer_next_hand)
