"""Card faces as HTML: pure functions from card tokens to escaped markup with one ``<style>``.

Red suits (♥ ♦) are red, trumps carry a gold band, and three highlight classes show a finding's
evidence: ``beat`` (a card that beats a unit of a throw), ``alt`` (a legal alternative to an
illegal play) and ``offence`` (the cards the finding is about).

>>> card_html("HT")
'<span class="cdp-card red" data-card="HT" data-suit="♥" title="♥10"><b>10</b><i>♥</i></span>'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from html import escape

from chaodipi.engine.cards import CardError, card_label, parse_card

STYLE = """<style>
.cdp-hand{display:flex;flex-wrap:wrap;row-gap:6px;padding:2px 0 2px 14px;min-height:54px}
.cdp-hand .cdp-card{margin-left:-14px}
.cdp-card{position:relative;display:inline-flex;flex-direction:column;align-items:flex-start;
  width:40px;height:56px;padding:3px 0 0 4px;box-sizing:border-box;border:1px solid #a8a8a8;
  border-radius:6px;background:#fff;color:#1b1b1b;font-family:"DejaVu Sans",system-ui,sans-serif;
  box-shadow:1px 1px 2px rgba(0,0,0,.25);line-height:1;vertical-align:top;
  transition:transform .1s}
.cdp-card:hover{transform:translateY(-5px);z-index:5}
.cdp-card b{font-size:14px;font-weight:700;letter-spacing:-1px}
.cdp-card i{font-style:normal;font-size:13px;margin-top:1px}
.cdp-card::after{content:attr(data-suit);position:absolute;right:4px;bottom:3px;font-size:19px}
.cdp-card.red{color:#c62828}
.cdp-card.joker b{font-size:9px;writing-mode:vertical-lr;letter-spacing:0}
.cdp-card.joker i{display:none}
.cdp-card.trump{background:linear-gradient(#fff 72%,#ffe082 72%);border-color:#c9a227}
.cdp-card.beat{outline:3px solid #2e7d32;outline-offset:-1px;z-index:2;
  box-shadow:0 0 7px 2px rgba(46,125,50,.6)}
.cdp-card.alt{outline:3px dashed #1565c0;outline-offset:-1px;z-index:2;
  box-shadow:0 0 7px 2px rgba(21,101,192,.5)}
.cdp-card.offence{outline:3px solid #d32f2f;outline-offset:-1px;z-index:2;
  box-shadow:0 0 8px 2px rgba(211,47,47,.6)}
.cdp-row{display:flex;flex-wrap:wrap;gap:3px;align-items:flex-start}
.cdp-table{display:grid;grid-template-columns:1fr minmax(250px,1.1fr) 1fr;gap:10px;
  grid-template-areas:"n n n" "w c e" "s s s";background:#1e5631;border-radius:12px;
  padding:12px;font-family:"DejaVu Sans",system-ui,sans-serif}
.cdp-seat{background:rgba(255,255,255,.93);border-radius:8px;padding:6px 8px 8px;min-width:0}
.cdp-seat.to-play{box-shadow:0 0 0 3px #ffd54f}
.cdp-seat.flagged{box-shadow:0 0 0 3px #d32f2f}
.cdp-seat h4{margin:0 0 4px;font-size:14px;font-weight:600;display:flex;gap:6px;
  align-items:center;flex-wrap:wrap;color:#222;padding:0}
.cdp-badge{font-size:11px;font-weight:600;border-radius:9px;padding:1px 7px;background:#eceff1;
  color:#37474f}
.cdp-badge.dealer{background:#ffe082;color:#5d4300}
.cdp-badge.defender{background:#bbdefb;color:#0d3c61}
.cdp-badge.breach{background:#ffcdd2;color:#8e0000}
.cdp-center{grid-area:c;background:rgba(0,0,0,.18);border-radius:8px;padding:8px;color:#fff;
  display:grid;grid-template-columns:1fr 1fr 1fr;grid-template-rows:auto auto auto auto;
  gap:4px;align-items:center;justify-items:center;font-size:12px}
.cdp-center .cap{grid-column:1/4;font-weight:600;text-align:center}
.cdp-play{display:flex;flex-direction:column;align-items:center;gap:2px;padding:3px;
  border-radius:6px}
.cdp-play.win{background:rgba(255,213,79,.35)}
.cdp-play.bad{background:rgba(211,47,47,.55)}
.cdp-play .cdp-row{flex-wrap:nowrap;padding-left:16px}
.cdp-play .cdp-row .cdp-card{margin-left:-16px}
.cdp-info{display:flex;flex-wrap:wrap;gap:14px;margin:8px 0;font-size:13px;
  font-family:"DejaVu Sans",system-ui,sans-serif;align-items:flex-start}
.cdp-info>div{background:#f5f5f5;border-radius:8px;padding:6px 8px}
.cdp-info .bid{display:flex;gap:6px;align-items:center;margin-bottom:3px}
.cdp-info .lbl{font-size:11px;text-transform:uppercase;color:#666;margin-bottom:3px}
.cdp-finding{border-left:5px solid #d32f2f;background:#fff5f5;border-radius:6px;padding:8px 10px;
  margin-bottom:8px;font-family:"DejaVu Sans",system-ui,sans-serif;font-size:13px;color:#222}
.cdp-finding.scoring{border-color:#ef6c00;background:#fff8f0}
.cdp-finding.warning{border-color:#0277bd;background:#f2f8fc}
.cdp-finding .code{font-weight:700;font-family:"DejaVu Sans Mono",monospace}
.cdp-finding .ev{margin-top:6px;display:grid;grid-template-columns:auto 1fr;gap:4px 8px;
  align-items:center}
.cdp-finding .ev span.k{font-size:11px;color:#555;text-transform:uppercase}
.cdp-legend{font-size:12px;color:#444;display:flex;gap:14px;flex-wrap:wrap;margin-top:6px;
  font-family:"DejaVu Sans",system-ui,sans-serif;align-items:center}
.cdp-legend .cdp-card{transform:scale(.7);margin:-8px -5px}
</style>"""
"""The one style block every page that shows cards puts on the page once."""

SEAT_AREAS = ("s", "e", "n", "w")
"""Grid area of each seat: seat 0 at the bottom, play order counter-clockwise."""

HIGHLIGHTS = ("beat", "alt", "offence")


def _face(token: str) -> tuple[str, str, str]:
    """Rank text, suit text and colour class of a token (unreadable tokens shown as given)."""
    upper = token.strip().upper()
    if upper in ("BJ", "LJ"):
        return ("JOKER", "★", "red joker" if upper == "BJ" else "joker")
    try:
        label = card_label(parse_card(upper))
    except CardError:
        return (upper or "?", "", "")
    return label[1:], label[0], "red" if label[0] in "♥♦" else ""


def card_title(token: str) -> str:
    """A readable name of a card for tooltips: ``♥10``, ``big joker``."""
    upper = token.strip().upper()
    if upper == "BJ":
        return "big joker"
    if upper == "LJ":
        return "little joker"
    rank, suit, _ = _face(upper)
    return suit + rank


def card_html(token: str, *, trump: bool = False, mark: str = "") -> str:
    """One card face; ``mark`` is one of ``HIGHLIGHTS`` (or empty)."""
    rank, suit, colour = _face(token)
    classes = ["cdp-card", *colour.split()]
    title = card_title(token)
    if trump:
        classes.append("trump")
        title += " (trump)"
    if mark in HIGHLIGHTS:
        classes.append(mark)
    return (
        f'<span class="{" ".join(classes)}" data-card="{escape(token.strip().upper())}" '
        f'data-suit="{escape(suit)}" title="{escape(title)}"><b>{escape(rank)}</b>'
        f"<i>{escape(suit)}</i></span>"
    )


def cards_html(
    tokens: Iterable[str],
    *,
    trumps: Collection[str] = (),
    marks: Mapping[str, Sequence[str]] | None = None,
    css: str = "cdp-row",
) -> str:
    """A row of card faces; ``marks`` maps a highlight class to the tokens it applies to (each
    listed token marks one copy, so a pair marked once shows one highlighted card)."""
    left: dict[str, Counter[str]] = {
        mark: Counter(t.upper() for t in wanted) for mark, wanted in (marks or {}).items()
    }
    parts = []
    for token in tokens:
        upper = token.strip().upper()
        mark = ""
        for name in HIGHLIGHTS:
            if left.get(name, Counter())[upper] > 0:
                left[name][upper] -= 1
                mark = name
                break
        parts.append(card_html(upper, trump=upper in trumps, mark=mark))
    return f'<div class="{css}">{"".join(parts)}</div>'


def legend_html() -> str:
    """What the card markings mean."""
    items = [
        (card_html("HA"), "red suits"),
        (card_html("S2", trump=True), "trump"),
        (card_html("SK", mark="beat"), "beats the throw"),
        (card_html("HJ", mark="alt"), "legal alternative"),
        (card_html("D9", mark="offence"), "the play in breach"),
    ]
    return (
        '<div class="cdp-legend">'
        + "".join(f"<span>{card} {escape(text)}</span>" for card, text in items)
        + "</div>"
    )
