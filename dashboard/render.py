"""HTML of the replay page: the table with four seats and the trick, the finding panel, the
bidding and kitty strip. Pure functions of a ``ReplayView`` and a step index."""

from __future__ import annotations

from html import escape

from chaodipi.dashboard.cards import SEAT_AREAS, cards_html
from chaodipi.dashboard.stepping import BID_KINDS, SEVERITIES, SUIT_TEXT, ReplayView, card_tokens
from chaodipi.v1 import audit_pb2

SIDE_CLASS = {"dealer": "dealer", "dealer side": "dealer", "defender": "defender"}
SEVERITY_CLASS = {
    audit_pb2.SEVERITY_BREACH: "",
    audit_pb2.SEVERITY_SCORING_ERROR: "scoring",
    audit_pb2.SEVERITY_WARNING: "warning",
}
# Where each seat's play sits in the 3x3 trick grid (row, column), matching the seat areas.
TRICK_CELLS = {0: (4, 2), 1: (3, 3), 2: (2, 2), 3: (3, 1)}


def _seat_html(view: ReplayView, index: int, seat: int, trumps: frozenset[str]) -> str:
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
    badges = [f'<span class="cdp-badge">seat {seat}</span>']
    if info.side:
        badges.append(f'<span class="cdp-badge {SIDE_CLASS[info.side]}">{escape(info.side)}</span>')
    if info.level:
        badges.append(f'<span class="cdp-badge">level {escape(info.level)}</span>')
    badges.append(f'<span class="cdp-badge">{len(hand)} cards</span>')
    if flagged:
        badges.append('<span class="cdp-badge breach">finding</span>')
    return (
        f'<div class="{" ".join(classes)}" style="grid-area:{SEAT_AREAS[seat]}" '
        f'data-seat="{seat}"><h4>{escape(info.name)} {"".join(badges)}</h4>'
        f"{cards_html(hand, trumps=trumps, marks=held, css='cdp-hand')}</div>"
    )


def _trick_html(view: ReplayView, index: int, trumps: frozenset[str]) -> str:
    trick, plays = view.trick_plays(index)
    winner = view.trick_winner(index)
    marks = view.marks(index)
    flagged = {
        f.position.seat
        for f in view.step_findings(index)
        if f.position.HasField("seat") and f.position.HasField("play")
    }
    if trick is None:
        caption = view.step_text(index)
    else:
        caption = f"Trick {trick + 1}"
        if winner is not None:
            points = view.audit.computed.tricks[trick].points
            caption += f": won by {view.seats[winner].name} ({points} points)"
    cells = [f'<div class="cap">{escape(caption)}</div>']
    for seat, cards in plays:
        row, column = TRICK_CELLS.get(seat, (4, 2))
        css = "cdp-play" + (" bad" if seat in flagged else " win" if seat == winner else "")
        seat_marks = marks.get(seat)
        offence = {"offence": seat_marks.offence} if seat_marks else None
        cells.append(
            f'<div class="{css}" style="grid-row:{row};grid-column:{column}">'
            f"{cards_html(cards, trumps=trumps, marks=offence)}"
            f"<span>{escape(view.seats[seat].name)}</span></div>"
        )
    if not plays:
        cells.append('<div style="grid-row:3;grid-column:2;opacity:.8">no cards on the table</div>')
    return f'<div class="cdp-center">{"".join(cells)}</div>'


def table_html(view: ReplayView, index: int) -> str:
    """The table at a step: four seats around the trick being played."""
    trumps = view.trumps(index)
    seats = "".join(_seat_html(view, index, seat, trumps) for seat in range(4))
    return f'<div class="cdp-table">{seats}{_trick_html(view, index, trumps)}</div>'


def _evidence_cards(tokens: list[str], mark: str, trumps: frozenset[str]) -> str:
    return cards_html(tokens, trumps=trumps, marks={mark: tokens} if mark else None)


def finding_html(view: ReplayView, finding_index: int, trumps: frozenset[str]) -> str:
    """A finding (by its index in ``view.findings``) with its message and evidence, cards
    drawn as cards."""
    finding = view.findings[finding_index]
    ev = finding.evidence
    rows: list[tuple[str, str]] = []
    for label, text, mark in (("expected", ev.expected, ""), ("recorded", ev.recorded, "offence")):
        if text:
            tokens = card_tokens(text)
            rows.append((label, _evidence_cards(tokens, mark, trumps) if tokens else escape(text)))
    if ev.legal_alternative:
        alternative = _evidence_cards(list(ev.legal_alternative), "alt", trumps)
        rows.append(("legal alternative", alternative))
    beaten: dict[tuple[int, tuple[str, ...]], list[str]] = {}
    for beat in ev.beaten_by:
        beaten.setdefault((beat.seat, tuple(beat.cards)), []).extend(beat.unit)
    for (seat, cards), units in beaten.items():
        name = view.seats[seat].name if 0 <= seat < 4 else f"seat {seat}"
        rows.append(
            (
                "beaten by",
                f"{escape(name)}: {_evidence_cards(list(cards), 'beat', trumps)} over "
                f"{_evidence_cards(units, '', trumps)}",
            )
        )
    if ev.forced_unit:
        rows.append(("forced unit", _evidence_cards(list(ev.forced_unit), "", trumps)))
    for key, value in sorted(ev.details.items()):
        rows.append((key.replace("_", " "), escape(value)))
    evidence = "".join(
        f'<span class="k">{escape(k)}</span><span style="display:flex;gap:4px;align-items:center;'
        f'flex-wrap:wrap">{v}</span>'
        for k, v in rows
    )
    severity = SEVERITIES.get(finding.severity, "finding")
    rule = f" · {escape(finding.rule_id)}" if finding.rule_id else ""
    return (
        f'<div class="cdp-finding {SEVERITY_CLASS.get(finding.severity, "")}" '
        f'data-code="{escape(finding.code)}">'
        f'<div><span class="code">{escape(finding.code)}</span> · {escape(severity)}{rule}</div>'
        f'<div style="color:#555;font-size:12px">{escape(view.position_text(finding_index))}</div>'
        f'<div style="margin-top:4px">{escape(finding.message)}</div>'
        + (f'<div class="ev">{evidence}</div>' if rows else "")
        + "</div>"
    )


def info_html(view: ReplayView, index: int) -> str:
    """Trump, bidding, kitty exchanges, the kitty and the defenders' points at a step."""
    step = view.steps[index]
    trumps = view.trumps(index)
    flagged_bids = {f.position.bid_index for f in view.findings if f.position.HasField("bid_index")}
    bids = []
    for i, bid in enumerate(view.record.bids):
        chosen = (
            f" → {SUIT_TEXT.get(bid.trump_chosen, '?')}" if bid.HasField("trump_chosen") else ""
        )
        style = ' style="outline:2px solid #d32f2f;border-radius:4px"' if i in flagged_bids else ""
        bids.append(
            f'<div class="bid"{style}>'
            f"{escape(view.seats[bid.seat].name if 0 <= bid.seat < 4 else '?')}: "
            f"{escape(BID_KINDS.get(bid.kind, 'bid'))}{escape(chosen)}"
            f"{cards_html(list(bid.cards), trumps=trumps)}</div>"
        )
    exchanges = [
        f'<div class="bid">{escape(view.seats[x.seat].name if 0 <= x.seat < 4 else "?")} buried'
        f"{cards_html(list(x.buried), trumps=trumps)}</div>"
        for x in view.record.kitty_exchanges
    ]
    trump = step.trump
    level = f"level {escape(trump.level)}" if trump.level else "not yet declared"
    suit = SUIT_TEXT.get(trump.suit, "")
    red = ' style="color:#c62828"' if suit in ("♥", "♦") else ""
    parts = [
        f'<div><div class="lbl">trump</div><span style="font-size:18px"{red}>{escape(suit)}</span>'
        f" {level}</div>",
        f'<div><div class="lbl">defenders so far</div><span style="font-size:18px;'
        f'font-weight:700">{step.defenders_points_so_far}</span> points</div>',
        f'<div><div class="lbl">bidding</div>{"".join(bids) or "no bids recorded"}</div>',
        f'<div><div class="lbl">kitty now</div>{cards_html(list(step.kitty), trumps=trumps)}</div>',
    ]
    if exchanges:
        parts.append(f'<div><div class="lbl">kitty exchanges</div>{"".join(exchanges)}</div>')
    return f'<div class="cdp-info">{"".join(parts)}</div>'
