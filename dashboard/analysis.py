"""The replay's endgame analysis: each play's cost, the best play and its line, in both languages.

The analysis comes from the read model (``StoredGame.analyse``: the auditor's endgame solver);
the texts are the dashboard's own, so a Chinese page shows no English.
"""

from __future__ import annotations

from html import escape

from chaodipi.dashboard.cards import cards_html
from chaodipi.dashboard.explain import seat_name
from chaodipi.dashboard.i18n import Lang, t
from chaodipi.dashboard.stepping import ReplayView
from chaodipi.service.readmodel import HandAnalysis

NOT_ANALYSED = {
    "unreadable": "analysis.not_unreadable",
    "unsupported": "analysis.not_unsupported",
    "breach": "analysis.not_breach",
    "budget": "analysis.not_budget",
}
"""The sentence for each reason a hand is not analysed (``HandAnalysis.why``)."""

KITTY_NOTES = {"missed": "analysis.kitty_missed", "gave_away": "analysis.kitty_gave_away"}


def analysis_html(view: ReplayView, analysis: HandAnalysis, lang: Lang) -> str:
    """The analysis as a table of plays, with its summary, the kitty note and the losses."""
    if not analysis.analysed:
        return f'<p class="cdp-analysis">{escape(t(lang, NOT_ANALYSED[analysis.why]))}</p>'
    first = analysis.first_trick + 1
    summary = t(
        lang,
        "analysis.summary",
        first=first,
        last=analysis.first_trick + len({play.trick for play in analysis.plays}),
        before=analysis.points_before,
        actual=analysis.actual,
        perfect=analysis.perfect,
        nodes=f"{analysis.nodes:,}",
    )
    head = "".join(
        f"<th>{escape(t(lang, key))}</th>"
        for key in (
            "analysis.where",
            "analysis.player",
            "analysis.played",
            "analysis.cost",
            "analysis.best",
            "analysis.line",
        )
    )
    rows = []
    for play in analysis.plays:
        line = " ".join(
            f"<span>{escape(seat_name(view, seat, lang))}</span>{cards_html(cards, lang=lang)}"
            for seat, cards in play.line
        )
        where = f"{play.trick + 1}.{play.play + 1}"
        css = ' class="costly"' if play.cost else ""
        rows.append(
            f"<tr{css}><td>{escape(where)}</td><td>{escape(seat_name(view, play.seat, lang))}</td>"
            f"<td>{cards_html(play.cards, lang=lang)}</td><td>{play.cost}</td>"
            f"<td>{cards_html(play.best, lang=lang) if play.cost else ''}</td><td>{line}</td></tr>"
        )
    parts = [
        f"<p>{escape(summary)}</p>",
        f'<table class="cdp-games cdp-analysis"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>",
    ]
    note = analysis.kitty
    if note is not None:
        text = t(
            lang,
            KITTY_NOTES[note.kind],
            player=seat_name(view, note.seat, lang),
            cards=" ".join(note.cards),
            trick=note.trick + 1,
            play=note.play + 1,
        )
        parts.append(f"<p><b>{escape(text)}</b></p>")
    seats = ", ".join(
        f"{seat_name(view, seat, lang)} {lost}" for seat, lost in enumerate(analysis.lost_by_seat())
    )
    parts.append(f"<p>{escape(t(lang, 'analysis.lost', seats=seats))}</p>")
    return "".join(parts)
