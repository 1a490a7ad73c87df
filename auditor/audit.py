"""Replaying a hand or a match and finding every breach (the product's core job).

``audit_game`` never raises on a bad record: malformed fields reject it (the
report's ``rejections`` name them), and every rule broken in a readable record is
a finding. After a breach the replay carries on with the cards as recorded, so
later findings are still found.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from chaodipi.auditor.bidding import replay_bidding
from chaodipi.auditor.codes import CODES
from chaodipi.auditor.reading import (
    MAX_HANDS,
    PROTO_SUITS,
    ReadHand,
    ReadPlay,
    ReadTrick,
    Violation,
    read_game,
    resolve_ruleset,
    tokens,
)
from chaodipi.engine.cards import (
    KINDS,
    POINTS,
    RANK_LETTERS,
    Hand,
    card_token,
    label_cards,
    points_of,
)
from chaodipi.engine.follow import check_follow
from chaodipi.engine.lead import check_lead, check_throw, lead_units
from chaodipi.engine.level import LevelResult, level_result, next_dealer
from chaodipi.engine.order import SUIT_NAMES, TrumpContext, trump_context
from chaodipi.engine.ruleset import Outcome, Ruleset
from chaodipi.engine.scoring import kitty_bonus, kitty_multiplier, last_trick_bonus, penalty_effect
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import Unit
from chaodipi.v1 import audit_pb2, records_pb2

DEAL = audit_pb2.PHASE_DEAL
SEAT_ORDER = [[(leader + p) % 4 for p in range(4)] for leader in range(4)]
"""The seats in play order after each leader."""
BIDDING = audit_pb2.PHASE_BIDDING
KITTY = audit_pb2.PHASE_KITTY
PLAY = audit_pb2.PHASE_PLAY
SCORING = audit_pb2.PHASE_SCORING
MATCH = audit_pb2.PHASE_MATCH
OUTCOMES = {
    Outcome.DEALER_UP: records_pb2.OUTCOME_DEALER_UP,
    Outcome.SWAP: records_pb2.OUTCOME_SWAP,
    Outcome.DEFENDERS_UP: records_pb2.OUTCOME_DEFENDERS_UP,
    Outcome.DEALER_WINS_MATCH: records_pb2.OUTCOME_DEALER_WINS_MATCH,
}


def _counts(kinds: Sequence[int]) -> list[int]:
    counts = [0] * KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def describe_position(position: audit_pb2.Position) -> str:
    """Where a finding stands: ``hand 2, trick 5, play 3, seat 1`` (1-based), or "" if nowhere."""
    pos = position
    places = (
        ("hand", pos.hand_index if pos.HasField("hand_index") else None),
        ("bid", pos.bid_index if pos.HasField("bid_index") else None),
        ("kitty exchange", pos.exchange_index if pos.HasField("exchange_index") else None),
        ("trick", pos.trick if pos.HasField("trick") else None),
        ("play", pos.play if pos.HasField("play") else None),
    )
    parts = [f"{label} {index + 1}" for label, index in places if index is not None]
    if pos.HasField("seat"):
        parts.append(f"seat {pos.seat}")
    return ", ".join(parts)


def describe_result(result: records_pb2.LevelResult) -> str:
    """``D+2``, ``swap``, ``A+1``, ``dealer wins the match`` for messages and summaries."""
    outcome = result.outcome
    if outcome == records_pb2.OUTCOME_DEALER_UP:
        return f"D+{result.levels}"
    if outcome == records_pb2.OUTCOME_SWAP:
        return "swap"
    if outcome == records_pb2.OUTCOME_DEFENDERS_UP:
        return f"A+{result.levels}"
    if outcome == records_pb2.OUTCOME_DEALER_WINS_MATCH:
        return "dealer side wins the match"
    if outcome == records_pb2.OUTCOME_DEFENDERS_WIN_MATCH:
        return "defenders win the match"
    return "unset"


class HandReplay:
    """One hand replayed step by step; ``findings`` grows as it goes."""

    def __init__(self, read: ReadHand, *, steps: bool = False, hand_index: int | None = None):
        self.read = read
        self.ruleset: Ruleset = read.ruleset
        self.hand_index = hand_index
        self.want_steps = steps
        self.findings: list[audit_pb2.Finding] = []
        self.notes: list[str] = []
        self.steps: list[audit_pb2.StepState] = []
        self.hands = [Hand(h) for h in read.hands]
        self.kitty = list(read.kitty)
        self.computed = audit_pb2.Computed()
        self.defenders_points = 0
        self.ctx: TrumpContext | None = None
        self.current: list[tuple[int, list[int]]] = []
        self.trick_penalty = 0
        self.lead_format: tuple[Unit, ...] = ()
        self._drawn: list[list[int]] | None = None
        self.trick_index: int | None = None
        self.play_index: int | None = None
        self._reported = 0

    # -- findings -------------------------------------------------------------------------

    def find(
        self,
        code: str,
        message: str,
        phase: audit_pb2.Phase.ValueType,
        *,
        seat: int | None = None,
        trick: int | None = None,
        play: int | None = None,
        bid_index: int | None = None,
        exchange_index: int | None = None,
        expected: str = "",
        recorded: str = "",
    ) -> audit_pb2.Finding:
        info = CODES[code]
        finding = audit_pb2.Finding(
            code=code,
            severity=info.severity,
            message=message,
            rule_id=info.rule,
        )
        pos = finding.position
        pos.phase = phase
        for name, value in (
            ("seat", seat),
            ("trick", trick),
            ("play", play),
            ("bid_index", bid_index),
            ("exchange_index", exchange_index),
            ("hand_index", self.hand_index),
        ):
            if value is not None:
                setattr(pos, name, value)
        finding.evidence.expected = expected
        finding.evidence.recorded = recorded
        self.findings.append(finding)
        return finding

    def snapshot(self, phase: audit_pb2.Phase.ValueType) -> None:
        """Record the state after a step, with the findings made at that step."""
        if not self.want_steps:
            return
        state = audit_pb2.StepState(index=len(self.steps), phase=phase)
        if self.trick_index is not None:
            state.trick = self.trick_index
        if self.play_index is not None:
            state.play = self.play_index
        for hand in self.hands:
            state.hands.add().cards.extend(card_token(k) for k in self._sorted_kinds(hand.counts))
        for seat, cards in self.current:
            state.current_trick.add(seat=seat, cards=tokens(cards))
        state.defenders_points_so_far = self.defenders_points
        state.kitty.extend(tokens(self.kitty))
        state.trump.CopyFrom(self.computed.trump)
        state.finding_indexes.extend(range(self._reported, len(self.findings)))
        self._reported = len(self.findings)
        self.steps.append(state)

    def drawn_by_seat(self) -> list[list[int]]:
        """Each seat's cards in the order drawn (the record gives the draw order)."""
        if self._drawn is None:
            drawn: list[list[int]] = [[], [], [], []]
            for seat, kind in self.read.draw_sequence or ():
                drawn[seat].append(kind)
            self._drawn = drawn
        return self._drawn

    def _sorted_kinds(self, counts: Sequence[int]) -> list[int]:
        kinds = [k for k in range(KINDS) for _ in range(counts[k])]
        if self.ctx is not None:
            ctx = self.ctx
            kinds.sort(key=lambda k: (ctx.suit[k], ctx.step[k], k))
        return kinds

    # -- the replay -----------------------------------------------------------------------

    def run(self) -> audit_pb2.AuditReport:
        self.check_deal()
        self.snapshot(DEAL)
        outcome = replay_bidding(self)
        if outcome is None:
            return self.report()
        self.computed.trump.level = RANK_LETTERS[outcome.level]
        self.computed.trump.suit = (
            records_pb2.SUIT_NO_TRUMP if outcome.trump is None else PROTO_SUITS[outcome.trump]
        )
        self.computed.dealer = outcome.dealer
        self.computed.overcall_count = outcome.overcalls
        self.ctx = trump_context(self.ruleset, outcome.level, outcome.trump)
        self.dealer = outcome.dealer
        self.play_tricks()
        self.score()
        return self.report()

    def check_deal(self) -> None:
        rs = self.ruleset
        counts = list(
            map(sum, zip(*(h.counts for h in self.hands), _counts(self.kitty), strict=True))
        )
        if counts.count(rs.decks) != KINDS:
            extra = [k for k in range(KINDS) for _ in range(max(counts[k] - rs.decks, 0))]
            missing = [k for k in range(KINDS) for _ in range(max(rs.decks - counts[k], 0))]
            parts = []
            if extra:
                parts.append(f"extra {label_cards(extra)}")
            if missing:
                parts.append(f"missing {label_cards(missing)}")
            self.find(
                "DEAL_INVALID",
                f"the deal is not {rs.decks} whole decks: " + "; ".join(parts),
                DEAL,
                expected=f"{rs.decks} copies of each of the 54 cards",
                recorded=" ".join(parts),
            )
        for seat, hand in enumerate(self.hands):
            size = len(hand)
            if size != rs.hand_size:
                self.find(
                    "DEAL_INVALID",
                    f"seat {seat} was dealt {size} cards; {rs.id} deals {rs.hand_size}",
                    DEAL,
                    seat=seat,
                    expected=str(rs.hand_size),
                    recorded=str(size),
                )
        if len(self.kitty) != rs.kitty_size:
            self.find(
                "DEAL_INVALID",
                f"the kitty holds {len(self.kitty)} cards; {rs.id} keeps {rs.kitty_size}",
                DEAL,
                expected=str(rs.kitty_size),
                recorded=str(len(self.kitty)),
            )

    def take(
        self,
        seat: int,
        cards: Sequence[int],
        phase: audit_pb2.Phase.ValueType,
        what: str,
        *,
        trick: int | None = None,
        play: int | None = None,
        exchange_index: int | None = None,
    ) -> None:
        """Remove cards from a hand; cards it does not hold are a finding and are skipped."""
        hand = self.hands[seat].counts
        absent: list[int] = []
        for k in cards:
            if hand[k]:
                hand[k] -= 1
            else:
                absent.append(k)
        if absent:
            self.find(
                "CARD_NOT_IN_HAND",
                f"seat {seat} {what} {label_cards(absent)} without holding "
                + ("it" if len(absent) == 1 else "them"),
                phase,
                seat=seat,
                recorded=" ".join(tokens(absent)),
                trick=trick,
                play=play,
                exchange_index=exchange_index,
            )

    def holds(self, seat: int, cards: Sequence[int]) -> list[int]:
        """The cards of ``cards`` that the seat does not hold (copies counted)."""
        hand = self.hands[seat].counts
        if len(cards) == 1:
            return [] if hand[cards[0]] else list(cards)
        need = Counter(cards)
        return [k for k, n in need.items() for _ in range(max(n - hand[k], 0))]

    def play_tricks(self) -> None:
        assert self.ctx is not None
        ctx, rs = self.ctx, self.ruleset
        expected_leader = self.dealer
        tricks = self.read.tricks
        results = self.computed.tricks
        for t, trick in enumerate(tricks):
            self.trick_index, self.play_index = t, None
            self.current = []
            leader = trick.leader
            if leader != expected_leader:
                self.find(
                    "OUT_OF_TURN",
                    f"trick {t + 1} was led by seat {leader}; seat {expected_leader} "
                    + ("deals and leads the first trick" if t == 0 else "won the last trick"),
                    PLAY,
                    seat=leader,
                    trick=t,
                    play=0,
                    expected=str(expected_leader),
                    recorded=str(leader),
                )
            result = results.add(leader=leader)
            self.play_trick(t, trick, result, ctx, rs)
            expected_leader = result.winner
        self.trick_index = self.play_index = None

    def report_turns(self, t: int, plays: Sequence[ReadPlay], leader: int) -> None:
        """OUT_OF_TURN for every play of a trick not made by the seat whose turn it was."""
        for p, play in enumerate(plays):
            if play.seat != (leader + p) % 4:
                self.find(
                    "OUT_OF_TURN",
                    f"play {p + 1} of trick {t + 1} was made by seat {play.seat}; "
                    f"seat {(leader + p) % 4} was to play",
                    PLAY,
                    seat=play.seat,
                    trick=t,
                    play=p,
                    expected=str((leader + p) % 4),
                    recorded=str(play.seat),
                )

    def play_trick(
        self,
        t: int,
        trick: ReadTrick,
        result: audit_pb2.TrickResult,
        ctx: TrumpContext,
        rs: Ruleset,
    ) -> None:
        plays = trick.plays
        leader = trick.leader
        if [play.seat for play in plays] != SEAT_ORDER[leader][: len(plays)]:
            self.report_turns(t, plays, leader)
        if len(plays) != 4:
            self.find(
                "WRONG_CARD_COUNT",
                f"trick {t + 1} has {len(plays)} plays; every seat plays once",
                PLAY,
                trick=t,
                expected="4",
                recorded=str(len(plays)),
            )
        lead = plays[0]
        units, mixed = self.check_lead_play(t, trick, result, ctx, rs)
        steps = self.want_steps
        self.play_index = 0
        self.take(lead.seat, lead.cards, PLAY, "led", trick=t, play=0)
        if steps:
            self.current.append((lead.seat, lead.cards))
            self.snapshot(PLAY)
        size = len(lead.cards)
        hands = self.hands
        for p in range(1, len(plays)):
            play = plays[p]
            seat, cards = play.seat, play.cards
            held = hands[seat]
            hand = held.counts
            self.play_index = p
            if len(cards) != size:
                self.find(
                    "WRONG_CARD_COUNT",
                    f"seat {seat} played {len(cards)} cards to a lead of {size}",
                    PLAY,
                    seat=seat,
                    trick=t,
                    play=p,
                    expected=str(size),
                    recorded=str(len(cards)),
                )
            elif not mixed and (hand[cards[0]] if size == 1 else not self.holds(seat, cards)):
                problem = check_follow(ctx, units, held, cards)
                if problem is not None:
                    finding = self.find(
                        problem.code,
                        f"seat {seat} {problem.reason}",
                        PLAY,
                        seat=seat,
                        trick=t,
                        play=p,
                        recorded=" ".join(tokens(cards)),
                    )
                    finding.evidence.legal_alternative.extend(tokens(problem.alternative))
            if size == 1 and len(cards) == 1 and hand[cards[0]]:
                hand[cards[0]] -= 1
            else:
                self.take(seat, cards, PLAY, "played", trick=t, play=p)
            if steps:
                self.current.append((seat, cards))
                self.snapshot(PLAY)
        self.finish_trick(t, trick, result, units, mixed, ctx)

    def check_lead_play(
        self,
        t: int,
        trick: ReadTrick,
        result: audit_pb2.TrickResult,
        ctx: TrumpContext,
        rs: Ruleset,
    ) -> tuple[tuple[Unit, ...], bool]:
        """Check the lead (and a throw) and return the units the follows answer."""
        self.trick_penalty = 0
        lead = trick.plays[0]
        seat = lead.seat
        cards = lead.cards
        if cards and not lead.attempted and cards.count(cards[0]) == len(cards):
            # One kind only (a single, pair or triple): one unit, never a throw.
            self.lead_format = (Unit(len(cards), (cards[0],)),)
            return self.lead_format, False
        self.lead_format = ()
        attempt = lead.attempted or cards
        split = trick.declared_split
        problem = check_lead(ctx, attempt, split)
        if problem is not None and problem.code == "SPLIT_INVALID":
            self.find(
                "SPLIT_INVALID",
                f"seat {seat}'s {problem.reason}; the canonical split is used",
                PLAY,
                seat=seat,
                trick=t,
                play=0,
            )
            split = None
        elif problem is not None:
            self.find(
                "LEAD_MIXED_SUITS" if problem.code == "LEAD_MIXED_SUITS" else "WRONG_CARD_COUNT",
                f"seat {seat} led {label_cards(attempt) or 'nothing'}: {problem.reason}",
                PLAY,
                seat=seat,
                trick=t,
                play=0,
                recorded=" ".join(tokens(attempt)),
            )
            return (), True
        if lead.attempted:
            absent = self.holds(seat, lead.attempted)
            if absent:
                self.find(
                    "CARD_NOT_IN_HAND",
                    f"seat {seat} tried to throw {label_cards(absent)} without holding it",
                    PLAY,
                    seat=seat,
                    trick=t,
                    play=0,
                    recorded=" ".join(tokens(absent)),
                )
        # The hands are still as before the lead: nothing of this trick is taken yet.
        verdict = check_throw(ctx, rs.throw, seat, attempt, self.hands, split)
        result.throw_attempted = verdict.is_throw
        result.throw_stood = verdict.is_throw and verdict.stands and not lead.attempted
        # The lead format that counts for the kitty (R-KITTY): after a failed throw, the
        # forced unit, whether or not the table enforced it.
        self.lead_format = verdict.units
        if verdict.is_throw and not verdict.stands:
            assert verdict.forced is not None
            self.lead_format = (verdict.forced,)
            result.forced_unit.extend(tokens(verdict.forced.cards()))
            on_dealer_side = seat % 2 == self.dealer % 2
            self.trick_penalty = penalty_effect(verdict.penalty, on_dealer_side)
            result.penalty = self.trick_penalty
        if lead.attempted:
            played = sorted(lead.cards)
            if not verdict.is_throw or verdict.stands:
                self.find(
                    "THROW_ENFORCED_WRONGLY",
                    f"the table forced seat {seat}'s throw of {label_cards(attempt)}, "
                    f"but it stood: {verdict.reason}",
                    PLAY,
                    seat=seat,
                    trick=t,
                    play=0,
                    expected=" ".join(tokens(attempt)),
                    recorded=" ".join(tokens(lead.cards)),
                )
            elif verdict.forced is not None and sorted(verdict.forced.cards()) != played:
                finding = self.find(
                    "THROW_ENFORCED_WRONGLY",
                    f"seat {seat}'s failed throw forced {label_cards(lead.cards)}; "
                    f"the rule forces {verdict.forced.label()}",
                    PLAY,
                    seat=seat,
                    trick=t,
                    play=0,
                    expected=" ".join(tokens(verdict.forced.cards())),
                    recorded=" ".join(tokens(lead.cards)),
                )
                self.add_beats(finding, verdict)
            answered = lead_units(ctx, lead.cards)
            if verdict.stands:
                self.lead_format = answered
            # Nothing put down after the failed throw: no follow can answer it.
            return answered, not answered
        if verdict.is_throw and not verdict.stands:
            assert verdict.forced is not None
            finding = self.find(
                "THROW_NOT_ENFORCED",
                f"{verdict.reason}; the table let the throw stand",
                PLAY,
                seat=seat,
                trick=t,
                play=0,
                expected=" ".join(tokens(verdict.forced.cards())),
                recorded=" ".join(tokens(lead.cards)),
            )
            self.add_beats(finding, verdict)
            finding.evidence.details["penalty_due"] = str(verdict.penalty)
        return verdict.units, False

    @staticmethod
    def add_beats(finding: audit_pb2.Finding, verdict: object) -> None:
        evidence = finding.evidence
        forced = getattr(verdict, "forced", None)
        if forced is not None:
            evidence.forced_unit.extend(tokens(forced.cards()))
        for beat in getattr(verdict, "beaten", ()):
            evidence.beaten_by.add(
                seat=beat.seat, cards=tokens(beat.by.cards()), unit=tokens(beat.unit.cards())
            )

    def finish_trick(
        self,
        t: int,
        trick: ReadTrick,
        result: audit_pb2.TrickResult,
        units: tuple[Unit, ...],
        mixed: bool,
        ctx: TrumpContext,
    ) -> None:
        plays = trick.plays
        claim = trick.claim
        if mixed:
            # No follow can match a lead that has no legal shape; the claim (if any) decides.
            index = 0
            if claim is not None and claim.HasField("winner"):
                index = next((i for i, p in enumerate(plays) if p.seat == claim.winner), 0)
        else:
            size = len(plays[0].cards)
            cards = [p.cards for p in plays]
            if all(len(c) == size for c in cards):
                index = trick_winner(ctx, units, cards[1:])
            else:
                # A play with the wrong number of cards cannot win; the others are compared.
                eligible = [i for i, c in enumerate(cards) if i == 0 or len(c) == size]
                index = eligible[trick_winner(ctx, units, [cards[i] for i in eligible[1:]])]
        winner = plays[index].seat
        points = sum([POINTS[k] for p in plays for k in p.cards])
        result.winner = winner
        result.points = points
        if winner % 2 != self.dealer % 2:
            self.defenders_points += points
        self.defenders_points += self.trick_penalty
        self.play_index = None
        if claim is not None:
            if claim.HasField("winner") and claim.winner != winner:
                self.find(
                    "TRICK_WINNER_MISMATCH",
                    f"trick {t + 1} was claimed for seat {claim.winner}; seat {winner} won it "
                    f"with {label_cards(plays[index].cards)}",
                    PLAY,
                    trick=t,
                    seat=claim.winner,
                    expected=str(winner),
                    recorded=str(claim.winner),
                )
            if claim.HasField("points") and claim.points != points:
                self.find(
                    "TRICK_POINTS_MISMATCH",
                    f"trick {t + 1} holds {points} points; {claim.points} were claimed",
                    PLAY,
                    trick=t,
                    expected=str(points),
                    recorded=str(claim.points),
                )
            due = abs(self.trick_penalty)
            if claim.HasField("penalty") and claim.penalty != due:
                self.find(
                    "PENALTY_MISMATCH",
                    f"the throw penalty in trick {t + 1} is {due}; {claim.penalty} was claimed",
                    PLAY,
                    trick=t,
                    seat=trick.leader,
                    expected=str(due),
                    recorded=str(claim.penalty),
                )
        if self.want_steps:
            self.current = []
            self.snapshot(PLAY)

    def score(self) -> None:
        rs, computed = self.ruleset, self.computed
        leftover = [(s, len(h)) for s, h in enumerate(self.hands) if len(h)]
        tricks = self.read.tricks
        if leftover or not tricks:
            held = ", ".join(f"seat {s} {n}" for s, n in leftover) or "no tricks"
            self.find(
                "RECORD_INCOMPLETE",
                f"the hand is not played out ({held} cards left); kitty, score and level "
                "are not checked",
                SCORING,
            )
            self.snapshot(SCORING)
            return
        last = computed.tricks[-1]
        computed.kitty_points = points_of(self.kitty)
        computed.penalties_total = sum(r.penalty for r in computed.tricks)
        if last.winner % 2 != self.dealer % 2:
            ctx = self.ctx
            assert ctx is not None
            units = self.lead_format
            if not units:
                first = tricks[-1].plays[0].cards[:1]
                units = (Unit(1, tuple(first)),)
                self.notes.append("the last lead had no legal shape: the kitty counts it a single")
            multiplier = kitty_multiplier(rs, units)
            computed.kitty_multiplier = multiplier
            computed.kitty_bonus = kitty_bonus(rs, self.kitty, multiplier)
            extra = last_trick_bonus(rs, [k for p in tricks[-1].plays for k in p.cards])
            self.defenders_points += computed.kitty_bonus + extra
        computed.defenders_points = self.defenders_points
        levels = self.read.team_levels
        dealer_team = self.dealer % 2
        level = level_result(
            rs, self.defenders_points, levels[dealer_team], levels[1 - dealer_team]
        )
        self.fill_level(computed.level_result, level)
        nxt = next_dealer(rs, self.dealer, level)
        if nxt is not None:
            computed.next_dealer = nxt
        computed.next_dealer_team = dealer_team if level.next_deal == "dealer" else 1 - dealer_team
        self.check_hand_claim()
        self.snapshot(SCORING)

    @staticmethod
    def fill_level(message: records_pb2.LevelResult, level: LevelResult) -> None:
        if level.match_winner == "defenders":
            message.outcome = records_pb2.OUTCOME_DEFENDERS_WIN_MATCH
        elif level.match_winner == "dealer":
            message.outcome = records_pb2.OUTCOME_DEALER_WINS_MATCH
        else:
            message.outcome = OUTCOMES[level.outcome]
        message.levels = level.levels
        if level.match_winner is None:
            message.dealer_team_level_after = RANK_LETTERS[level.dealer_level_after]
            message.defender_team_level_after = RANK_LETTERS[level.defender_level_after]

    def check_hand_claim(self) -> None:
        claim = self.read.claim
        if claim is None:
            return
        computed = self.computed
        if (
            claim.HasField("kitty_multiplier")
            and claim.kitty_multiplier != computed.kitty_multiplier
        ):
            self.find(
                "KITTY_MISMATCH",
                f"the kitty multiplier is ×{computed.kitty_multiplier}; "
                f"×{claim.kitty_multiplier} was claimed",
                SCORING,
                expected=str(computed.kitty_multiplier),
                recorded=str(claim.kitty_multiplier),
            )
        if claim.HasField("kitty_bonus") and claim.kitty_bonus != computed.kitty_bonus:
            why = (
                f"{computed.kitty_points} points × {computed.kitty_multiplier}"
                if computed.kitty_multiplier
                else "the dealer side won the last trick"
            )
            self.find(
                "KITTY_MISMATCH",
                f"the kitty bonus is {computed.kitty_bonus} ({why}); "
                f"{claim.kitty_bonus} was claimed",
                SCORING,
                expected=str(computed.kitty_bonus),
                recorded=str(claim.kitty_bonus),
            )
        if (
            claim.HasField("defenders_points")
            and claim.defenders_points != computed.defenders_points
        ):
            self.find(
                "SCORE_MISMATCH",
                f"the defenders took {computed.defenders_points} points; "
                f"{claim.defenders_points} were claimed",
                SCORING,
                expected=str(computed.defenders_points),
                recorded=str(claim.defenders_points),
            )
        if claim.HasField("level_result"):
            want, got = computed.level_result, claim.level_result
            if (
                (want.outcome, want.levels) != (got.outcome, got.levels)
                or (
                    got.dealer_team_level_after
                    and got.dealer_team_level_after != want.dealer_team_level_after
                )
                or (
                    got.defender_team_level_after
                    and got.defender_team_level_after != want.defender_team_level_after
                )
            ):
                self.find(
                    "LEVEL_MISMATCH",
                    f"{computed.defenders_points} points give {describe_result(want)}"
                    f"{_levels_after(want)}; {describe_result(got)}{_levels_after(got)} "
                    "was claimed",
                    SCORING,
                    expected=describe_result(want),
                    recorded=describe_result(got),
                )
        if (
            claim.HasField("next_dealer")
            and computed.HasField("next_dealer")
            and (claim.next_dealer != computed.next_dealer)
        ):
            self.find(
                "DEALER_MISMATCH",
                f"seat {computed.next_dealer} deals next; seat {claim.next_dealer} was claimed",
                SCORING,
                expected=str(computed.next_dealer),
                recorded=str(claim.next_dealer),
            )
        if claim.HasField("trump"):
            want_trump, got_trump = computed.trump, claim.trump
            if (want_trump.level, want_trump.suit) != (got_trump.level, got_trump.suit):
                self.find(
                    "TRUMP_MISMATCH",
                    f"trump is {_trump_text(want_trump)}; {_trump_text(got_trump)} was claimed",
                    BIDDING,
                    expected=_trump_text(want_trump),
                    recorded=_trump_text(got_trump),
                )

    def report(self) -> audit_pb2.AuditReport:
        report = audit_pb2.AuditReport(ruleset=self.ruleset.id, computed=self.computed)
        report.findings.extend(self.findings)
        report.steps.extend(self.steps)
        report.notes.extend(self.notes)
        tally_findings(report)
        return report


def _levels_after(result: records_pb2.LevelResult) -> str:
    if not result.dealer_team_level_after and not result.defender_team_level_after:
        return ""
    return (
        f" (dealer side to {result.dealer_team_level_after or '?'}, "
        f"defenders to {result.defender_team_level_after or '?'})"
    )


def _trump_text(trump: records_pb2.Trump) -> str:
    suit = {v: SUIT_NAMES[k] for k, v in PROTO_SUITS.items()}.get(trump.suit, "no-trump")
    return f"level {trump.level or '?'} {suit}"


def tally_findings(report: audit_pb2.AuditReport) -> None:
    """Count the report's findings by severity."""
    counts = {
        audit_pb2.SEVERITY_BREACH: 0,
        audit_pb2.SEVERITY_SCORING_ERROR: 0,
        audit_pb2.SEVERITY_WARNING: 0,
    }
    for finding in report.findings:
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
    report.breaches = counts[audit_pb2.SEVERITY_BREACH]
    report.scoring_errors = counts[audit_pb2.SEVERITY_SCORING_ERROR]
    report.warnings = counts[audit_pb2.SEVERITY_WARNING]


def rejected(
    record_id: str, ruleset: str, violations: Sequence[Violation]
) -> audit_pb2.AuditReport:
    """A report for a record that could not be replayed: its violations, nothing computed."""
    report = audit_pb2.AuditReport(record_id=record_id, ruleset=ruleset)
    for v in violations:
        report.rejections.add(field=v.field, description=v.description)
    return report


def audit_game(
    record: records_pb2.GameRecord,
    *,
    ruleset: Ruleset | None = None,
    steps: bool = False,
    hand_index: int | None = None,
) -> audit_pb2.AuditReport:
    """Audit one hand under its own ruleset (or ``ruleset``); never raises on a bad record."""
    read = read_game(record, ruleset)
    if isinstance(read, list):
        return rejected(record.record_id, record.ruleset, read)
    report = HandReplay(read, steps=steps, hand_index=hand_index).run()
    report.record_id = record.record_id
    return report


def audit_steps(record: records_pb2.GameRecord) -> Iterator[audit_pb2.StepState]:
    """The state after every step of a hand, for a replay viewer."""
    yield from audit_game(record, steps=True).steps


def audit_match(
    match: records_pb2.MatchRecord, *, ruleset: Ruleset | None = None, steps: bool = False
) -> audit_pb2.MatchAuditReport:
    """Audit every hand of a match, and levels, dealers and result hand to hand (R-MATCH)."""
    report = audit_pb2.MatchAuditReport(match_id=match.match_id)
    if ruleset is None:
        resolved = resolve_ruleset(match.ruleset, match.ruleset_overrides_json)
        if isinstance(resolved, Violation):
            report.rejections.add(field=resolved.field, description=resolved.description)
            return report
        ruleset = resolved
    if len(match.players) != 4:
        report.rejections.add(
            field="players", description=f"expected 4 players, found {len(match.players)}"
        )
        return report
    if len(match.hands) > MAX_HANDS:
        report.rejections.add(
            field="hands", description=f"{len(match.hands)} hands, at most {MAX_HANDS}"
        )
        return report
    chain = _MatchChain(ruleset, report)
    for i, hand in enumerate(match.hands):
        if hand.ruleset and hand.ruleset != match.ruleset and hand.ruleset != ruleset.id:
            report.rejections.add(
                field=f"hands[{i}].ruleset",
                description=f"{hand.ruleset!r} differs from the match's {match.ruleset!r}",
            )
            continue
        read = read_game(hand, ruleset, path=f"hands[{i}]")
        if isinstance(read, list):
            report.hands.append(rejected(hand.record_id, ruleset.id, read))
            continue
        replay = HandReplay(read, steps=steps, hand_index=i)
        hand_report = replay.run()
        hand_report.record_id = hand.record_id
        report.hands.append(hand_report)
        chain.check(i, read, hand_report)
    chain.check_claim(match.claimed_result if match.HasField("claimed_result") else None)
    return report


class _MatchChain:
    """Levels, dealers and the match result carried from hand to hand."""

    def __init__(self, ruleset: Ruleset, report: audit_pb2.MatchAuditReport):
        self.ruleset = ruleset
        self.report = report
        self.levels: tuple[str, str] | None = None
        self.dealer: int | None = None
        self.dealer_team: int | None = None
        self.winner: int | None = None

    def find(
        self,
        code: str,
        message: str,
        hand: int,
        *,
        expected: str,
        recorded: str,
        seat: int | None = None,
    ) -> None:
        info = CODES[code]
        finding = self.report.findings.add(
            code=code, severity=info.severity, message=message, rule_id="R-MATCH"
        )
        finding.position.phase = MATCH
        finding.position.hand_index = hand
        if seat is not None:
            finding.position.seat = seat
        finding.evidence.expected = expected
        finding.evidence.recorded = recorded

    def check(self, i: int, read: ReadHand, hand: audit_pb2.AuditReport) -> None:
        recorded = (RANK_LETTERS[read.team_levels[0]], RANK_LETTERS[read.team_levels[1]])
        if self.winner is not None:
            self.find(
                "LEVEL_MISMATCH",
                f"hand {i + 1} was played after team {self.winner} had won the match",
                i,
                expected="no further hands",
                recorded=f"hand {i + 1}",
            )
        elif self.levels is not None and recorded != self.levels:
            self.find(
                "LEVEL_MISMATCH",
                f"hand {i + 1} starts at levels {recorded[0]}/{recorded[1]} (team 0/team 1); "
                f"the previous hand left {self.levels[0]}/{self.levels[1]}",
                i,
                expected="/".join(self.levels),
                recorded="/".join(recorded),
            )
        computed = hand.computed
        dealer = computed.dealer if computed.HasField("dealer") else None
        if dealer is not None and self.dealer_team is not None and self.winner is None:
            if self.dealer is not None and dealer != self.dealer:
                self.find(
                    "DEALER_MISMATCH",
                    f"hand {i + 1} was dealt by seat {dealer}; seat {self.dealer} was due to deal",
                    i,
                    expected=str(self.dealer),
                    recorded=str(dealer),
                    seat=dealer,
                )
            elif dealer % 2 != self.dealer_team:
                self.find(
                    "DEALER_MISMATCH",
                    f"hand {i + 1} was dealt by seat {dealer} of team {dealer % 2}; "
                    f"team {self.dealer_team} held the deal",
                    i,
                    expected=f"team {self.dealer_team}",
                    recorded=f"team {dealer % 2}",
                    seat=dealer,
                )
        if not computed.HasField("level_result") or dealer is None:
            # The hand could not be scored: carry the recorded state on unchecked.
            self.levels = None
            self.dealer = self.dealer_team = None
            return
        result = computed.level_result
        dealer_team = dealer % 2
        if result.outcome == records_pb2.OUTCOME_DEALER_WINS_MATCH:
            self.winner = dealer_team
            return
        if result.outcome == records_pb2.OUTCOME_DEFENDERS_WIN_MATCH:
            self.winner = 1 - dealer_team
            return
        after = [result.dealer_team_level_after, result.defender_team_level_after]
        if dealer_team == 1:
            after.reverse()
        self.levels = (after[0], after[1])
        self.dealer = computed.next_dealer if computed.HasField("next_dealer") else None
        self.dealer_team = computed.next_dealer_team

    def check_claim(self, claim: records_pb2.MatchClaim | None) -> None:
        if claim is None:
            return
        n = len(self.report.hands)
        if (
            claim.HasField("winning_team")
            and self.winner is not None
            and (claim.winning_team != self.winner)
        ):
            self.find(
                "LEVEL_MISMATCH",
                f"team {self.winner} won the match; team {claim.winning_team} was claimed",
                n,
                expected=f"team {self.winner}",
                recorded=f"team {claim.winning_team}",
            )
        if self.levels is not None and self.winner is None:
            claimed = (claim.team0_final_level, claim.team1_final_level)
            if all(claimed) and claimed != self.levels:
                self.find(
                    "LEVEL_MISMATCH",
                    f"the match ends at {self.levels[0]}/{self.levels[1]} (team 0/team 1); "
                    f"{claimed[0]}/{claimed[1]} was claimed",
                    n,
                    expected="/".join(self.levels),
                    recorded="/".join(claimed),
                )
