"""The replay viewer's model: a ``GameReplay`` of the service's read model (a stored game, its
stored audit and the current auditor's steps), with the moves a referee makes through it (one
play, one trick, the next finding, any trick) and what the table shows at a step.

Pure: built from the read model's answer; no Streamlit, no database and no auditor.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from functools import cached_property

from chaodipi.engine.cards import CardError, card_token, parse_card
from chaodipi.service.readmodel import GameReplay
from chaodipi.v1 import audit_pb2, records_pb2

PHASE_KEYS = {
    audit_pb2.PHASE_DEAL: "phase.deal",
    audit_pb2.PHASE_BIDDING: "phase.bidding",
    audit_pb2.PHASE_KITTY: "phase.kitty",
    audit_pb2.PHASE_PLAY: "phase.play",
    audit_pb2.PHASE_SCORING: "phase.scoring",
    audit_pb2.PHASE_MATCH: "phase.match",
}
"""The catalogue key (``chaodipi.dashboard.i18n``) naming each phase."""
SEVERITY_KEYS = {
    audit_pb2.SEVERITY_BREACH: "severity.breach",
    audit_pb2.SEVERITY_SCORING_ERROR: "severity.scoring",
    audit_pb2.SEVERITY_WARNING: "severity.warning",
}
BID_KEYS = {
    records_pb2.BID_KIND_DECLARE: "bid.declare",
    records_pb2.BID_KIND_LOCK: "bid.lock",
    records_pb2.BID_KIND_OVERCALL: "bid.overcall",
    records_pb2.BID_KIND_CHAO_DI: "bid.chao_di",
    records_pb2.BID_KIND_KITTY_FLIP: "bid.kitty_flip",
}
SUIT_SYMBOLS = {
    records_pb2.SUIT_SPADES: "♠",
    records_pb2.SUIT_HEARTS: "♥",
    records_pb2.SUIT_CLUBS: "♣",
    records_pb2.SUIT_DIAMONDS: "♦",
}
"""Suits as symbols (no-trump is a word: ``suit.none``)."""


def card_tokens(text: str) -> list[str]:
    """The card tokens of an evidence text such as ``"D9 HA"``; empty when it is not cards."""
    tokens = text.split()
    try:
        return [card_token(parse_card(t)) for t in tokens]
    except CardError:
        return []


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat at the table: who sat there, their side and their team's level."""

    seat: int
    name: str  # the display name, else the player id, else "" (the seat has no player)
    player_id: str
    side: str  # "dealer", "dealer side", "defender" or "" when the dealer is unknown
    level: str


@dataclass(frozen=True, slots=True)
class Marks:
    """Cards to highlight for one seat: in its hand and in its play to the trick."""

    beat: list[str] = field(default_factory=list)
    alt: list[str] = field(default_factory=list)
    offence: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[str]]:
        """The marks as ``cards_html`` takes them."""
        return {"beat": self.beat, "alt": self.alt, "offence": self.offence}


@dataclass(frozen=True, slots=True)
class ScorePoint:
    """The defenders' points after one trick (``trick`` 1-based; 0 is the final with kitty)."""

    trick: int
    computed: int
    recorded: int | None


class ReplayView:
    """A stored game ready to step through.

    ``stored`` is the report kept with the game; ``audit`` is the current auditor's report with
    steps, whose findings the steps point at (``differs`` says whether they disagree).
    Treat it as read-only: the dashboard shares one view of a game between sessions.
    """

    def __init__(self, replay: GameReplay) -> None:
        self.replay = replay
        self.game_id = replay.game.game_id
        self.record = replay.game.record
        self.stored = replay.game.report
        self.audit = replay.audit
        self.differs = replay.differs
        self.steps = list(self.audit.steps)
        self.findings = list(self.audit.findings)
        self.finding_steps = [s.index for s in self.steps if s.finding_indexes]
        self.trick_ends: dict[int, int] = {
            s.trick: s.index
            for s in self.steps
            if s.phase == audit_pb2.PHASE_PLAY and s.HasField("trick") and not s.HasField("play")
        }
        self._trick_end_steps = sorted(self.trick_ends.values())

    @property
    def last(self) -> int:
        """Index of the last step (-1 for a record that could not be replayed)."""
        return len(self.steps) - 1

    def clamp(self, index: int) -> int:
        """``index`` moved into the range of steps."""
        return max(0, min(index, self.last))

    def next_trick(self, index: int) -> int:
        """The end of the next trick after ``index`` (the last step when none is left)."""
        pos = bisect.bisect_right(self._trick_end_steps, index)
        return self._trick_end_steps[pos] if pos < len(self._trick_end_steps) else self.last

    def prev_trick(self, index: int) -> int:
        """The end of the trick before ``index`` (the first step when none is before)."""
        pos = bisect.bisect_left(self._trick_end_steps, index)
        return self._trick_end_steps[pos - 1] if pos > 0 else 0

    def next_finding(self, index: int) -> int | None:
        """The next step after ``index`` that raised a finding, or None."""
        pos = bisect.bisect_right(self.finding_steps, index)
        return self.finding_steps[pos] if pos < len(self.finding_steps) else None

    def prev_finding(self, index: int) -> int | None:
        """The step before ``index`` that raised a finding, or None."""
        pos = bisect.bisect_left(self.finding_steps, index)
        return self.finding_steps[pos - 1] if pos > 0 else None

    def trick_step(self, trick: int) -> int:
        """The step at the end of trick ``trick`` (0-based)."""
        return self.trick_ends[trick]

    # -- what the table shows at a step ------------------------------------------------------

    @cached_property
    def dealer(self) -> int | None:
        """The dealer seat as computed, or None."""
        computed = self.audit.computed
        return computed.dealer if computed.HasField("dealer") else None

    @cached_property
    def scored(self) -> bool:
        """True when the audit counted the score: the hand was played out (tricks, and every
        hand empty after the last), as the auditor requires before it counts kitty and score.
        A ruleset of match points scores a hand without a level result."""
        computed = self.audit.computed
        return bool(computed.tricks and self.steps) and not any(
            hand.cards for hand in self.steps[-1].hands
        )

    @cached_property
    def seats(self) -> list[Seat]:
        """The four seats with names, sides and levels."""
        ctx = self.record.context
        out = []
        for seat in range(4):
            player = self.record.players[seat] if seat < len(self.record.players) else None
            pid = player.id if player else ""
            name = (player.display_name or player.id) if player else ""
            side = ""
            if self.dealer is not None:
                side = (
                    "dealer"
                    if seat == self.dealer
                    else "dealer side"
                    if seat % 2 == self.dealer % 2
                    else "defender"
                )
            level = ctx.team0_level if seat % 2 == 0 else ctx.team1_level
            out.append(Seat(seat, name, pid, side, level))
        return out

    def trumps(self, index: int) -> frozenset[str]:
        """Tokens that are trump at a step (empty before trump is known)."""
        return self.replay.trump_cards[index]

    def step_finding_indexes(self, index: int) -> list[int]:
        """Indexes into ``findings`` of the findings raised at a step."""
        return [i for i in self.steps[index].finding_indexes if 0 <= i < len(self.findings)]

    def step_findings(self, index: int) -> list[audit_pb2.Finding]:
        """Findings raised at a step."""
        return [self.findings[i] for i in self.step_finding_indexes(index)]

    def trick_plays(self, index: int) -> tuple[int | None, list[tuple[int, list[str]]]]:
        """The trick shown at a step: its 0-based index and (seat, cards) in play order.

        At the end of a trick the whole trick is shown (the auditor's step has cleared it).
        """
        step = self.steps[index]
        trick = step.trick if step.HasField("trick") else None
        if step.current_trick:
            return trick, [(p.seat, list(p.cards)) for p in step.current_trick]
        if (
            trick is not None
            and step.phase == audit_pb2.PHASE_PLAY
            and trick < len(self.record.tricks)
        ):
            return trick, [(p.seat, list(p.cards)) for p in self.record.tricks[trick].plays]
        return trick, []

    def trick_winner(self, index: int) -> int | None:
        """The computed winner when a step ends a trick, else None."""
        step = self.steps[index]
        if step.HasField("play") or not step.HasField("trick"):
            return None
        tricks = self.audit.computed.tricks
        return tricks[step.trick].winner if step.trick < len(tricks) else None

    def to_play(self, index: int) -> int | None:
        """The seat whose turn is next in the trick being played, or None."""
        step = self.steps[index]
        if step.phase != audit_pb2.PHASE_PLAY or not step.current_trick:
            return None
        if len(step.current_trick) >= 4:
            return None
        return (step.current_trick[0].seat + len(step.current_trick)) % 4

    def marks(self, index: int) -> dict[int, Marks]:
        """Cards to highlight per seat for the findings at a step."""
        out: dict[int, Marks] = {}

        def seat_marks(seat: int) -> Marks:
            return out.setdefault(seat, Marks())

        for finding in self.step_findings(index):
            pos, evidence = finding.position, finding.evidence
            if pos.HasField("seat"):
                marks = seat_marks(pos.seat)
                marks.alt.extend(evidence.legal_alternative)
                if pos.phase == audit_pb2.PHASE_PLAY:
                    marks.offence.extend(card_tokens(evidence.recorded))
            for beat in evidence.beaten_by:
                seat_marks(beat.seat).beat.extend(beat.cards)
        return out

    # -- the score chart --------------------------------------------------------------------

    def score_points(self) -> list[ScorePoint]:
        """Defenders' points after each trick, computed and as the table claimed, then the final
        total with the kitty (``trick`` 0)."""
        computed = self.audit.computed
        dealer = self.dealer
        points: list[ScorePoint] = []
        recorded: int | None = 0
        for trick, step_index in sorted(self.trick_ends.items()):
            step = self.steps[step_index]
            if recorded is not None and dealer is not None and trick < len(self.record.tricks):
                recorded += self._claimed_points(trick, dealer)
            elif dealer is None:
                recorded = None
            points.append(ScorePoint(trick + 1, step.defenders_points_so_far, recorded))
        claim = self.record.claim
        final = claim.defenders_points if claim.HasField("defenders_points") else None
        if self.scored or final is not None:
            points.append(ScorePoint(0, computed.defenders_points, final))
        return points

    def _claimed_points(self, trick: int, dealer: int) -> int:
        """The defenders' points the table's claim for one trick gives (computed where absent)."""
        claim = self.record.tricks[trick].claim
        result = (
            self.audit.computed.tricks[trick]
            if trick < len(self.audit.computed.tricks)
            else audit_pb2.TrickResult()
        )
        winner = claim.winner if claim.HasField("winner") else result.winner
        value = claim.points if claim.HasField("points") else result.points
        total = value if winner % 2 != dealer % 2 else 0
        penalty = abs(claim.penalty) if claim.HasField("penalty") else abs(result.penalty)
        if penalty:
            thrower_defends = result.leader % 2 != dealer % 2
            total += -penalty if thrower_defends else penalty
        return total
