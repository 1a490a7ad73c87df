"""What each play of a hand's end cost: the double-dummy solver run over the last tricks.

A complete record knows every hand, so the last ``window`` tricks can be solved exactly
(``engine.solver``). Each play there gets its cost: the points its side lost against the
side's best play at that moment (0 for a best play), with the best play and its line. A
"missed 抠底" / "gave away 抠底" note names the costly play after which perfect play no
longer reached the kitty outcome it reached at the window's start.

Costs are analysis, not findings: they never enter the audit's breach counts. A hand is
not analysed (and says why) when the record cannot be replayed, when the audit found a
breach in the window, or when the search hits its node budget: never guessed.

>>> from chaodipi.auditor.generate import generate_hand
>>> analysis = analyse_game(generate_hand("classic", seed=3), window=2)
>>> analysis.analysed, len(analysis.plays)
(True, 8)
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from types import MappingProxyType

from chaodipi.auditor.audit import replay_hand
from chaodipi.auditor.reading import ReadTrick, read_game
from chaodipi.auditor.wire import SUITS_BY_PROTO, tokens
from chaodipi.engine import Table, Unit, parse_cards
from chaodipi.engine.solver import BudgetExceeded, Endgame, Play, Position, Solver
from chaodipi.v1 import audit_pb2, records_pb2

WINDOWS: Mapping[str, int] = MappingProxyType(
    {"classic": 5, "shuangsheng": 4, "anhui": 5, "changshu": 4}
)
"""Tricks analysed at a hand's end by default, per ruleset: the largest window whose analysis
takes at most 1 s of CPU at the 95th percentile over generated hands of that ruleset
(bench/analysis.py; figures in docs/benchmarks.md)."""


def default_window(ruleset_id: str) -> int:
    """The window a hand of ``ruleset_id`` is analysed over when none is asked for.

    A ruleset not measured (a record's own id) gets the smallest window measured.

    >>> default_window("anhui"), default_window("house-rules")
    (5, 4)
    """
    return WINDOWS.get(ruleset_id, min(WINDOWS.values()))


BUDGET = 60_000
"""Positions one hand's analysis may visit before it stops, not analysed (a few CPU seconds)."""


@dataclass(frozen=True, slots=True)
class PlayCost:
    """One play in the window: what was played, what it cost its side, and the best instead.

    ``value`` is the defenders' final points under perfect play after this play (throw
    penalty included); ``best_value`` the same after the side's best play. ``cost`` is
    the difference as the player's side counts it. ``best`` and ``line`` are empty for a
    best play; otherwise ``line`` goes from the best play to the end of the hand, as
    (seat, cards) pairs.
    """

    trick: int
    play: int
    seat: int
    cards: tuple[str, ...]
    defender: bool
    value: int
    best_value: int
    cost: int
    best: tuple[str, ...] = ()
    line: tuple[tuple[int, tuple[str, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class KittyNote:
    """The play that settled the kitty (抠底) against the other side's perfect play."""

    kind: str  # "missed" (a defender's play lost it) or "gave_away" (a dealer-side play)
    trick: int
    play: int
    seat: int
    cards: tuple[str, ...]

    def text(self) -> str:
        """The note in words: ``gave away 抠底: seat 2's ♠A (trick 24, play 3)``."""
        what = "missed 抠底" if self.kind == "missed" else "gave away 抠底"
        where = f"trick {self.trick + 1}, play {self.play + 1}"
        return f"{what}: seat {self.seat}'s {' '.join(self.cards)} ({where})"


@dataclass(slots=True)
class HandAnalysis:
    """One hand's end analysed, or why it was not (``reason``)."""

    record_id: str
    ruleset: str
    window: int
    analysed: bool = False
    reason: str = ""
    why: str = ""  # "unreadable", "unsupported", "breach", "budget" when not analysed
    first_trick: int = 0
    dealer: int = 0
    points_before: int = 0  # the defenders' points when the window starts
    perfect: int = 0  # their final points under perfect play from there
    actual: int = 0  # their final points as played (in the window's terms)
    nodes: int = 0
    plays: list[PlayCost] = field(default_factory=list)
    kitty: KittyNote | None = None

    def as_dict(self) -> dict[str, object]:
        """The analysis as JSON-ready values: every field, the kitty note's text, the losses."""
        data = asdict(self)
        data["lost_by_seat"] = self.lost_by_seat()
        if self.kitty is not None:
            data["kitty"] = {**asdict(self.kitty), "text": self.kitty.text()}
        return data

    def lost_by_seat(self) -> list[int]:
        """The points each seat's plays cost its side in the window."""
        lost = [0, 0, 0, 0]
        for play in self.plays:
            lost[play.seat] += play.cost
        return lost


def analyse_game(
    record: records_pb2.GameRecord,
    *,
    window: int | None = None,
    budget: int = BUDGET,
    stopped: Callable[[], bool] | None = None,
) -> HandAnalysis:
    """Analyse the last ``window`` tricks of a hand (its ruleset's ``default_window`` when None).

    Never raises on a bad record: a hand that cannot be analysed says why. ``stopped`` is
    asked as the search goes (a service call's deadline): once true, the hand is not analysed.
    """
    analysis = HandAnalysis(record.record_id, record.ruleset, window or 0)
    read = read_game(record)
    if isinstance(read, list):
        analysis.why = "unreadable"
        analysis.reason = "the record cannot be replayed: " + "; ".join(v.description for v in read)
        return analysis
    if read.unsupported or read.incomplete:
        analysis.why, analysis.reason = "unsupported", read.unsupported or read.incomplete
        return analysis
    window = analysis.window = window or default_window(read.ruleset.id)
    report = replay_hand(read, steps=True)
    tricks = read.tricks
    start = max(len(tricks) - window, 0)
    analysis.first_trick = start
    breach = _breach(report, start)
    if breach:
        analysis.why, analysis.reason = "breach", breach
        return analysis
    steps = report.steps
    # The state the window starts from: the step just before its first trick's lead.
    first = next((i for i, s in enumerate(steps) if s.HasField("trick") and s.trick >= start), 0)
    if not first:
        analysis.why, analysis.reason = "unsupported", "the hand has no trick played to analyse"
        return analysis
    state = steps[first - 1]
    hands = [parse_cards(list(hand.cards)) for hand in state.hands]
    window_cards = sum(len(play.cards) for trick in tricks[start:] for play in trick.plays)
    if len({len(h) for h in hands}) != 1 or window_cards != sum(map(len, hands)):
        analysis.why, analysis.reason = "breach", "the hands do not hold the window's cards"
        return analysis
    computed = report.computed
    table = Table(read.ruleset, computed.trump.level, SUITS_BY_PROTO[computed.trump.suit])
    game = Endgame(table, computed.dealer, tuple(parse_cards(list(state.kitty))))
    analysis.dealer = computed.dealer
    analysis.points_before = state.defenders_points_so_far
    with _collector_paused():
        solver = Solver(game, budget, stopped)
        try:
            _annotate(analysis, solver, read.tricks[start:], computed.tricks[start:], hands)
            analysis.analysed = True
        except BudgetExceeded as stop:
            # Nothing the search found before it stopped is reported: how far it got depends
            # on the order it searched in, and a value of a hand not analysed would read as a
            # result.
            analysis.plays.clear()
            analysis.kitty = None
            analysis.perfect = analysis.actual = 0
            analysis.why, analysis.reason = "budget", str(stop)
        analysis.nodes = solver.nodes
        # Its tables freed now, not walked by the collector's first pass once it is back.
        del solver
    return analysis


_pauses = 0
_resume = False
_pauses_lock = threading.Lock()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a search runs, as it was after.

    A search makes no reference cycles (what it drops, reference counts free) but grows
    tables of tens of thousands of objects, which every full collection walks again: about
    a sixth of a heavy hand's CPU time. Counted across threads (the dashboard analyses in
    its own): the collector comes back when the last search ends, if it was on before the
    first began.
    """
    global _pauses, _resume
    with _pauses_lock:
        if not _pauses:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses -= 1
            if not _pauses and _resume:
                gc.enable()


def _breach(report: audit_pb2.AuditReport, start: int) -> str:
    """Why a hand's end cannot be searched: a breach in the window, or cards gone astray."""
    for finding in report.findings:
        where = finding.position
        in_window = where.HasField("trick") and where.trick >= start
        if in_window or finding.code == "CARD_NOT_IN_HAND":
            return f"a breach in the window ({finding.code}): {finding.message}"
    return ""


def _annotate(
    analysis: HandAnalysis,
    solver: Solver,
    tricks: Sequence[ReadTrick],
    results: Sequence[audit_pb2.TrickResult],
    hands: list[list[int]],
) -> None:
    table = solver.game.table
    first = analysis.first_trick
    # The plays as made, each with the position before it, its penalty, the position after
    # and the points it settled: no search yet.
    moves: list[tuple[int, int, Position, Play, int, Position, int]] = []
    position = Position.start(hands, leader=results[0].leader)
    for t, (trick, result) in enumerate(zip(tricks, results, strict=True)):
        for p, read_play in enumerate(trick.plays):
            units: tuple[Unit, ...] = ()
            if p == 0:
                # The lead the others answered: a failed throw's forced unit, or as split.
                split = None if read_play.attempted else trick.declared_split
                units = table.lead(tuple(read_play.cards), split).units
            play = Play(read_play.seat, tuple(read_play.cards), units)
            penalty = result.penalty if p == 0 else 0
            child, gained = solver.after(position, play)
            moves.append((first + t, p, position, play, penalty, child, gained))
            position = child
    # The value of each position on the record's line, from its end back to the window's
    # start. Each is guessed as the next one's plus what its play settled: where the play was
    # a best one, that is its value. That sum is also a bound no probe need prove again: the
    # position's value is at least it after a defender's play, at most after a dealer-side
    # one. Searched first, the positions near the end are small, and the bounds they prove
    # stay for the positions before them, which contain them. The window's start, valued
    # last, climbs from 0 (or from its lead's value when a defender leads): guessed from a
    # line with a costly play of the dealer's side, it would start above its value, whence
    # probes that fail come down five points at a time, each of them costly.
    futures = [0] * len(moves) + [solver.value(moves[-1][5], 0)]
    for i in range(len(moves) - 1, -1, -1):
        _, _, position, play, penalty, _, gained = moves[i]
        played = gained + penalty + futures[i + 1]
        known = solver.bounds_after(position, play, played)
        futures[i] = solver.value(position, played if i else 0, known)
    points = analysis.points_before
    analysis.perfect = points + futures[0]
    for i, (trick_index, p, position, play, penalty, _, gained) in enumerate(moves):
        seat = play.seat
        best_future, future = futures[i], futures[i + 1]
        actual = gained + penalty + future
        defender = solver.game.defends(seat)
        lost = (best_future - actual) if defender else (actual - best_future)
        best: tuple[str, ...] = ()
        line: tuple[tuple[int, tuple[str, ...]], ...] = ()
        if lost > 0:
            best_play, best_line = _best_line(solver, position, best_future)
            best = tuple(tokens(best_play.cards))
            line = tuple((step.seat, tuple(tokens(step.cards))) for step in best_line)
        analysis.plays.append(
            PlayCost(
                trick=trick_index,
                play=p,
                seat=seat,
                cards=tuple(tokens(play.cards)),
                defender=defender,
                value=points + actual,
                best_value=points + best_future,
                cost=max(lost, 0),
                best=best,
                line=line,
            )
        )
        points += gained + penalty
    analysis.actual = points
    took = solver.game.defends(results[-1].winner)
    analysis.kitty = _kitty_note(analysis, solver, [m[2] for m in moves], futures, took)


def _best_line(solver: Solver, position: Position, target: int) -> tuple[Play, list[Play]]:
    """The first searched play reaching ``target`` and a line of perfect play from it."""
    play, child, gained = solver.best_play(position, target)
    return play, [play, *solver.line(child, target - gained)]


def _kitty_on_line(solver: Solver, position: Position, value: int) -> bool:
    """Whether a defender wins the last trick on a line of perfect play from ``position``
    (whose value is ``value``)."""
    winner = -1
    for play in solver.line(position, value):
        position, _ = solver.after(position, play)
        if not position.plays:
            winner = position.leader
    return winner >= 0 and solver.game.defends(winner)


def _kitty_note(
    analysis: HandAnalysis,
    solver: Solver,
    positions: list[Position],
    values: list[int],
    took: bool,
) -> KittyNote | None:
    """The last costly play after which perfect play reached the kitty outcome the hand had.

    Perfect play from just before a play takes the kitty or not. Where the play made was a
    best one, perfect play from there goes on as the hand went; from just before a costly
    play, it is the line ``Solver.line`` finds. So the outcome can change at a costly play
    only, and a line is walked from a costly play only (latest first, from the positions'
    ``values`` found before). A defender's play that turned it away is "missed", a
    dealer-side play that turned it to the defenders "gave away"; a play that turned it the
    player's own way is no note.
    """
    costly = [j for j, play in enumerate(analysis.plays) if play.cost > 0]
    walked: dict[int, bool] = {}

    def kitty_from(j: int) -> bool:
        # The first costly play from j on decides; past the last one the hand went as played.
        c = next((c for c in costly if c >= j), None)
        if c is None:
            return took
        if c not in walked:
            walked[c] = _kitty_on_line(solver, positions[c], values[c])
        return walked[c]

    if kitty_from(0) == took:
        return None
    for j in reversed(costly):
        play = analysis.plays[j]
        if play.defender == took:
            continue
        if kitty_from(j + 1) == took and kitty_from(j) != took:
            kind = "missed" if play.defender else "gave_away"
            return KittyNote(kind, play.trick, play.play, play.seat, play.cards)
    return None
