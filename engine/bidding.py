"""Bidding as an immutable state machine: 报主, 上保险, 反主, 炒底/抄底, kitty flips (R-BID).

``check_bid`` says why a bid is illegal (or None); ``apply_bid`` returns the next
state and never changes the old one. Every rules difference is read from
``BiddingRule``: the ladder, which ladder entries each kind of bid may show, the
lock, who may overcall and how often, what joker bids make trump, who deals the
first hand, the 炒底 window and the fallbacks when nobody declares.

A hand's bidding runs through three phases: ``DRAWING`` (declare, lock,
overcall), ``DRAWN`` (drawing over, kitty not taken: lock, overcall, kitty flips)
and ``BURIED`` (the dealer has buried the kitty: 炒底 only).

>>> from chaodipi.engine.presets import CLASSIC
>>> from chaodipi.engine.cards import parse_cards
>>> state = start_bidding("6", first_hand=True)
>>> held = parse_cards("H6 H6 S9")
>>> state = apply_bid(CLASSIC, state, Bid.parse(2, "declare", "H6"), held=held)
>>> check_bid(CLASSIC, state, Bid.parse(2, "lock", "H6"), held=held) is None
True
>>> (state.dealer, state.trump_label)
(2, '♥')
>>> check_bid(CLASSIC, state, Bid.parse(1, "overcall", "BJ BJ"), held=parse_cards("BJ BJ"))
'a BJ bid names the trump: S, H, C, D or NT (对大王可随意定主)'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from chaodipi.engine.cards import (
    BIG_JOKER,
    DIAMONDS,
    HEARTS,
    LITTLE_JOKER,
    RANK_LETTERS,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    card_label,
    label_cards,
    parse_cards,
    parse_level,
    parse_trump,
    rank_of,
    suit_of,
    trump_token,
)
from chaodipi.engine.level import seat_by_declaration
from chaodipi.engine.ruleset import (
    BiddingRule,
    FirstHandDealer,
    HeldCheck,
    JokerTrump,
    Ruleset,
    TrumpFallback,
)


class BidKind(StrEnum):
    """What a bid does."""

    DECLARE = "declare"  # 报主/亮主/叫主: the first bid of the hand, while cards are drawn
    LOCK = "lock"  # 上保险: the declarer shows the declared level card again
    OVERCALL = "overcall"  # 反主: a strictly higher bid before the dealer takes the kitty
    CHAO_DI = "chao_di"  # 炒底/抄底: a bid after the bury; takes the kitty up and buries again
    KITTY_FLIP = "kitty_flip"  # nobody declared: a player turns the next kitty card (翻底)


class Phase(StrEnum):
    """Where the hand's bidding stands."""

    DRAWING = "drawing"
    DRAWN = "drawn"
    BURIED = "buried"


# The kinds, phases and held check as module constants: in Python 3.11 ``BidKind.DECLARE``
# is read through the enum type's ``__getattr__`` hook (about 1 k instructions), and a bid's
# check and application read some twenty of them.
_DECLARE: Final = BidKind.DECLARE
_LOCK: Final = BidKind.LOCK
_OVERCALL: Final = BidKind.OVERCALL
_CHAO_DI: Final = BidKind.CHAO_DI
_KITTY_FLIP: Final = BidKind.KITTY_FLIP
_DRAWING: Final = Phase.DRAWING
_DRAWN: Final = Phase.DRAWN
_BURIED: Final = Phase.BURIED
_EACH_CARD: Final = HeldCheck.EACH_CARD


@dataclass(frozen=True, slots=True)
class Bid:
    """One bid: ``cards`` are the cards shown (copies of one card; a lock shows one card).

    ``names_trump`` is set when the bidder names a trump, as a joker bid must where the
    rules let the bidder choose; ``trump_choice`` is then the suit named (0-3), or None
    for no-trump. ``drawn_count``, when the record has the draw order, is how many cards
    the bidder had drawn when bidding; the cards passed to ``check_bid`` are then in
    draw order.
    """

    seat: int
    kind: BidKind
    cards: tuple[int, ...]
    drawn_count: int | None
    names_trump: bool
    trump_choice: int | None

    def __init__(
        self,
        seat: int,
        kind: BidKind,
        cards: tuple[int, ...],
        drawn_count: int | None = None,
        names_trump: bool = False,
        trump_choice: int | None = None,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "drawn_count", drawn_count)
        object.__setattr__(self, "names_trump", names_trump)
        object.__setattr__(self, "trump_choice", trump_choice)

    @classmethod
    def parse(
        cls,
        seat: int,
        kind: BidKind | str,
        cards: str,
        trump: str | None = None,
        drawn_count: int | None = None,
    ) -> Bid:
        """A bid from tokens: ``Bid.parse(1, "overcall", "BJ BJ", trump="NT")``."""
        return cls(
            seat,
            BidKind(kind),
            tuple(parse_cards(cards)),
            drawn_count,
            names_trump=trump is not None,
            trump_choice=None if trump is None else parse_trump(trump),
        )


@dataclass(frozen=True, slots=True)
class StandingBid:
    """The bid in force: its seat, ladder entry and place (``rank``) on the ladder."""

    seat: int
    kind: BidKind
    card: int
    entry: str
    rank: int
    locked: bool

    def __init__(
        self,
        seat: int,
        kind: BidKind,
        card: int,
        entry: str,
        rank: int,
        locked: bool = False,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "entry", entry)
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "locked", locked)


@dataclass(frozen=True, slots=True)
class BiddingState:
    """The bidding of one hand so far.

    ``trump`` is a suit (0-3) or None for no-trump, read only when ``trump_known``.
    ``dealer`` is None until the bidding fixes it. ``holding_team`` is the team that
    holds the deal in a later hand. ``shown`` lists ``(seat, card)`` for every card
    shown in a bid (亮过主的牌不能再次亮主). ``stake`` counts the overcalls that
    raise the stake (changshu 反主加分). ``draw_unchecked`` counts bids made while
    drawing whose draw order the record did not give, so the audit can say that
    check was skipped.

    ``level`` is the level played (a rank index). In a first hand whose teams stand at
    different levels (``team_levels``, team 0's first) it is the level of the dealer's
    team, None until a bid names a dealer; each bid shows its own team's level card until
    the kitty is buried (``level_for``).
    """

    level: int | None
    first_hand: bool
    holding_team: int | None
    dealer: int | None
    dealer_by_bidding: bool
    phase: Phase
    standing: StandingBid | None
    first_declarer: int | None
    trump: int | None
    trump_known: bool
    shown: tuple[tuple[int, int], ...]
    stake: int
    kitty_holder: int | None
    flips: tuple[tuple[int, int], ...]
    draw_unchecked: int
    bids: tuple[Bid, ...]
    team_levels: tuple[int, int] | None

    def __init__(
        self,
        level: int | None,
        first_hand: bool,
        holding_team: int | None,
        dealer: int | None,
        dealer_by_bidding: bool,
        phase: Phase = Phase.DRAWING,
        standing: StandingBid | None = None,
        first_declarer: int | None = None,
        trump: int | None = None,
        trump_known: bool = False,
        shown: tuple[tuple[int, int], ...] = (),
        stake: int = 0,
        kitty_holder: int | None = None,
        flips: tuple[tuple[int, int], ...] = (),
        draw_unchecked: int = 0,
        bids: tuple[Bid, ...] = (),
        team_levels: tuple[int, int] | None = None,
    ) -> None:
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "first_hand", first_hand)
        object.__setattr__(self, "holding_team", holding_team)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "dealer_by_bidding", dealer_by_bidding)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "standing", standing)
        object.__setattr__(self, "first_declarer", first_declarer)
        object.__setattr__(self, "trump", trump)
        object.__setattr__(self, "trump_known", trump_known)
        object.__setattr__(self, "shown", shown)
        object.__setattr__(self, "stake", stake)
        object.__setattr__(self, "kitty_holder", kitty_holder)
        object.__setattr__(self, "flips", flips)
        object.__setattr__(self, "draw_unchecked", draw_unchecked)
        object.__setattr__(self, "bids", bids)
        object.__setattr__(self, "team_levels", team_levels)

    def level_for(self, seat: int) -> int:
        """The level whose cards a bid by ``seat`` shows.

        >>> state = start_bidding(team_levels=("2", "5"), first_hand=True)
        >>> RANK_LETTERS[state.level_for(0)], RANK_LETTERS[state.level_for(1)], state.level
        ('2', '5', None)
        """
        if self.team_levels is not None and self.phase is not _BURIED:
            return self.team_levels[seat % 2]
        assert self.level is not None  # only a first hand of unequal levels starts without one
        return self.level

    def _level_of_dealer(self, dealer: int | None) -> int | None:
        if self.team_levels is None or dealer is None:
            return self.level
        return self.team_levels[dealer % 2]

    @property
    def trump_label(self) -> str:
        """``♥``, ``no-trump``, or ``undecided``."""
        if not self.trump_known:
            return "undecided"
        return "no-trump" if self.trump is None else SUIT_SYMBOLS[self.trump]


@dataclass(frozen=True, slots=True)
class FallbackResult:
    """Trump when nobody declares, and how it was found (``reason``, for the referee).

    ``index`` is the deciding kitty card's place (0-based) or None when no card
    decides; ``decider`` the seat the fallback makes dealer in a first hand: whose
    flip decided (FLIP_KITTY with flips given), the first drawer (NO_TRUMP) or the
    recorded dealer (RECORDED); None when the fallback names nobody.
    """

    trump: int | None
    index: int | None
    decider: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class RecordedDraw:
    """What a record says a program drew at random when nobody declared (RECORDED).

    ``trump`` is a suit (0-3) or None for no-trump; ``dealer`` a seat, or None when
    the record does not say.
    """

    trump: int | None
    dealer: int | None


@dataclass(frozen=True, slots=True)
class Unsupported:
    """The rules are silent: the audit reports UNSUPPORTED instead of guessing."""

    reason: str


class BidError(ValueError):
    """An illegal bid passed to ``apply_bid``; the message is the reason."""


def start_bidding(
    level: int | str | None = None,
    *,
    first_hand: bool,
    dealer: int | None = None,
    holding_team: int | None = None,
    team_levels: tuple[int | str, int | str] | None = None,
) -> BiddingState:
    """The bidding state before the first card is drawn.

    ``level`` is the level played, a rank token (``"6"``) or index. First hand: no dealer
    yet; ``team_levels`` (team 0's, team 1's) may stand instead of ``level``: when they
    differ, each bid shows its bidder's own team's level card, and the dealer's team's
    level is played. A later hand passes either ``dealer`` (kept fixed) or, where the
    bidding names the seat within the team (anhui BY_DECLARATION), ``holding_team``.

    >>> state = start_bidding("6", first_hand=False, dealer=1)
    >>> state.dealer, state.phase.value
    (1, 'drawing')
    """
    levels: tuple[int, int] | None = None
    if team_levels is not None:
        if not first_hand:
            raise ValueError("team_levels is for a first hand: a later hand plays its dealer's")
        if level is not None:
            raise ValueError("pass the level played or the team levels, not both")
        levels = (_level_index(team_levels[0]), _level_index(team_levels[1]))
        if levels[0] == levels[1]:
            level, levels = levels[0], None
    elif level is None:
        raise ValueError("pass the level played (in a first hand, or the team levels)")
    index = None if level is None else _level_index(level)
    if first_hand:
        if dealer is not None or holding_team is not None:
            raise ValueError("the first hand's dealer comes from the bidding: pass neither")
        return BiddingState(index, True, None, None, dealer_by_bidding=True, team_levels=levels)
    if (dealer is None) == (holding_team is None):
        raise ValueError("a later hand needs exactly one of dealer or holding_team")
    if dealer is not None:
        if not 0 <= dealer < 4:
            raise ValueError(f"bad dealer seat {dealer}: expected 0-3")
        return BiddingState(index, False, dealer % 2, dealer, dealer_by_bidding=False)
    if holding_team not in (0, 1):
        raise ValueError(f"bad holding team {holding_team}: expected 0 or 1")
    return BiddingState(index, False, holding_team, None, dealer_by_bidding=True)


def _level_index(level: int | str) -> int:
    if isinstance(level, int) and not 0 <= level < len(RANK_LETTERS):
        raise ValueError(f"bad level {level}: expected a rank index 0-12")
    return parse_level(level)


JOKER_WITH = "J+"
"""Ladder prefix of a joker shown with level cards (``J+1:*``: a joker and one level card)."""


def _entry_name(entry: str) -> str:
    count, _, suit = entry.partition(":")
    joker, _, count = count.rpartition("+")
    what = {"1": "one", "2": "a pair of", "3": "three"}.get(count, f"{count} of")
    if joker:
        what = f"a joker with {what}"
    if suit == "*":
        return f"{what} level card{'s' if count != '1' else ''} of any suit"
    if suit in ("LJ", "BJ"):
        return f"{what} {suit}"
    plural = "s" if count != "1" else ""
    return f"{what} {SUIT_SYMBOLS[SUIT_LETTERS.index(suit)]} level card{plural}"


def _ladder_place_exact(
    rule: BiddingRule, card: int, count: int, prefix: str = ""
) -> tuple[str, int] | None:
    """The ladder entry naming ``count`` copies of ``card`` by its own suit, or None."""
    suit = suit_of(card)
    name = ("LJ" if card == LITTLE_JOKER else "BJ") if suit is None else SUIT_LETTERS[suit]
    entry = f"{prefix}{count}:{name}"
    return (entry, rule.ladder.index(entry)) if entry in rule.ladder else None


def _ladder_place(
    rule: BiddingRule, card: int, count: int, prefix: str = ""
) -> tuple[str, int] | None:
    """The ladder entry and place of ``count`` copies of ``card`` (a suit, else ``*``).

    ``prefix`` is ``JOKER_WITH`` when a joker is shown with them.
    """
    place = _ladder_place_exact(rule, card, count, prefix)
    if place is not None or suit_of(card) is None:
        return place
    entry = f"{prefix}{count}:*"
    return (entry, rule.ladder.index(entry)) if entry in rule.ladder else None


def _locked_place(rule: BiddingRule, standing: StandingBid) -> tuple[str, int] | None:
    """A locked declaration stands as one more copy of its card, e.g. ``1:*`` → ``2:H``.

    A ladder that does not rank pairs by suit places it on ``2:*``.
    """
    head = standing.entry.partition(":")[0]
    prefix = JOKER_WITH if head.startswith(JOKER_WITH) else ""
    count = int(head.removeprefix(JOKER_WITH)) + 1
    return _ladder_place(rule, standing.card, count, prefix)


def _bid_shape(rule: BiddingRule, cards: Sequence[int]) -> tuple[int | None, int, int] | str:
    """``(joker, card, count)`` of a bid's cards: ``count`` copies of ``card``, with one
    ``joker`` shown beside them where the ladder has ``J+`` entries; or why they are none."""
    card = cards[0]
    if cards.count(card) == len(cards):
        return None, card, len(cards)
    if any(entry.startswith(JOKER_WITH) for entry in rule.ladder):
        jokers = [k for k in cards if suit_of(k) is None]
        others = [k for k in cards if suit_of(k) is not None]
        if len(jokers) == 1 and all(k == others[0] for k in others):
            return jokers[0], others[0], len(others)
        return (
            "a bid shows copies of one card, or one joker with copies of one level card, "
            f"not {label_cards(cards)}"
        )
    return f"a bid shows copies of one card, not {label_cards(cards)}"


def _colour_reason(joker: int, card: int) -> str | None:
    """Why a joker may not show with ``card`` (BJ is red: ♥ ♦; LJ is black: ♠ ♣), or None."""
    red = suit_of(card) in (HEARTS, DIAMONDS)
    if (joker == BIG_JOKER) == red:
        return None
    suits = "♥ or ♦" if joker == BIG_JOKER else "♠ or ♣"
    return (
        f"{card_label(joker)} shows only with {suits} level cards "
        f"(the joker's colour must match), not {card_label(card)}"
    )


def _allowed(rule: BiddingRule, kind: BidKind) -> tuple[str, ...]:
    if kind is _DECLARE:
        return rule.declare_bids
    if kind is _OVERCALL:
        return rule.overcall_bids
    return rule.chao_di_bids


def _phase_reason(ruleset: Ruleset, state: BiddingState, bid: Bid) -> str | None:
    rule = ruleset.bidding
    kind = bid.kind
    if kind is _DECLARE and state.phase is not _DRAWING:
        return "a declaration is made only while the cards are drawn"
    if kind in (_LOCK, _OVERCALL) and state.phase is _BURIED:
        return f"{kind.value}s end when the dealer takes the kitty; after the bury only 炒底"
    if kind is _CHAO_DI:
        if not rule.chao_di_bids:
            return f"{ruleset.id} has no 炒底"
        if state.first_hand and not rule.chao_di_first_hand:
            return f"{ruleset.id} has no 炒底 in the first hand (除游戏第一局外)"
        if state.phase is not _BURIED:
            return "炒底 comes only after the dealer has buried the kitty"
    if kind is _KITTY_FLIP:
        fallback = rule.fallback_first_hand if state.first_hand else rule.fallback_later_hands
        if fallback is not TrumpFallback.FLIP_KITTY:
            return f"{ruleset.id} does not flip the kitty when nobody declares"
        if state.phase is not _DRAWN:
            return "the kitty is flipped only after the drawing, before the dealer takes it"
    return None


def _flip_reason(ruleset: Ruleset, state: BiddingState, bid: Bid) -> str | None:
    if state.standing is not None:
        return f"seat {state.standing.seat} has declared: the kitty is not flipped"
    if len(bid.cards) != 1:
        return "a flip turns exactly one kitty card"
    if len(state.flips) >= ruleset.kitty_size:
        return "every kitty card has been flipped"
    if state.flips:
        last_seat, last_card = state.flips[-1]
        if state.level is not None and rank_of(last_card) == state.level:
            return f"the flip of {card_label(last_card)} (a level card) already set trump"
        if bid.seat != (last_seat + 1) % 4:
            return f"seat {(last_seat + 1) % 4} flips next (in seat order), not seat {bid.seat}"
    return None


def _held_reason(
    rule: BiddingRule,
    state: BiddingState,
    bid: Bid,
    card: int,
    count: int,
    held: Sequence[int],
) -> str | None:
    """Why the bidder cannot show ``count`` copies of ``card`` (``BiddingRule.held_check``)."""
    if bid.drawn_count is not None and not 0 <= bid.drawn_count <= len(held):
        return f"drawn_count {bid.drawn_count} does not fit a hand of {len(held)} cards"
    pool = held if bid.drawn_count is None else held[: bid.drawn_count]
    have = pool.count(card)
    if rule.held_check is _EACH_CARD:
        # Each shown card is looked up in the hand on its own: one copy shows a pair too.
        used, count = 0, 1
    else:
        used = state.shown.count((bid.seat, card))
    if have - used >= count:
        return None
    where = (
        "in the hand"
        if bid.drawn_count is None
        else (f"among the {bid.drawn_count} cards drawn by then")
    )
    shows = label_cards(bid.cards)
    text = f"seat {bid.seat} shows {shows} but holds {have} {card_label(card)} {where}"
    if used:
        text += f", {used} of them shown in an earlier bid (亮过主的牌不能再次亮主)"
    return text


def _lock_reason(ruleset: Ruleset, state: BiddingState, bid: Bid, card: int) -> str | None:
    rule = ruleset.bidding
    standing = state.standing
    if not rule.lock:
        return f"{ruleset.id} has no lock (上保险)"
    if standing is None or standing.kind is not _DECLARE or standing.seat != bid.seat:
        return f"only the standing declaration's own declarer locks; seat {bid.seat} is not it"
    if standing.locked:
        return "the declaration is already locked"
    if card != standing.card or len(bid.cards) != 1:
        return f"a lock shows one more {card_label(standing.card)}, the declared card"
    if _locked_place(rule, standing) is None:
        return f"the ladder of {ruleset.id} has no place for a locked {_entry_name(standing.entry)}"
    return None


def _standing_reason(
    ruleset: Ruleset, state: BiddingState, bid: Bid, entry: str, rank: int
) -> str | None:
    rule = ruleset.bidding
    standing = state.standing
    kind = bid.kind
    if kind is _DECLARE:
        if standing is not None:
            return (
                f"seat {standing.seat} has already declared {state.trump_label}; "
                "only a higher overcall changes trump"
            )
        return None
    if kind is _OVERCALL and standing is None:
        return "nothing to overcall: the first bid is a declaration"
    cap = rule.max_overcalls
    if kind is _OVERCALL and cap is not None:
        made = sum(1 for b in state.bids if b.kind is _OVERCALL)
        if made >= cap:
            return f"{ruleset.id} allows {cap} overcall(s) in a hand; {made} made already"
    if standing is not None and not rule.declarer_may_overcall and standing.seat == bid.seat:
        return (
            f"seat {bid.seat} holds the standing bid and may not bid over it "
            "(报主玩家也可参与反主，但必须在有其他玩家先进行反主的前提下)"
        )
    higher_needed = kind is _OVERCALL or rule.chao_di_requires_higher
    if standing is not None and higher_needed and rank <= standing.rank:
        held = _entry_name(standing.entry) + (" (locked)" if standing.locked else "")
        return f"{_entry_name(entry)} is not higher than the standing {held} on the ladder"
    return None


def _trump_of(ruleset: Ruleset, card: int, bid: Bid) -> tuple[int | None, str | None]:
    """The trump a bid makes, and the reason the choice is illegal (or None)."""
    rule = ruleset.bidding
    suit = suit_of(card)
    named, choice = bid.names_trump, bid.trump_choice
    if suit is not None:
        if named and choice != suit:
            return None, (
                f"a {card_label(card)} bid makes {SUIT_SYMBOLS[suit]} trump, "
                f"not {trump_token(choice)}"
            )
        return suit, None
    mode = rule.big_joker_trump if card == BIG_JOKER else rule.little_joker_trump
    if mode is JokerTrump.NO_TRUMP:
        if named and choice is not None:
            return None, f"a {card_label(card)} bid makes no-trump only, not {trump_token(choice)}"
        return None, None
    if not named:
        return None, (
            f"a {card_label(card)} bid names the trump: S, H, C, D or NT (对大王可随意定主)"
        )
    return choice, None


def check_bid(
    ruleset: Ruleset, state: BiddingState, bid: Bid, *, held: Sequence[int]
) -> str | None:
    """Why ``bid`` is illegal in ``state``, or None when it is legal (R-BID).

    ``held`` are the bidder's cards, a list (in draw order when ``bid.drawn_count`` is
    set; ignored for a kitty flip, whose card comes from the kitty).

    >>> from chaodipi.engine.presets import CLASSIC
    >>> state = start_bidding("6", first_hand=True)
    >>> check_bid(CLASSIC, state, Bid.parse(0, "declare", "BJ"), held=parse_cards("BJ"))
    'BJ is not a declare in classic (常主不可进行报主): it shows one level card of any suit'
    """
    judged = _judge_bid(ruleset, state, bid, held)
    return judged if isinstance(judged, str) else None


_Shown = tuple[int, tuple[str, int] | None, int | None]
"""What a legal bid shows, as ``_judge_bid`` read it: its card, its ladder place (None for a
kitty flip or a lock) and the trump it makes."""


def _judge_bid(
    ruleset: Ruleset, state: BiddingState, bid: Bid, held: Sequence[int]
) -> str | _Shown:
    """Why ``bid`` is illegal (``check_bid``), or what it shows: read once for the check and
    for ``apply_bid``, which would otherwise read its card, place and trump again."""
    if not 0 <= bid.seat < 4:
        return f"bad seat {bid.seat}: expected 0-3"
    reason = _phase_reason(ruleset, state, bid)
    if reason is not None:
        return reason
    if not bid.cards:
        return "a bid shows at least one card"
    if bid.kind is _KITTY_FLIP:
        return _flip_reason(ruleset, state, bid) or (bid.cards[0], None, None)
    rule = ruleset.bidding
    shape = _bid_shape(rule, bid.cards)
    if isinstance(shape, str):
        return shape
    joker, card, count = shape
    level = state.level_for(bid.seat)
    if suit_of(card) is not None and rank_of(card) != level:
        whose = f"team {bid.seat % 2}'s level" if state.team_levels is not None else "level"
        return f"{card_label(card)} is not a level card ({whose} {RANK_LETTERS[level]})"
    reason = _held_reason(rule, state, bid, card, count, held)
    if reason is None and joker is not None:
        reason = _held_reason(rule, state, bid, joker, 1, held)
    if reason is None and joker is not None and rule.joker_colour_match:
        reason = _colour_reason(joker, card)
    if reason is not None:
        return reason
    if bid.kind is _LOCK:
        return _lock_reason(ruleset, state, bid, card) or (card, None, None)
    place = _ladder_place(rule, card, count, "" if joker is None else JOKER_WITH)
    allowed = _allowed(rule, bid.kind)
    if place is None or place[0] not in allowed:
        names = "; ".join(_entry_name(e) for e in allowed)
        joker_declares = bid.kind is _DECLARE and suit_of(card) is None
        note = " (常主不可进行报主)" if joker_declares else ""
        return (
            f"{label_cards(bid.cards)} is not a {bid.kind.value} in {ruleset.id}{note}: "
            f"it shows {names}"
        )
    reason = _standing_reason(ruleset, state, bid, *place)
    if reason is not None:
        return reason
    trump, reason = _trump_of(ruleset, card, bid)
    return reason if reason is not None else (card, place, trump)


def _dealer_after(ruleset: Ruleset, state: BiddingState, bid: Bid) -> int | None:
    """The dealer after a bid made before the kitty is taken."""
    if not state.dealer_by_bidding:
        return state.dealer
    if state.holding_team is not None:
        # Later hand, anhui style: 自放自打, 上放下打 from the latest bid before the kitty.
        return seat_by_declaration(state.holding_team, bid.seat)
    rule = ruleset.bidding
    if (
        bid.kind is _DECLARE
        or rule.first_hand_dealer is FirstHandDealer.BID_WINNER
        or rule.overcaller_becomes_dealer_first_hand
    ):
        return bid.seat
    return state.dealer


def apply_bid(
    ruleset: Ruleset, state: BiddingState, bid: Bid, *, held: Sequence[int]
) -> BiddingState:
    """The state after a legal bid; raises ``BidError`` with the reason otherwise.

    >>> from chaodipi.engine.presets import CLASSIC
    >>> state = start_bidding("6", first_hand=False, dealer=1)
    >>> state = apply_bid(CLASSIC, state, Bid.parse(3, "declare", "C6"), held=parse_cards("C6"))
    >>> state.trump_label, state.dealer
    ('♣', 1)
    """
    judged = _judge_bid(ruleset, state, bid, held)
    if isinstance(judged, str):
        raise BidError(judged)
    card, place, made = judged
    bids = (*state.bids, bid)
    level, dealer, trump, trump_known = state.level, state.dealer, state.trump, state.trump_known
    standing, first_declarer, stake = state.standing, state.first_declarer, state.stake
    shown, flips, kitty_holder = state.shown, state.flips, state.kitty_holder
    unchecked = state.draw_unchecked
    if bid.kind is _KITTY_FLIP:
        flips = (*flips, (bid.seat, bid.cards[0]))
    else:
        shown = (*shown, *((bid.seat, k) for k in bid.cards))
        unchecked += int(state.phase is _DRAWING and bid.drawn_count is None)
        if bid.kind is _LOCK and standing is not None:
            locked = _locked_place(ruleset.bidding, standing)
            entry, rank = locked or (standing.entry, standing.rank)
            standing = StandingBid(
                standing.seat, standing.kind, standing.card, entry, rank, locked=True
            )
        else:
            entry, rank = place or ("", -1)
            chao_di = bid.kind is _CHAO_DI
            # 炒底 takes up the kitty but leaves the dealer (此时庄家不变).
            if not chao_di:
                dealer = _dealer_after(ruleset, state, bid)
            level = state._level_of_dealer(dealer)
            standing = StandingBid(bid.seat, bid.kind, card, entry, rank)
            trump, trump_known = made, True
            stake += int(ruleset.bidding.overcall_adds_stake and bid.kind is not _DECLARE)
            if chao_di:
                kitty_holder = bid.seat
            if bid.kind is _DECLARE:
                first_declarer = bid.seat
    # Built by the constructor: ``dataclasses.replace`` costs twice as much (and stays
    # interpreted when compiled), and a bid is replayed several times a hand. Its fields
    # in order, not by keyword: pure Python makes a dict of 17 keywords for each call.
    return BiddingState(
        level,
        state.first_hand,
        state.holding_team,
        dealer,
        state.dealer_by_bidding,
        state.phase,
        standing,
        first_declarer,
        trump,
        trump_known,
        shown,
        stake,
        kitty_holder,
        flips,
        unchecked,
        bids,
        state.team_levels,
    )


def end_drawing(state: BiddingState) -> BiddingState:
    """Drawing is over: no more declarations; overcalls and flips until the kitty is taken.

    >>> end_drawing(start_bidding("6", first_hand=True)).phase.value
    'drawn'
    """
    if state.phase is not _DRAWING:
        raise ValueError(f"the drawing is already over (phase {state.phase.value})")
    return dataclasses.replace(state, phase=_DRAWN)


def bury(
    state: BiddingState,
    *,
    fallback: FallbackResult | None = None,
    dealer: int | None = None,
) -> BiddingState:
    """The dealer has taken the kitty and buried it: from now on only 炒底.

    When nobody declared, pass the ``fallback`` trump; a flip's decider then fixes
    the dealer (first hand: the decider; later hands: 自放自打, 上放下打). ``dealer``
    is for a record whose dealer the rules left open (e.g. nobody bid in changshu's
    first hand).

    >>> from chaodipi.engine.presets import CLASSIC
    >>> state = start_bidding("6", first_hand=False, dealer=1)
    >>> state = apply_bid(CLASSIC, state, Bid.parse(3, "declare", "C6"), held=parse_cards("C6"))
    >>> buried = bury(end_drawing(state))
    >>> buried.phase.value, buried.kitty_holder
    ('buried', 1)
    """
    if state.phase is _BURIED:
        raise ValueError("the kitty is already buried")
    if (state.standing is None) != (fallback is not None):
        raise ValueError("pass a fallback exactly when nobody declared")
    trump, trump_known, seat = state.trump, state.trump_known, state.dealer
    if fallback is not None:
        trump, trump_known = fallback.trump, True
        if state.dealer_by_bidding and fallback.decider is not None:
            seat = (
                fallback.decider
                if state.holding_team is None
                else seat_by_declaration(state.holding_team, fallback.decider)
            )
    if dealer is not None:
        if seat is not None and seat != dealer:
            raise ValueError(f"the bidding made seat {seat} the dealer, not seat {dealer}")
        seat = dealer
    if seat is None:
        raise ValueError("no dealer: the bidding left it open; pass the record's dealer")
    # Built by the constructor, its fields in order, as in ``apply_bid``: once a hand, where
    # ``dataclasses.replace`` costs about twice as much (and stays interpreted when compiled).
    return BiddingState(
        state._level_of_dealer(seat),
        state.first_hand,
        state.holding_team,
        seat,
        state.dealer_by_bidding,
        _BURIED,
        state.standing,
        state.first_declarer,
        trump,
        trump_known,
        state.shown,
        state.stake,
        seat,
        state.flips,
        state.draw_unchecked,
        state.bids,
        state.team_levels,
    )


def _highest_side(kitty: Sequence[int]) -> int | None:
    """Index of the highest-ranked suited card (the first of equals), jokers left out."""
    best: int | None = None
    best_rank = -1
    for i, card in enumerate(kitty):
        rank = rank_of(card)
        if rank is not None and rank > best_rank:
            best, best_rank = i, rank
    return best


def fallback_trump(
    ruleset: Ruleset,
    kitty: Sequence[int],
    level: int | None,
    first_hand: bool,
    flips: Sequence[tuple[int, int]] = (),
    *,
    first_drawer: int | None = None,
    recorded: RecordedDraw | None = None,
) -> FallbackResult | Unsupported:
    """Trump when nobody declares, per ``TrumpFallback`` (R-BID).

    ``kitty`` is the kitty as dealt, in order. ``level`` is the level played
    (``BiddingState.level``): None in a first hand whose teams stand at different levels,
    where a fallback that looks for a level card is ``Unsupported``. ``flips`` are the
    ``(seat, card)`` kitty flips of the record (``BiddingState.flips``); they must turn the
    kitty's cards in order and reach the deciding card, or ``ValueError`` says where not.
    ``first_drawer`` (the seat dealt the first card, when the record says) deals a
    first hand under NO_TRUMP; ``recorded`` is the record's trump and dealer, which
    RECORDED takes as drawn.

    >>> from chaodipi.engine.presets import CLASSIC
    >>> kitty = parse_cards("S2 S3 HA D4 D5 C7 C8 C9")
    >>> fallback_trump(CLASSIC, kitty, parse_level("6"), first_hand=False).reason
    'kitty card 3, ♥A, makes ♥ trump'
    """
    rule = ruleset.bidding
    how = rule.fallback_first_hand if first_hand else rule.fallback_later_hands
    hand_name = "the first hand" if first_hand else "a later hand"
    if how is TrumpFallback.UNSUPPORTED:
        return Unsupported(
            f"{ruleset.id}: nobody declared in {hand_name} and the rules are silent on trump"
        )
    if how is TrumpFallback.NO_TRUMP:
        decider = first_drawer if first_hand else None
        reason = "nobody declared: no-trump"
        if decider is not None:
            reason += f"; seat {decider}, the first drawer, deals"
        return FallbackResult(None, None, decider, reason)
    if how is TrumpFallback.RECORDED:
        if recorded is None:
            return Unsupported(
                f"{ruleset.id}: nobody declared, the program drew trump at random and the "
                "record does not say which"
            )
        made = "no-trump" if recorded.trump is None else f"{SUIT_SYMBOLS[recorded.trump]} trump"
        reason = f"nobody declared: the program drew {made} at random, taken as recorded"
        if first_hand and recorded.dealer is not None:
            reason += f", and seat {recorded.dealer} as dealer"
        decider = recorded.dealer if first_hand else None
        return FallbackResult(recorded.trump, None, decider, reason)
    if len(kitty) != ruleset.kitty_size:
        raise ValueError(f"a kitty of {len(kitty)} cards; {ruleset.id} has {ruleset.kitty_size}")
    if how is TrumpFallback.KITTY_CARD:
        index = rule.fallback_kitty_index - 1
        card = kitty[index]
        trump = suit_of(card)
        made = "no-trump (a joker)" if trump is None else f"{SUIT_SYMBOLS[trump]} trump"
        return FallbackResult(
            trump, index, None, f"kitty card {index + 1}, {card_label(card)}, makes {made}"
        )
    if level is None:
        return Unsupported(
            f"{ruleset.id}: nobody declared in a first hand whose teams stand at different "
            "levels, and the rules do not say whose level card the kitty is searched for"
        )
    level_at = next((i for i, k in enumerate(kitty) if rank_of(k) == level), None)
    decides = level_at if level_at is not None else _highest_side(kitty)
    if decides is None:
        reason = "no level card and no suited card in the kitty: no-trump"
        trump = None
    else:
        trump = suit_of(kitty[decides])
        what = "first level card" if level_at is not None else "highest-ranked card"
        shown = card_label(kitty[decides])
        reason = f"the kitty's {what}, {shown} (card {decides + 1}), sets trump"
    decider = None
    if how is TrumpFallback.FLIP_KITTY and flips:
        for i, (_, card) in enumerate(flips):
            if i >= len(kitty) or card != kitty[i]:
                raise ValueError(
                    f"flip {i + 1} shows {card_label(card)}, but kitty card {i + 1} is "
                    f"{card_label(kitty[i]) if i < len(kitty) else 'missing'}"
                )
        needed = len(kitty) if level_at is None else level_at + 1
        if len(flips) != needed:
            raise ValueError(f"the flips turn {len(flips)} kitty cards; the rule turns {needed}")
        if decides is not None:
            decider = flips[decides][0]
            reason += f"; seat {decider} flipped it"
    return FallbackResult(trump, decides, decider, reason)
