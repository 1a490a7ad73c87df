"""Replaying the tricks: turns, leads and throws, follows, the winner and the trick's claims.

Each trick is checked as the table played it (R-WIN, R-LEAD, R-THROW, R-FOLLOW) and then
carried on with the cards as recorded, so later findings are still found. The hot path of
the audit (about half its time): a single, pair or triple led takes its lead from the
engine's cache, a follow answering it in kind is only taken from the hand, and cards held
are taken by their counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from chaodipi.auditor.findings import count_cards
from chaodipi.auditor.reading import PLAYS_PER_TRICK, ReadPlay, ReadTrick, TrickClaims
from chaodipi.auditor.state import HandState
from chaodipi.auditor.wire import LEN, VARINT, encode_varint, field_tag, tokens
from chaodipi.engine import (
    KINDS,
    ForcedTie,
    Lead,
    Table,
    ThrowVerdict,
    Unit,
    card_token,
    label_cards,
    penalty_effect,
)
from chaodipi.engine.follow import check_follow, follows_in_kind
from chaodipi.engine.lead import LEADS_OF_ONE_KIND
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import impossible_play
from chaodipi.v1 import audit_pb2

PLAY = audit_pb2.PHASE_PLAY


_RESULT_TAG: Final = field_tag(audit_pb2.Computed, "tricks", LEN)
_LEADER_TAG: Final = field_tag(audit_pb2.TrickResult, "leader", VARINT)
_WINNER_TAG: Final = field_tag(audit_pb2.TrickResult, "winner", VARINT)
_POINTS_TAG: Final = field_tag(audit_pb2.TrickResult, "points", VARINT)
_COMMON_RESULTS: Final = [
    bytes((_RESULT_TAG, 6, _LEADER_TAG, leader, _WINNER_TAG, winner, _POINTS_TAG, points))
    for leader in range(4)
    for winner in range(4)
    for points in range(128)
]
"""The encoding of most tricks' results (no throw, under 128 points: each value one byte), at
``leader << 9 | winner << 7 | points``: a look-up, not an encoding, for each trick."""

_PENALTY_TAG: Final = field_tag(audit_pb2.TrickResult, "penalty", VARINT)
_THROW_ATTEMPTED: Final = bytes((field_tag(audit_pb2.TrickResult, "throw_attempted", VARINT), 1))
_THROW_STOOD: Final = bytes((field_tag(audit_pb2.TrickResult, "throw_stood", VARINT), 1))
_FORCED_TAG: Final = field_tag(audit_pb2.TrickResult, "forced_unit", LEN)
_FORCED_CARDS: Final = [
    bytes((_FORCED_TAG, len(token))) + token
    for token in (card_token(k).encode() for k in range(KINDS))
]
"""Each card kind as one ``forced_unit`` entry of a ``TrickResult`` on the wire (tag, length,
token)."""


def _encoded_throw(stood: bool, forced: Sequence[int], penalty: int) -> bytes:
    """A throw's fields of its trick's ``TrickResult`` on the wire, as ``SerializeToString``
    would give them: cheaper than a message built, set and serialized for each throw. A
    negative ``int32`` is ten bytes of its 64-bit two's complement; zero is not written."""
    fields = b""
    if penalty:
        fields = bytes((_PENALTY_TAG,)) + encode_varint(penalty & 0xFFFF_FFFF_FFFF_FFFF)
    fields += _THROW_ATTEMPTED
    if stood:
        fields += _THROW_STOOD
    return fields + b"".join([_FORCED_CARDS[k] for k in forced])


_TURNS: Final = tuple(
    tuple((leader + p) % 4 for p in range(PLAYS_PER_TRICK)) for leader in range(4)
)
"""The seat whose turn each play of a trick is, by the trick's leader (a seat the reader
checked): looked up, for the follows ``play_tricks`` takes."""
_FOLLOWS: Final = tuple(tuple(range(1, plays)) for plays in range(PLAYS_PER_TRICK + 1))
"""The index of each follow of a trick (every play but the lead), by the trick's number of
plays (at most ``PLAYS_PER_TRICK``, as read): looked up, cheaper than a range built a trick."""


def play_tricks(replay: HandState) -> None:
    """Replay every trick; each winner leads the next (the dealer leads the first)."""
    table = replay.table
    assert table is not None
    context = table.context
    suit = context.suit
    hands = replay.hands
    due = replay.dealer
    # A seat once void in a suit stays void to the hand's end (cards leave a hand only in
    # the play): ``seat << 3 | suit`` for each seat whose follow off the led suit
    # ``follows_in_kind`` found plain, so that its later ones are not asked again.
    voids: set[int] = set()
    for t, trick in enumerate(replay.read.tricks):
        answered = lead_trick(replay, table, t, trick, due)
        plays = trick.plays
        # Most follows to a single, pair or triple led plainly follow it (``follows_in_kind``):
        # such a play, in turn and held, makes no finding and is only taken.
        width = led = 0
        if answered is not None and len(answered.units) == 1 and not replay.want_steps:
            unit = answered.units[0]
            if len(unit.kinds) == 1:
                width, led = unit.width, suit[unit.kinds[0]]
        turns = _TURNS[trick.leader]
        for p in _FOLLOWS[len(plays)]:
            play = plays[p]
            cards = play.cards
            seat = play.seat
            if width and len(cards) == width and seat == turns[p]:
                hand = hands[seat]
                counts = hand.counts
                kind = play.one_kind
                if kind >= 0:
                    held = counts[kind] >= width
                    # Copies of one card of the led suit, two follows in three, are
                    # ``follows_in_kind``'s first case, answered without its call.
                    if held and suit[kind] == led:
                        counts[kind] -= width
                        continue
                else:
                    held = not hand.missing(cards)
                if held:
                    void = seat << 3 | led
                    if void in voids or follows_in_kind(context, width, led, counts, cards):
                        if suit[cards[0]] != led:
                            voids.add(void)
                        for k in cards:
                            counts[k] -= 1
                        continue
            follow_trick(replay, table, t, trick, p, answered)
        due = finish_trick(replay, table, t, trick, answered)
    replay.trick_index = replay.play_index = None
    write_trick_results(replay)


def write_trick_results(replay: HandState) -> None:
    """Write the tricks played out since the last write to ``computed.tricks``: one parse of
    their encodings costs less than a message's writes and reads for each trick.

    ``play_tricks`` writes them when the play ends, a live referee after each trick: every
    reader of ``computed.tricks`` (the scoring, claims, the referee's answers) comes after.
    """
    computed = replay.computed
    computed.MergeFromString(b"".join(replay.trick_results[len(computed.tricks) :]))


def _encoded_result(leader: int, winner: int, points: int, throw: bytes) -> bytes:
    """A trick's ``TrickResult`` as ``computed.tricks`` holds it on the wire (tag, length,
    fields), a throw's fields (``_encoded_throw``) added (``_COMMON_RESULTS`` holds most
    tricks' already). Seats are 0-3 (the reader checks them): one byte."""
    fields = bytes((_LEADER_TAG, leader, _WINNER_TAG, winner, _POINTS_TAG)) + encode_varint(points)
    fields += throw  # two encodings of a message joined: both merged
    return bytes((_RESULT_TAG,)) + encode_varint(len(fields)) + fields


def _out_of_turn(replay: HandState, t: int, p: int, seat: int, leader: int) -> None:
    """OUT_OF_TURN for play ``p`` of a trick, made by ``seat`` in another seat's turn."""
    replay.findings.record(
        "OUT_OF_TURN",
        f"play {p + 1} of trick {t + 1} was made by seat {seat}; "
        f"seat {(leader + p) % 4} was to play",
        PLAY,
        seat=seat,
        trick=t,
        play=p,
        expected=str((leader + p) % 4),
        recorded=str(seat),
    )


def lead_trick(
    replay: HandState, table: Table, t: int, trick: ReadTrick, due: int | None = None
) -> Lead | None:
    """Trick ``t``'s lead: its leader's turn, the lead (and a throw) checked, its cards taken.

    Returns the lead the follows answer, None when none can. It reads only the trick's
    first play, so a live referee calls it as soon as the lead is made. ``due`` is the seat
    due to lead when the caller knows it (what ``finish_trick`` returned for the last trick);
    else it is read from the results written (``write_trick_results``) so far.
    """
    leader = trick.leader
    expected_leader = due
    if expected_leader is None:
        expected_leader = replay.dealer if t == 0 else replay.computed.tricks[t - 1].winner
    if leader != expected_leader:
        replay.findings.record(
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
    lead = trick.plays[0]
    if lead.seat != leader:
        _out_of_turn(replay, t, 0, lead.seat, leader)
    cards = lead.cards
    size = len(cards)
    counts = replay.hands[lead.seat].counts
    answered: Lead | None
    kind = lead.one_kind
    if kind >= 0 and not lead.attempted and size <= table.context.decks:
        # One kind only (a single, pair or triple): one unit, never a throw (the common lead),
        # taken from the engine's table (``size`` is 1 to the decks, 3 at most).
        answered = replay.last_lead = LEADS_OF_ONE_KIND[size][kind]
        held = counts[kind] >= size
    else:
        answered = _check_lead(replay, table, t, trick)
        held = size == 1 and counts[cards[0]] > 0
    if held:
        counts[cards[0]] -= size  # copies of one card, held: what ``take`` does, without its call
    else:
        replay.take(lead.seat, cards, PLAY, "led", trick=t, play=0)
    if replay.want_steps:
        # Where the play stands is kept for the steps alone (``HandState``): not set a trick.
        replay.trick_index, replay.play_index = t, 0
        replay.current = [(lead.seat, lead.cards)]
        replay.snapshot(PLAY)
    return answered


def follow_trick(
    replay: HandState, table: Table, t: int, trick: ReadTrick, p: int, answered: Lead | None
) -> None:
    """Play ``p`` (1-3) of trick ``t``: its turn, its size, the follow (R-FOLLOW), cards taken."""
    findings = replay.findings
    plays = trick.plays
    play = plays[p]
    seat, cards = play.seat, play.cards
    if seat != (trick.leader + p) % 4:
        _out_of_turn(replay, t, p, seat, trick.leader)
    size = len(plays[0].cards)
    held = replay.hands[seat]
    counts = held.counts
    played = len(cards)
    holds = counts[cards[0]] > 0 if played == 1 else not held.missing(cards)
    if played != size:
        findings.record(
            "WRONG_CARD_COUNT",
            f"seat {seat} played {count_cards(played)} to a lead of {size}",
            PLAY,
            seat=seat,
            trick=t,
            play=p,
            expected=str(size),
            recorded=str(played),
        )
    elif answered is not None and holds:
        # A play of cards not held is CARD_NOT_IN_HAND below, not judged as a follow.
        verdict = check_follow(table.context, answered.units, held, cards)
        if verdict is not None:
            finding = findings.record(
                verdict.code,
                f"seat {seat} {verdict.reason}",
                PLAY,
                seat=seat,
                trick=t,
                play=p,
                recorded=" ".join(tokens(cards)),
            )
            finding.evidence.legal_alternative.extend(tokens(verdict.alternative))
    if holds:
        for k in cards:  # all held: what ``take`` does, without its call
            counts[k] -= 1
    else:
        replay.take(seat, cards, PLAY, "played", trick=t, play=p)
    if replay.want_steps:
        replay.play_index = p
        replay.current.append((seat, cards))
        replay.snapshot(PLAY)


def _check_lead(replay: HandState, table: Table, t: int, trick: ReadTrick) -> Lead | None:
    """Check the lead (and a throw); the lead the follows answer, None when none can.

    ``lead_trick`` answers copies of one card itself: here come throws, tractors and leads
    breaking the rules.
    """
    lead = trick.plays[0]
    seat = lead.seat
    cards = lead.cards
    findings = replay.findings
    replay.last_lead = None
    attempt = lead.attempted or cards
    split = trick.declared_split
    verdict = table.check_lead(attempt, split)
    if (
        verdict.code != "CARDS_IMPOSSIBLE"
        and lead.attempted
        and impossible_play(table.context, cards) is not None
    ):
        # The cards put down after a failed throw are checked only for cards that cannot
        # exist (what ``check_lead`` finds first): the full check only to say why.
        verdict, attempt = table.check_lead(cards), cards
    if verdict.code == "CARDS_IMPOSSIBLE":
        # No split, throw or follow search on cards that cannot exist (R-HELD). Cards put
        # down and not held are CARD_NOT_IN_HAND when taken; the rest is named here.
        if attempt is not cards or not replay.hands[seat].missing(cards):
            findings.record(
                "CARD_NOT_IN_HAND",
                f"seat {seat}: {verdict.reason}",
                PLAY,
                seat=seat,
                trick=t,
                play=0,
                recorded=" ".join(tokens(attempt)),
            )
        return None
    if verdict.code == "SPLIT_INVALID":
        findings.record(
            "SPLIT_INVALID",
            f"seat {seat}'s {verdict.reason}; the canonical split is used",
            PLAY,
            seat=seat,
            trick=t,
            play=0,
        )
        split = None
    elif verdict.code == "THROW_NOT_ALLOWED":
        findings.record(
            "THROW_NOT_ALLOWED",
            f"seat {seat} led {label_cards(attempt)}: {verdict.reason}",
            PLAY,
            seat=seat,
            trick=t,
            play=0,
            recorded=" ".join(tokens(attempt)),
        )
        # The follows answer the cards put down, as their units; there is no throw to check.
        answered = table.lead(lead.cards)
        replay.last_lead = answered
        return answered if answered.units else None
    elif not verdict.legal:
        findings.record(
            "LEAD_MIXED_SUITS" if verdict.code == "LEAD_MIXED_SUITS" else "WRONG_CARD_COUNT",
            f"seat {seat} led {label_cards(attempt) or 'nothing'}: {verdict.reason}",
            PLAY,
            seat=seat,
            trick=t,
            play=0,
            recorded=" ".join(tokens(attempt)),
        )
        return None
    if lead.attempted:
        absent = replay.hands[seat].missing(lead.attempted)
        if absent:
            findings.record(
                "CARD_NOT_IN_HAND",
                f"seat {seat} tried to throw {label_cards(absent)} without holding it",
                PLAY,
                seat=seat,
                trick=t,
                play=0,
                recorded=" ".join(tokens(absent)),
            )
    # The hands are still as before the lead: nothing of this trick is taken yet.
    throw = table.throw(seat, attempt, replay.hands, split)
    # The lead format that counts for the kitty (R-KITTY): after a failed throw, the forced
    # unit, whether or not the table enforced it.
    replay.last_lead = throw.lead
    accepted = False  # the table forced a unit the rule may force
    if throw.is_throw:
        # Only a throw's trick has a result beyond its leader, winner and points.
        forced: Sequence[int] = ()
        penalty = 0
        if not throw.stands:
            assert throw.forced is not None
            # Of tied units (R-THROW-FORCE-TIE) the one the table put down, when it may force it.
            accepted = bool(lead.attempted) and throw.accepts_forced(lead.cards)
            forced = lead.cards if accepted else throw.forced.cards()
            on_dealer_side = seat % 2 == replay.dealer % 2
            penalty = penalty_effect(throw.penalty, on_dealer_side)
            if throw.stake_charge:
                # One stake unit (shuangsheng: half the 底金) per failed throw, enforced or not.
                replay.computed.stake_units += 1
        stood = throw.stands and not lead.attempted
        replay.throw_results[t] = (penalty, _encoded_throw(stood, forced, penalty))
    if lead.attempted:
        return _check_enforced(replay, table, t, lead, attempt, throw, accepted)
    if throw.is_throw and not throw.stands:
        assert throw.forced is not None
        finding = findings.record(
            "THROW_NOT_ENFORCED",
            f"{throw.reason}; the table let the throw stand",
            PLAY,
            seat=seat,
            trick=t,
            play=0,
            expected=" ".join(tokens(throw.forced.cards())),
            recorded=" ".join(tokens(lead.cards)),
        )
        _add_beats(finding, throw)
        finding.evidence.details["penalty_due"] = str(throw.penalty)
    return Lead(throw.units)


def _check_enforced(
    replay: HandState,
    table: Table,
    t: int,
    lead: ReadPlay,
    attempt: Sequence[int],
    throw: ThrowVerdict,
    accepted: bool,
) -> Lead | None:
    """A throw the table forced: was it due, and was the right unit put down (R-THROW-FORCE)?

    ``accepted``: the cards put down are a unit the failed throw may force.
    """
    seat = lead.seat
    if not throw.is_throw or throw.stands:
        replay.findings.record(
            "THROW_ENFORCED_WRONGLY",
            f"the table forced seat {seat}'s throw of {label_cards(attempt)}, "
            f"but it stood: {throw.reason}",
            PLAY,
            seat=seat,
            trick=t,
            play=0,
            expected=" ".join(tokens(attempt)),
            recorded=" ".join(tokens(lead.cards)),
        )
    elif throw.forced is not None and not accepted:
        finding = replay.findings.record(
            "THROW_ENFORCED_WRONGLY",
            f"seat {seat}'s failed throw forced {label_cards(lead.cards)}; "
            + _what_is_forced(replay, throw, lead.cards),
            PLAY,
            seat=seat,
            trick=t,
            play=0,
            expected=" ".join(tokens(throw.forced.cards())),
            recorded=" ".join(tokens(lead.cards)),
            rule="R-THROW-FORCE-TIE" if _among(throw.tied, lead.cards) else "",
        )
        _add_beats(finding, throw)
    answered = table.lead(lead.cards)
    if throw.stands:
        replay.last_lead = answered
    # Nothing put down after the failed throw: no follow can answer it.
    return answered if answered.units else None


def _among(units: Sequence[Unit], cards: Sequence[int]) -> bool:
    played = sorted(cards)
    return any(sorted(unit.cards()) == played for unit in units)


def _what_is_forced(replay: HandState, throw: ThrowVerdict, cards: Sequence[int]) -> str:
    """The rule's forced unit in words: one unit, any of tied ones, or a variant's pick."""
    options = throw.forced_options
    if len(options) > 1:
        return "the rule forces one of " + ", ".join(u.label() for u in options) + " (tied)"
    assert throw.forced is not None
    text = f"the rule forces {throw.forced.label()}"
    picks = replay.ruleset.throw.forced_tie is ForcedTie.ATTEMPT_ORDER
    if picks and len(throw.tied) > 1 and _among(throw.tied, cards):
        tied = ", ".join(u.label() for u in throw.tied)
        text += (
            f": of the tied units {tied}, {replay.ruleset.id} forces the one whose top card "
            "comes first in the attempt"
        )
    return text


def _add_beats(finding: audit_pb2.Finding, throw: ThrowVerdict) -> None:
    evidence = finding.evidence
    if throw.forced is not None:
        evidence.forced_unit.extend(tokens(throw.forced.cards()))
    if len(throw.forced_options) > 1:
        evidence.details["forced_options"] = " | ".join(
            " ".join(tokens(unit.cards())) for unit in throw.forced_options
        )
    for beat in throw.beaten:
        evidence.beaten_by.add(
            seat=beat.seat, cards=tokens(beat.by.cards()), unit=tokens(beat.unit.cards())
        )


def finish_trick(
    replay: HandState,
    table: Table,
    t: int,
    trick: ReadTrick,
    answered: Lead | None,
) -> int:
    """Trick ``t`` played: every seat played once, the winner (R-WIN), points and claims.

    Its result joins ``trick_results``, encoded. Returns the winner: the seat due to lead
    the next trick.
    """
    plays = trick.plays
    claim = trick.claim
    follows: list[Sequence[int]]
    # No comprehension here reads a local of this function: one that did would make the local
    # a cell, built at every call (a trick), not only when the comprehension runs.
    if len(plays) == 4:
        # The usual trick, by hand: cheaper than a loop or a comprehension.
        lead, second, third, fourth = plays
        points = lead.points + second.points + third.points + fourth.points
        follows = [second.cards, third.cards, fourth.cards]
        size = len(lead.cards)
        whole = len(second.cards) == len(third.cards) == len(fourth.cards) == size
    else:
        # A record its source says stops early may end in a short trick: the end, not a breach.
        if not (replay.read.incomplete and t == len(replay.read.tricks) - 1 and len(plays) < 4):
            replay.findings.record(
                "WRONG_CARD_COUNT",
                f"trick {t + 1} has {len(plays)} plays; every seat plays once",
                PLAY,
                trick=t,
                expected="4",
                recorded=str(len(plays)),
            )
        points = 0
        for p in plays:
            points += p.points
        follows = [play.cards for play in plays[1:]]
        size = len(plays[0].cards)
        whole = False
    if answered is None:
        # No follow can match a lead that has no legal shape; the claim (if any) decides.
        index = 0
        if claim is not None and claim.winner is not None:
            index = _claimed_play(plays, claim.winner)
    elif whole:
        index = trick_winner(table.context, answered.units, follows)
    else:
        index = _winner_of_size(table, answered, follows, size)
    winner = plays[index].seat
    # Only a trick led with a throw has a penalty (``_check_lead``): most hands have none.
    throws = replay.throw_results
    throw = throws.get(t) if throws else None
    penalty = 0 if throw is None else throw[0]
    replay.trick_results.append(
        _COMMON_RESULTS[trick.leader << 9 | winner << 7 | points]
        if throw is None and points < 128
        else _encoded_result(trick.leader, winner, points, b"" if throw is None else throw[1])
    )
    if winner % 2 != replay.dealer % 2:
        replay.defenders_points += points
    replay.defenders_points += penalty
    # Most claims name the winner, points and penalty found: nothing to record.
    if claim is not None and (
        claim.winner != winner or claim.points != points or claim.penalty != abs(penalty)
    ):
        _check_trick_claim(replay, t, trick, claim, plays[index].cards, winner, points, penalty)
    if replay.want_steps:
        replay.play_index = None
        replay.current = []
        replay.snapshot(PLAY)
    return winner


def _claimed_play(plays: Sequence[ReadPlay], seat: int) -> int:
    """The index of ``seat``'s play in the trick (0 when it made none)."""
    return next((i for i, play in enumerate(plays) if play.seat == seat), 0)


def _winner_of_size(table: Table, answered: Lead, follows: list[Sequence[int]], size: int) -> int:
    """The winning play's index (0 for the lead) when some follow has another number of cards
    than the lead's ``size``: such a play cannot win."""
    eligible = [i for i, cards in enumerate(follows, 1) if len(cards) == size]
    won = trick_winner(table.context, answered.units, [follows[i - 1] for i in eligible])
    return eligible[won - 1] if won else 0


def _check_trick_claim(
    replay: HandState,
    t: int,
    trick: ReadTrick,
    claim: TrickClaims,
    winning: Sequence[int],
    winner: int,
    points: int,
    penalty: int,
) -> None:
    """The table's claims on a trick: its winner, its points and the throw penalty."""
    findings = replay.findings
    if claim.winner is not None and claim.winner != winner:
        findings.record(
            "TRICK_WINNER_MISMATCH",
            f"trick {t + 1} was claimed for seat {claim.winner}; seat {winner} won it "
            f"with {label_cards(winning)}",
            PLAY,
            trick=t,
            seat=claim.winner,
            expected=str(winner),
            recorded=str(claim.winner),
        )
    if claim.points is not None and claim.points != points:
        findings.record(
            "TRICK_POINTS_MISMATCH",
            f"trick {t + 1} holds {points} points; {claim.points} were claimed",
            PLAY,
            trick=t,
            expected=str(points),
            recorded=str(claim.points),
        )
    due = abs(penalty)
    if claim.penalty is not None and claim.penalty != due:
        findings.record(
            "PENALTY_MISMATCH",
            f"the throw penalty in trick {t + 1} is {due}; {claim.penalty} was claimed",
            PLAY,
            trick=t,
            seat=trick.leader,
            expected=str(due),
            recorded=str(claim.penalty),
        )
