"""A hand's table: its ruleset at the level played with a trump, and the checks of its play.

A ``Table`` is built from tokens (``level="6"``, ``trump="NT"``) and answers the questions
of one hand's play: what a lead's units are (R-UNIT-SPLIT), whether it may be led
(R-LEAD), whether a throw stands (R-THROW), whether a follow is legal and, if not, why and
what was legal instead (R-FOLLOW), and who wins the trick (R-WIN). Cards come as tokens
(``"C6 C6"``), as ``Cards``, or as lists of card kinds; hands are ``Hand``.

>>> from chaodipi.engine.presets import CLASSIC
>>> table = Table(CLASSIC, level="6", trump="H")
>>> lead = table.lead("C9 C9")
>>> verdict = table.follow(Hand("C3 C5 H2 H2"), lead, "C3 H2")
>>> verdict.legal, verdict.rule, str(verdict.alternative)
(False, 'R-FOLLOW-SUIT', 'C3 C5')
>>> table.winner(lead, ["C3 C5", "H2 H2", "CA CA"])
2
"""

from __future__ import annotations

from collections.abc import Sequence

from chaodipi.engine.cards import (
    RANK_LETTERS,
    Cards,
    Hand,
    label_cards,
    parse_cards,
    parse_level,
    parse_trump,
    trump_token,
)
from chaodipi.engine.follow import check_follow, legal_follow
from chaodipi.engine.lead import (
    Lead,
    ThrowVerdict,
    check_lead,
    check_throw,
    lead_of_one_kind,
    lead_units,
)
from chaodipi.engine.order import TrumpContext, trump_context
from chaodipi.engine.ruleset import Ruleset
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.verdict import LEGAL, Verdict

CardsIn = Sequence[int] | str
"""Cards as a caller gives them: tokens (``"C6 C6"``), ``Cards``, or card kinds."""


def _kinds(cards: CardsIn) -> Sequence[int]:
    return parse_cards(cards) if isinstance(cards, str) else cards


class Table:
    """One hand's rules in play: ``ruleset`` at ``level`` (a rank) with ``trump`` (R-ORDER).

    ``level`` is a rank token (``"6"``, ``"T"``) or index 0-12; ``trump`` a suit token
    (``"S"``, ``"H"``, ``"C"``, ``"D"``), ``"NT"`` or None for no-trump, or a suit index.
    ``context`` holds the order tables every check reads (cached per order rule).

    >>> from chaodipi.engine.presets import CLASSIC
    >>> Table(CLASSIC, level="T", trump="NT")
    Table('classic', level='T', trump='NT')
    """

    ruleset: Ruleset
    context: TrumpContext

    def __init__(self, ruleset: Ruleset, level: int | str, trump: int | str | None) -> None:
        suit = parse_trump(trump) if isinstance(trump, str) else trump
        self.ruleset = ruleset
        self.context = trump_context(ruleset, parse_level(level), suit)

    @property
    def level(self) -> int:
        """The level played, as a rank index (``RANK_LETTERS[level]`` is its token)."""
        return self.context.level

    @property
    def trump(self) -> int | None:
        """The trump suit (0-3), or None for no-trump."""
        return self.context.trump

    def __repr__(self) -> str:
        level, trump = RANK_LETTERS[self.level], trump_token(self.trump)
        return f"Table({self.ruleset.id!r}, level={level!r}, trump={trump!r})"

    def lead(self, cards: CardsIn, split: Sequence[CardsIn] | None = None) -> Lead:
        """The lead's units: the leader's declared ``split`` when it fits, else canonical.

        It does not check the lead: ``check_lead`` says whether it may be led. Cards no
        deck holds (``CARDS_IMPOSSIBLE`` there) raise ``SplitError`` here.

        >>> from chaodipi.engine.presets import CLASSIC
        >>> Table(CLASSIC, "2", "S").lead("D5 D5 D6 D6 DK")
        Lead(throw of a tractor of 2 pairs and a single: D5 D5 D6 D6 DK)
        """
        kinds = _kinds(cards)
        decks = self.context.decks
        if split is None and kinds and len(kinds) <= decks and kinds.count(kinds[0]) == len(kinds):
            return lead_of_one_kind(kinds[0], len(kinds))
        parts = None if split is None else [_kinds(part) for part in split]
        return Lead(lead_units(self.context, kinds, parts))

    def check_lead(self, cards: CardsIn, split: Sequence[CardsIn] | None = None) -> Verdict:
        """Whether ``cards`` may be led (all one effective suit, R-LEAD) with ``split``.

        A declared split must cut the lead into units, no more of them than the canonical
        split has (R-UNIT-SPLIT); a ruleset without throws (``throw.allowed`` false) takes
        one unit only.

        >>> from chaodipi.engine.presets import CLASSIC
        >>> Table(CLASSIC, "2", "S").check_lead("D5 S5").reason
        'a lead must be of one suit but mixes ♦ (♦5), trumps (♠5)'
        """
        parts = None if split is None else [_kinds(part) for part in split]
        kinds = _kinds(cards)
        verdict = check_lead(self.context, kinds, parts)
        if verdict is not None or self.ruleset.throw.allowed:
            return verdict or LEGAL
        units = lead_units(self.context, kinds, parts)
        if len(units) < 2:
            return LEGAL
        return Verdict(
            "THROW_NOT_ALLOWED",
            f"{label_cards(kinds)} is a {Lead(units).describe()}; {self.ruleset.id} has no throws "
            "(lead one single, pair or tractor)",
        )

    def throw(
        self,
        leader: int,
        cards: CardsIn,
        hands: Sequence[Hand],
        split: Sequence[CardsIn] | None = None,
    ) -> ThrowVerdict:
        """Whether a lead stands as a throw, what is forced and the penalty (R-THROW).

        ``hands`` are the four seats' hands before the lead; the three other seats are
        searched for a higher unit of the same shape in the led suit.

        >>> from chaodipi.engine.presets import CLASSIC
        >>> table = Table(CLASSIC, "2", "H")
        >>> hands = [Hand("CK CJ CJ"), Hand("C10 C10"), Hand("CQ CQ"), Hand("C3")]
        >>> verdict = table.throw(0, "CK CJ CJ", hands)
        >>> verdict.stands, str(verdict.lead), verdict.penalty
        (False, 'CJ CJ', 30)
        """
        parts = None if split is None else [_kinds(part) for part in split]
        return check_throw(self.context, self.ruleset.throw, leader, _kinds(cards), hands, parts)

    def follow(self, hand: Hand, lead: Lead, play: CardsIn) -> Verdict:
        """Whether ``play`` from ``hand`` may follow ``lead`` (R-FOLLOW-SUIT, R-FOLLOW-SHAPE).

        An illegal play's verdict says why and carries a legal play from the same hand.

        >>> from chaodipi.engine.presets import CLASSIC
        >>> table = Table(CLASSIC, "2", "H")
        >>> verdict = table.follow(Hand("S3 S9 D4"), table.lead("SA"), "D4")
        >>> verdict.reason, str(verdict.alternative)
        ('held 2 ♠ but played 0 ♠ and 1 ♦ to a led single of ♠', 'S3')
        """
        kinds = parse_cards(play) if isinstance(play, str) else play
        return check_follow(self.context, lead.units, hand, kinds) or LEGAL

    def legal_follow(self, hand: Hand, lead: Lead) -> Cards:
        """One legal follow from ``hand``: the units the lead asks for, then the cheapest cards.

        >>> from chaodipi.engine.presets import CLASSIC
        >>> table = Table(CLASSIC, "2", "H")
        >>> table.legal_follow(Hand("S3 S3 S9 SK SK"), table.lead("SA SA"))
        Cards('S3 S3')
        """
        return Cards(legal_follow(self.context, lead.units, hand))

    def winner(self, lead: Lead, follows: Sequence[CardsIn]) -> int:
        """Who wins the trick (R-WIN): 0 for the lead, ``i`` for ``follows[i - 1]``.

        A follow wins only with the lead's shape, all in the led suit or all trump, and
        strictly higher: among equal cards the first played wins.

        >>> from chaodipi.engine.presets import CLASSIC
        >>> table = Table(CLASSIC, "2", "H")
        >>> table.winner(table.lead("SK SK"), ["SA S3", "H3 H3", "SA SA"])
        2
        """
        plays: list[Sequence[int]] = []
        for f in follows:  # a loop: cheaper than a comprehension over a trick's three follows
            plays.append(parse_cards(f) if isinstance(f, str) else f)
        return trick_winner(self.context, lead.units, plays)

    def order(self, cards: CardsIn) -> Cards:
        """The cards sorted for display: by effective suit (trumps last), then low to high.

        >>> from chaodipi.engine.presets import CLASSIC
        >>> Table(CLASSIC, "2", "H").order("H2 BJ S2 SA H9 D3")
        Cards('SA D3 H9 S2 H2 BJ')
        """
        ctx = self.context
        return Cards(sorted(_kinds(cards), key=lambda k: (ctx.suit[k], ctx.step[k], k)))
