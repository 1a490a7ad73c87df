"""HTML of the replay page: the table with four seats and the trick, the finding panel, the
bidding and kitty strip, the score's make-up. Pure functions of a ``ReplayView``, a step index
and the language; every piece of record text is escaped."""

from __future__ import annotations

from collections import Counter
from html import escape

from chaodipi.dashboard import explain
from chaodipi.dashboard.cards import SEAT_AREAS, cards_html
from chaodipi.dashboard.i18n import Lang, t
from chaodipi.dashboard.stepping import (
    BID_KEYS,
    SEVERITY_KEYS,
    SUIT_SYMBOLS,
    ReplayView,
    card_tokens,
)
from chaodipi.v1 import audit_pb2

SIDE_CLASS = {"dealer": "dealer", "dealer side": "dealer", "defender": "defender"}
SIDE_KEYS = {
    "dealer": "side.dealer",
    "dealer side": "side.dealer_side",
    "defender": "side.defender",
}
SEVERITY_CLASS = {
    audit_pb2.SEVERITY_BREACH: "",
    audit_pb2.SEVERITY_SCORING_ERROR: "scoring",
    audit_pb2.SEVERITY_WARNING: "warning",
}
# Where each seat's play sits in the 3x3 trick grid (row, column), matching the seat areas.
TRICK_CELLS = {0: (4, 2), 1: (3, 3), 2: (2, 2), 3: (3, 1)}
DEAL_KINDS_SHOWN = 24
"""Card kinds a deal's difference shows before the rest is summed up (a skeleton record
misses the whole deck)."""


def _seat_html(view: ReplayView, index: int, seat: int, trumps: frozenset[str], lang: Lang) -> str:
    info = view.seats[seat]
    step = view.steps[index]
    hand = list(step.hands[seat].cards) if seat < len(step.hands) else []
    marks = view.marks(index).get(seat)
    held = marks.as_dict() if marks else None
    flagged = any(
        f.position.HasField("seat") and f.position.seat == seat for f in view.step_findings(index)
    )
    classes = ["cdp-seat"]
    if flagged:
        classes.append("flagged")
    elif view.to_play(index) == seat:
        classes.append("to-play")
    badges = [f'<span class="cdp-badge">{escape(t(lang, "seat.n", seat=seat))}</span>']
    if info.side:
        side = t(lang, SIDE_KEYS[info.side])
        badges.append(f'<span class="cdp-badge {SIDE_CLASS[info.side]}">{escape(side)}</span>')
    if info.level:
        badges.append(
            f'<span class="cdp-badge">{escape(t(lang, "seat.level", level=info.level))}</span>'
        )
    badges.append(f'<span class="cdp-badge">{escape(t(lang, "seat.cards", n=len(hand)))}</span>')
    if flagged:
        badges.append(f'<span class="cdp-badge breach">{escape(t(lang, "seat.finding"))}</span>')
    name = explain.seat_name(view, seat, lang)
    return (
        f'<div class="{" ".join(classes)}" style="grid-area:{SEAT_AREAS[seat]}" '
        f'data-seat="{seat}"><h4>{escape(name)} {"".join(badges)}</h4>'
        f"{cards_html(hand, lang=lang, trumps=trumps, marks=held, css='cdp-hand')}</div>"
    )


def _trick_html(view: ReplayView, index: int, trumps: frozenset[str], lang: Lang) -> str:
    trick, plays = view.trick_plays(index)
    winner = view.trick_winner(index)
    marks = view.marks(index)
    flagged = {
        f.position.seat
        for f in view.step_findings(index)
        if f.position.HasField("seat") and f.position.HasField("play")
    }
    if trick is None:
        caption = explain.step_caption(view, index, lang)
    elif winner is not None:
        points = view.audit.computed.tricks[trick].points
        name = explain.seat_name(view, winner, lang)
        caption = t(lang, "replay.won_by", trick=trick + 1, name=name, points=points)
    else:
        caption = t(lang, "replay.trick_caption", trick=trick + 1)
    cells = [f'<div class="cap">{escape(caption)}</div>']
    for seat, cards in plays:
        row, column = TRICK_CELLS.get(seat, (4, 2))
        css = "cdp-play" + (" bad" if seat in flagged else " win" if seat == winner else "")
        seat_marks = marks.get(seat)
        offence = {"offence": seat_marks.offence} if seat_marks else None
        cells.append(
            f'<div class="{css}" style="grid-row:{row};grid-column:{column}" data-seat="{seat}">'
            f"{cards_html(cards, lang=lang, trumps=trumps, marks=offence)}"
            f"<span>{escape(explain.seat_name(view, seat, lang))}</span></div>"
        )
    if not plays:
        cells.append(
            '<div style="grid-row:3;grid-column:2;opacity:.8">'
            f"{escape(t(lang, 'replay.no_cards'))}</div>"
        )
    return f'<div class="cdp-center">{"".join(cells)}</div>'


def table_html(view: ReplayView, index: int, lang: Lang) -> str:
    """The table at a step: four seats around the trick being played."""
    trumps = view.trumps(index)
    seats = "".join(_seat_html(view, index, seat, trumps, lang) for seat in range(4))
    return (
        f'<div class="cdp-table" data-step="{index + 1}">'
        f"{seats}{_trick_html(view, index, trumps, lang)}</div>"
    )


def _evidence_cards(tokens: list[str], mark: str, trumps: frozenset[str], lang: Lang) -> str:
    return cards_html(tokens, lang=lang, trumps=trumps, marks={mark: tokens} if mark else None)


def _counted_cards(tokens: list[str], trumps: frozenset[str], lang: Lang) -> str:
    """Cards grouped by kind with their count (``♠2 ×3``); after ``DEAL_KINDS_SHOWN`` kinds,
    how many more kinds there are."""
    counts = Counter(tokens)
    shown = list(counts.items())[:DEAL_KINDS_SHOWN]
    parts = [
        f'<span class="cdp-count">{cards_html([token], lang=lang, trumps=trumps)}'
        + (f"×{n}" if n > 1 else "")
        + "</span>"
        for token, n in shown
    ]
    if len(counts) > DEAL_KINDS_SHOWN:
        more = t(lang, "ev.more_cards", n=len(counts) - DEAL_KINDS_SHOWN)
        parts.append(f"<span>{escape(more)}</span>")
    return f'<span class="cdp-row">{"".join(parts)}</span>'


def _evidence_rows(
    view: ReplayView, finding: audit_pb2.Finding, trumps: frozenset[str], lang: Lang
) -> list[tuple[str, str]]:
    """Labelled rows of a finding's evidence: cards drawn as cards, seats as players."""
    ev = finding.evidence
    rows: list[tuple[str, str]] = []
    difference = explain.deal_difference(ev.recorded) if finding.code == "DEAL_INVALID" else None
    if difference is not None:
        for key, named, count in (
            ("ev.extra", difference.extra, difference.extra_count),
            ("ev.missing", difference.missing, difference.missing_count),
        ):
            if named:
                rows.append((t(lang, key), _counted_cards(named, trumps, lang)))
            elif count:  # too many to name: the auditor counted them
                rows.append((t(lang, key), escape(explain.count_text(count, lang))))
    else:
        for key, text, mark in (
            ("ev.expected", ev.expected, ""),
            ("ev.recorded", ev.recorded, "offence"),
        ):
            if not text:
                continue
            tokens = card_tokens(text)
            shown = (
                _evidence_cards(tokens, mark, trumps, lang)
                if tokens
                else escape(explain.value_text(view, finding.code, text, lang))
            )
            rows.append((t(lang, key), shown))
    if ev.legal_alternative:
        rows.append(
            (t(lang, "ev.alt"), _evidence_cards(list(ev.legal_alternative), "alt", trumps, lang))
        )
    beaten: dict[tuple[int, tuple[str, ...]], list[str]] = {}
    for beat in ev.beaten_by:
        beaten.setdefault((beat.seat, tuple(beat.cards)), []).extend(beat.unit)
    for (seat, cards), units in beaten.items():
        rows.append(
            (
                t(lang, "ev.beaten_by"),
                f"{escape(explain.seat_name(view, seat, lang))}: "
                f"{_evidence_cards(list(cards), 'beat', trumps, lang)} "
                f"{escape(t(lang, 'ev.over'))} "
                f"{_evidence_cards(units, '', trumps, lang)}",
            )
        )
    if ev.forced_unit:
        rows.append((t(lang, "ev.forced"), _evidence_cards(list(ev.forced_unit), "", trumps, lang)))
    options = explain.forced_options(ev)
    if options:
        shown = " ".join(_evidence_cards(unit, "", trumps, lang) for unit in options)
        rows.append((t(lang, "ev.forced_options"), shown))
    for key, value in sorted(ev.details.items()):
        if key == "penalty_due":
            rows.append((t(lang, "ev.penalty_due"), escape(t(lang, "replay.points", n=value))))
        elif key != "forced_options" or not options:
            rows.append((t(lang, "ev.detail"), escape(value)))
    return rows


def finding_html(view: ReplayView, finding_index: int, trumps: frozenset[str], lang: Lang) -> str:
    """A finding (by its index in ``view.findings``): its title, where it stands, what it says
    (naming the players) and its evidence, cards drawn as cards. In English the auditor's own
    sentence follows, which may say more."""
    finding = view.findings[finding_index]
    rows = _evidence_rows(view, finding, trumps, lang)
    evidence = "".join(
        f'<span class="k">{escape(k)}</span><span class="v">{v}</span>' for k, v in rows
    )
    severity = t(lang, SEVERITY_KEYS.get(finding.severity, "severity.warning"))
    title = explain.finding_title(finding.code, lang)
    rule = f' · <span class="rule">{escape(finding.rule_id)}</span>' if finding.rule_id else ""
    words = ""
    if lang == "en" and finding.message:
        said = t(lang, "f.auditor_words", message=finding.message)
        words = f'<div class="words">{escape(said)}</div>'
    return (
        f'<div class="cdp-finding {SEVERITY_CLASS.get(finding.severity, "")}" '
        f'data-code="{escape(finding.code)}" data-index="{finding_index}">'
        f"<div><b>{escape(title)}</b> · {escape(severity)}{rule}</div>"
        f'<div class="where"><span class="code">{escape(finding.code)}</span> · '
        f"{escape(explain.position_text(view, finding, lang))}</div>"
        f'<div class="say">{escape(explain.finding_sentence(view, finding, lang))}</div>'
        + words
        + (f'<div class="ev">{evidence}</div>' if rows else "")
        + "</div>"
    )


def info_html(view: ReplayView, index: int, lang: Lang) -> str:
    """Trump, bidding, kitty exchanges, the kitty and the defenders' points at a step."""
    step = view.steps[index]
    trumps = view.trumps(index)
    flagged_bids = {f.position.bid_index for f in view.findings if f.position.HasField("bid_index")}
    bids = []
    for i, bid in enumerate(view.record.bids):
        chosen = ""
        if bid.HasField("trump_chosen"):
            chosen = " → " + SUIT_SYMBOLS.get(bid.trump_chosen, t(lang, "suit.none"))
        style = ' style="outline:2px solid #d32f2f;border-radius:4px"' if i in flagged_bids else ""
        bids.append(
            f'<div class="bid"{style}>'
            f"{escape(explain.seat_name(view, bid.seat, lang))}: "
            f"{escape(t(lang, BID_KEYS.get(bid.kind, 'bid.bid')))}{escape(chosen)}"
            f"{cards_html(list(bid.cards), lang=lang, trumps=trumps)}</div>"
        )
    exchanges = [
        '<div class="bid">'
        f"{escape(t(lang, 'replay.buried', name=explain.seat_name(view, x.seat, lang)))}"
        f"{cards_html(list(x.buried), lang=lang, trumps=trumps)}</div>"
        for x in view.record.kitty_exchanges
    ]
    trump = step.trump
    suit = SUIT_SYMBOLS.get(trump.suit, "")
    red = ' style="color:#c62828"' if suit in ("♥", "♦") else ""
    trump_words = explain.trump_text(trump, lang) if trump.level else t(lang, "replay.not_declared")
    points = t(lang, "replay.points", n=step.defenders_points_so_far)
    parts = [
        f'<div><div class="lbl">{escape(t(lang, "replay.info_trump"))}</div>'
        f'<span style="font-size:18px"{red}>{escape(suit)}</span> {escape(trump_words)}</div>',
        f'<div><div class="lbl">{escape(t(lang, "replay.info_points"))}</div>'
        f'<span style="font-size:18px;font-weight:700">{escape(points)}</span></div>',
        f'<div><div class="lbl">{escape(t(lang, "replay.info_bidding"))}</div>'
        f"{''.join(bids) or escape(t(lang, 'replay.no_bids'))}</div>",
        f'<div><div class="lbl">{escape(t(lang, "replay.info_kitty"))}</div>'
        f"{cards_html(list(step.kitty), lang=lang, trumps=trumps)}</div>",
    ]
    if exchanges:
        parts.append(
            f'<div><div class="lbl">{escape(t(lang, "replay.info_exchanges"))}</div>'
            f"{''.join(exchanges)}</div>"
        )
    return f'<div class="cdp-info">{"".join(parts)}</div>'


def score_html(view: ReplayView, lang: Lang) -> str:
    """How the defenders' total is made up, line by line, with the table's claim and the level
    change; a note when the hand was not scored."""
    parts = explain.score_parts(view)
    if parts is None:
        return f'<div class="cdp-score">{escape(t(lang, "score.not_scored"))}</div>'
    lines = [(t(lang, "score.tricks"), parts.tricks)]
    if parts.penalties:
        lines.append((t(lang, "score.penalties"), parts.penalties))
    if parts.kitty_multiplier:
        kitty = t(lang, "score.kitty", points=parts.kitty_points, multiplier=parts.kitty_multiplier)
        lines.append((kitty, parts.kitty_bonus))
    else:
        lines.append((t(lang, "score.kitty_none"), 0))
    if parts.last_trick:
        lines.append((t(lang, "score.last_trick"), parts.last_trick))
    body = "".join(
        f"<tr><td>{escape(label)}</td><td>{value:+d}</td></tr>" for label, value in lines
    )
    total = (
        f'<tr class="total"><td>{escape(t(lang, "score.total"))}</td><td>{parts.total}</td></tr>'
    )
    notes = []
    if parts.claimed is not None:
        css = "ok" if parts.claimed == parts.total else "bad"
        notes.append(
            f'<div class="{css}">{escape(t(lang, "score.claimed", n=parts.claimed))}</div>'
        )
    computed = view.audit.computed
    if computed.HasField("level_result"):
        result = explain.result_text(computed.level_result, lang)
        notes.append(f"<div>{escape(t(lang, 'score.result', result=result))}</div>")
    else:  # a scored hand without a level result: the ruleset's table gives match points
        notes.append(f"<div>{escape(t(lang, 'score.match_points'))}</div>")
    return (
        f'<div class="cdp-score"><div class="lbl">{escape(t(lang, "score.heading"))}</div>'
        f"<table>{body}{total}</table>{''.join(notes)}</div>"
    )
