"""Auditing a match: every hand, and the levels, dealers and result carried hand to hand (R-MATCH).

Each hand is audited as a game; the chain then checks that a hand starts at the levels the
previous one left, is dealt by the seat (or team) due to deal, and that no hand follows the
match's end; the match's claimed result is checked last.
"""

from __future__ import annotations

from chaodipi.auditor.audit import rejected, replay_hand
from chaodipi.auditor.findings import Findings
from chaodipi.auditor.reading import MAX_HANDS, ReadHand, Violation, read_game, resolve_ruleset
from chaodipi.auditor.state import Cleared
from chaodipi.engine import RANK_LETTERS, Ruleset
from chaodipi.v1 import audit_pb2, records_pb2

MATCH = audit_pb2.PHASE_MATCH


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
    chain = MatchChain()
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
        hand_report = replay_hand(read, steps=steps, hand_index=i, cleared=chain.cleared)
        hand_report.record_id = hand.record_id
        report.hands.append(hand_report)
        chain.check(i, read, hand_report)
    claim = match.claimed_result if match.HasField("claimed_result") else None
    chain.check_claim(claim, len(report.hands))
    report.findings.extend(chain.findings.items)
    return report


class MatchChain:
    """Levels, dealers, must-play ranks cleared and the match result carried hand to hand."""

    findings: Findings
    levels: tuple[str, str] | None
    dealer: int | None
    dealer_team: int | None
    winner: int | None
    cleared: Cleared

    def __init__(self) -> None:
        self.findings = Findings()
        self.levels = None
        self.dealer = None
        self.dealer_team = None
        self.winner = None
        self.cleared = (set(), set())  # R-LEVEL-MUST: each hand's scoring adds to it

    def _record(
        self,
        code: str,
        message: str,
        hand: int,
        *,
        expected: str,
        recorded: str,
        seat: int | None = None,
    ) -> None:
        self.findings.record(
            code,
            message,
            MATCH,
            seat=seat,
            hand_index=hand,
            expected=expected,
            recorded=recorded,
            rule="R-MATCH",
        )

    def check(self, i: int, read: ReadHand, hand: audit_pb2.AuditReport) -> None:
        """Check hand ``i`` against what the hands before it left, then carry its result on."""
        recorded = (RANK_LETTERS[read.team_levels[0]], RANK_LETTERS[read.team_levels[1]])
        if self.winner is not None:
            self._record(
                "LEVEL_MISMATCH",
                f"hand {i + 1} was played after team {self.winner} had won the match",
                i,
                expected="no further hands",
                recorded=f"hand {i + 1}",
            )
        elif self.levels is not None and recorded != self.levels:
            self._record(
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
                self._record(
                    "DEALER_MISMATCH",
                    f"hand {i + 1} was dealt by seat {dealer}; seat {self.dealer} was due to deal",
                    i,
                    expected=str(self.dealer),
                    recorded=str(dealer),
                    seat=dealer,
                )
            elif dealer % 2 != self.dealer_team:
                self._record(
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

    def check_claim(self, claim: records_pb2.MatchClaim | None, hands: int) -> None:
        """The match's claimed winner or final levels; ``hands`` places the finding after them."""
        if claim is None:
            return
        if (
            claim.HasField("winning_team")
            and self.winner is not None
            and (claim.winning_team != self.winner)
        ):
            self._record(
                "LEVEL_MISMATCH",
                f"team {self.winner} won the match; team {claim.winning_team} was claimed",
                hands,
                expected=f"team {self.winner}",
                recorded=f"team {claim.winning_team}",
            )
        if self.levels is not None and self.winner is None:
            claimed = (claim.team0_final_level, claim.team1_final_level)
            if all(claimed) and claimed != self.levels:
                self._record(
                    "LEVEL_MISMATCH",
                    f"the match ends at {self.levels[0]}/{self.levels[1]} (team 0/team 1); "
                    f"{claimed[0]}/{claimed[1]} was claimed",
                    hands,
                    expected="/".join(self.levels),
                    recorded="/".join(claimed),
                )
