"""The table's claims on a hand against what the audit computed: one finding per difference.

Each claimed field (``HandClaim``) is compared with the computed one of the same name
(``Computed``) by a ``ClaimCheck``: what differs, the finding's code, its sentence, and
how the two values are shown as evidence. The checks run in the order of ``HAND_CLAIMS``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from chaodipi.auditor.state import HandState
from chaodipi.auditor.wire import describe_result, trump_text
from chaodipi.engine import Ruleset
from chaodipi.v1 import audit_pb2, records_pb2

SCORING = audit_pb2.PHASE_SCORING
BIDDING = audit_pb2.PHASE_BIDDING


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """One claimed field against the computed field of the same name.

    ``sentence(computed value, claimed value, computed)`` is the finding's message,
    ``show`` writes a value as evidence, ``differs`` says when the claim is wrong, and
    ``only_if_computed`` skips a field the audit may leave unset (the next dealer).
    """

    field: str
    code: str
    phase: audit_pb2.Phase.ValueType
    sentence: Callable[[Any, Any, audit_pb2.Computed], str]
    show: Callable[[Any], str] = str
    differs: Callable[[Any, Any], bool] = operator.ne
    only_if_computed: bool = False


def _kitty_bonus(want: int, got: int, computed: audit_pb2.Computed) -> str:
    why = (
        f"{computed.kitty_points} points × {computed.kitty_multiplier}"
        if computed.kitty_multiplier
        else "the dealer side won the last trick"
    )
    return f"the kitty bonus is {want} ({why}); {got} was claimed"


def _levels_after(result: records_pb2.LevelResult) -> str:
    if not result.dealer_team_level_after and not result.defender_team_level_after:
        return ""
    return (
        f" (dealer side to {result.dealer_team_level_after or '?'}, "
        f"defenders to {result.defender_team_level_after or '?'})"
    )


def _stake_units(want: int, got: int, computed: audit_pb2.Computed) -> str:
    # Zero is due both where the ruleset has no stake and where no throw failed: say only that.
    claimed = f"{got} {'unit was' if got == 1 else 'units were'} claimed"
    if not want:
        return f"no table stake (底金) is due in this hand; {claimed}"
    throws = "failed throw charges" if want == 1 else "failed throws charge"
    units = "unit" if want == 1 else "units"
    return f"{want} {throws} {want} stake {units} (底金, one each); {claimed}"


def _level(
    want: records_pb2.LevelResult, got: records_pb2.LevelResult, computed: audit_pb2.Computed
) -> str:
    return (
        f"{computed.defenders_points} points give {describe_result(want)}{_levels_after(want)}; "
        f"{describe_result(got)}{_levels_after(got)} was claimed"
    )


def _level_differs(want: records_pb2.LevelResult, got: records_pb2.LevelResult) -> bool:
    # The levels after are compared only where the claim gives them.
    return (
        (want.outcome, want.levels) != (got.outcome, got.levels)
        or (
            bool(got.dealer_team_level_after)
            and got.dealer_team_level_after != want.dealer_team_level_after
        )
        or (
            bool(got.defender_team_level_after)
            and got.defender_team_level_after != want.defender_team_level_after
        )
    )


def _trump_differs(want: records_pb2.Trump, got: records_pb2.Trump) -> bool:
    return (want.level, want.suit) != (got.level, got.suit)


HAND_CLAIMS: Final[tuple[ClaimCheck, ...]] = (
    ClaimCheck(
        "kitty_multiplier",
        "KITTY_MISMATCH",
        SCORING,
        lambda want, got, _: f"the kitty multiplier is ×{want}; ×{got} was claimed",
    ),
    ClaimCheck("kitty_bonus", "KITTY_MISMATCH", SCORING, _kitty_bonus),
    ClaimCheck(
        "defenders_points",
        "SCORE_MISMATCH",
        SCORING,
        lambda want, got, _: f"the defenders took {want} points; {got} were claimed",
    ),
    ClaimCheck("stake_units", "PENALTY_MISMATCH", SCORING, _stake_units),
    ClaimCheck(
        "level_result",
        "LEVEL_MISMATCH",
        SCORING,
        _level,
        show=describe_result,
        differs=_level_differs,
        # A table of match points (LevelRule.match_points) is checked by scoring instead.
        only_if_computed=True,
    ),
    ClaimCheck(
        "next_dealer",
        "DEALER_MISMATCH",
        SCORING,
        lambda want, got, _: f"seat {want} deals next; seat {got} was claimed",
        only_if_computed=True,
    ),
    ClaimCheck(
        "trump",
        "TRUMP_MISMATCH",
        BIDDING,
        lambda want, got, _: f"trump is {trump_text(want)}; {trump_text(got)} was claimed",
        show=trump_text,
        differs=_trump_differs,
    ),
)
"""The hand's claimed fields, in the order their findings are made."""


_CLAIMED: Final = operator.attrgetter(*(check.field for check in HAND_CLAIMS))
"""Every claimed field's value, as a tuple (read in C): of the claim, or of the computed."""


def check_hand_claim(replay: HandState) -> None:
    """A finding for every claimed field of the hand that differs from the computed one.

    A field is compared first and its presence asked only when it differs: an unset field
    reads its default, which matches or is then found unset, and ``HasField`` costs about
    two reads.
    """
    claim = replay.read.claim
    if claim is None:
        return
    computed = replay.computed
    # Most claims are what was computed: every field equal, no check can find a difference.
    if _CLAIMED(claim) == _CLAIMED(computed):
        return
    for check in HAND_CLAIMS:
        field = check.field
        want, got = getattr(computed, field), getattr(claim, field)
        if not check.differs(want, got) or not claim.HasField(field):  # type: ignore[arg-type]
            continue
        if check.only_if_computed and not computed.HasField(field):  # type: ignore[arg-type]
            continue
        replay.findings.record(
            check.code,
            check.sentence(want, got, computed),
            check.phase,
            expected=check.show(want),
            recorded=check.show(got),
        )


def claim_computed(
    record: records_pb2.GameRecord, computed: audit_pb2.Computed, ruleset: Ruleset
) -> None:
    """Fill the record's claims (trick winners, points, penalties, score, level, trump) with
    what was computed: a table that announces what the audit computes claims just that."""
    for trick, result in zip(record.tricks, computed.tricks, strict=False):
        trick.claim.winner = result.winner
        trick.claim.points = result.points
        trick.claim.penalty = abs(result.penalty)
    claim = record.claim
    claim.kitty_multiplier = computed.kitty_multiplier
    claim.kitty_bonus = computed.kitty_bonus
    claim.defenders_points = computed.defenders_points
    if ruleset.throw.stake_charge:
        claim.stake_units = computed.stake_units
    if computed.HasField("level_result"):  # a table of match points moves no level
        claim.level_result.CopyFrom(computed.level_result)
    if computed.HasField("next_dealer"):
        claim.next_dealer = computed.next_dealer
    claim.trump.CopyFrom(computed.trump)
