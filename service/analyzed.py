"""``AnalyzeGame``: a stored hand's end solved, as the service answers it (analysis, not findings).

The analysis runs where audits run: in the audit worker processes (``analyze_serialized``,
which stops once the call's flag is raised or its deadline passes, as ``audit_serialized``
does) or, without workers, in the audit threads (``analyze_record``, stopped by the call's
``Budget.spent``). A hand that is stopped, or that hits the solver's node budget, answers
``analysed: false`` with the reason: never a guess.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from chaodipi.auditor.analysis import HandAnalysis, analyse_game
from chaodipi.service import ingest
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

MAX_WINDOW = 13
"""The largest window a request may ask for: a hand of 13 tricks or more is 2 decks' half."""


def analysis_message(analysis: HandAnalysis) -> service_pb2.AnalyzeGameResponse:
    """The analysis as the service answers it (the caller sets ``name``)."""
    response = service_pb2.AnalyzeGameResponse(
        analysed=analysis.analysed,
        reason=analysis.reason,
        window=analysis.window,
        first_trick=analysis.first_trick,
        points_before=analysis.points_before,
        perfect=analysis.perfect,
        actual=analysis.actual,
        nodes=analysis.nodes,
    )
    if not analysis.analysed:
        return response
    for play in analysis.plays:
        response.plays.add(
            trick=play.trick,
            play=play.play,
            seat=play.seat,
            cards=play.cards,
            defender=play.defender,
            value=play.value,
            best_value=play.best_value,
            cost=play.cost,
            best=play.best,
            line=[audit_pb2.PlayedCards(seat=seat, cards=cards) for seat, cards in play.line],
        )
    note = analysis.kitty
    if note is not None:
        response.kitty.CopyFrom(
            service_pb2.KittyNote(
                kind=note.kind,
                trick=note.trick,
                play=note.play,
                seat=note.seat,
                cards=note.cards,
                text=note.text(),
            )
        )
    response.lost_by_seat.extend(analysis.lost_by_seat())
    return response


def analyze_record(
    record: records_pb2.GameRecord, window: int, spent: Callable[[], bool]
) -> service_pb2.AnalyzeGameResponse:
    """Analyse a stored hand in this process until ``spent`` (0: the default window)."""
    return analysis_message(analyse_game(record, window=window or None, stopped=spent))


def analyze_serialized(
    record: bytes, window: int, slot: int = -1, deadline: float | None = None
) -> bytes:
    """``analyze_record`` in an audit worker process, on serialized messages: it stops once
    the call's flag (``slot``) is raised or the ``deadline`` (``time.time()``) passes."""

    def stopped() -> bool:
        flags = ingest.worker_flags()
        raised = slot >= 0 and flags is not None and bool(flags[slot])
        return raised or (deadline is not None and time.time() >= deadline)

    game = records_pb2.GameRecord.FromString(record)
    return analyze_record(game, window, stopped).SerializeToString()
