"""Card faces as HTML: pure functions from card tokens to escaped markup with one ``<style>``.

Red suits (♥ ♦) are red, trumps carry a gold band, and three highlight classes show a finding's
evidence: ``beat`` (a card that beats a unit of a throw), ``alt`` (a legal alternative to an
illegal play) and ``offence`` (the cards the finding is about).

>>> card_html("HT", lang="en")
'<span class="cdp-card red" data-card="HT" data-suit="♥" title="♥10"><b>10</b><i>♥</i></span>'
>>> card_html("BJ", lang="zh").split(">", 1)[1]
'<b>大王</b><i>★</i></span>'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from html import escape

from chaodipi.dashboard.i18n import Lang, t
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
.cdp-card.joker.cjk b{font-size:13px;letter-spacing:1px}
.cdp-card.joker::after{font-size:12px}
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
.cdp-finding .ev span.v{display:flex;gap:4px;align-items:center;flex-wrap:wrap;min-width:0}
.cdp-finding .where{color:#555;font-size:12px;margin-top:2px}
.cdp-finding .say{margin-top:4px}
.cdp-finding .words{margin-top:4px;color:#666;font-size:12px}
.cdp-count{display:inline-flex;align-items:center;gap:1px;margin-right:4px}
.cdp-score{font-family:"DejaVu Sans",system-ui,sans-serif;font-size:13px;background:#f5f5f5;
  border-radius:8px;padding:6px 10px;margin:6px 0;max-width:100%;box-sizing:border-box}
.cdp-score table{border-collapse:collapse;margin:4px 0}
.cdp-score td{padding:1px 10px 1px 0}
.cdp-score td+td{text-align:right;font-variant-numeric:tabular-nums}
.cdp-score tr.total td{border-top:1px solid #999;font-weight:700}
.cdp-score .bad{color:#c62828;font-weight:600}
.cdp-score .lbl{font-size:11px;text-transform:uppercase;color:#666}
.cdp-legend{font-size:12px;color:#444;display:flex;gap:14px;flex-wrap:wrap;margin-top:6px;
  font-family:"DejaVu Sans",system-ui,sans-serif;align-items:center}
.cdp-legend .cdp-card{transform:scale(.7);margin:-8px -5px}
@media (max-width:640px){
  .cdp-table{grid-template-columns:minmax(0,1fr);grid-template-areas:"n" "w" "c" "e" "s";
    gap:6px;padding:6px;border-radius:8px}
  .cdp-seat{padding:4px 6px 5px}
  .cdp-seat h4{font-size:12px;margin-bottom:2px}
  .cdp-card{width:30px;height:42px;padding:2px 0 0 3px;border-radius:4px}
  .cdp-card b{font-size:12px}
  .cdp-card i{font-size:10px}
  .cdp-card::after{font-size:13px;right:3px;bottom:2px}
  .cdp-card.joker.cjk b{font-size:10px;letter-spacing:0}
  .cdp-hand{padding-left:14px;min-height:44px;row-gap:3px}
  .cdp-hand .cdp-card{margin-left:-14px}
  .cdp-center{grid-template-columns:repeat(3,minmax(0,1fr));padding:4px;font-size:11px}
  .cdp-play .cdp-row{flex-wrap:wrap;padding-left:18px}
  .cdp-play .cdp-row .cdp-card{margin-left:-18px}
  .cdp-info{gap:6px}
  .cdp-info>div{max-width:100%;box-sizing:border-box}
}
</style>"""
"""The one style block every page that shows cards puts on the page once."""

SEAT_AREAS = ("s", "e", "n", "w")
"""Grid area of each seat: seat 0 at the bottom, play order counter-clockwise."""

HIGHLIGHTS = ("beat", "alt", "offence")
CJK: dict[Lang, str] = {"zh": " cjk", "en": ""}
"""The class that sets a joker's face (大王, 小王) in Chinese characters."""


def _face(token: str, lang: Lang) -> tuple[str, str, str]:
    """Rank text, suit text and colour class of a token (unreadable tokens shown as given)."""
    upper = token.strip().upper()
    if upper == "BJ":
        return (t(lang, "card.joker_face_big"), "★", "red joker" + CJK[lang])
    if upper == "LJ":
        return (t(lang, "card.joker_face_little"), "★", "joker" + CJK[lang])
    try:
        label = card_label(parse_card(upper))
    except CardError:
        return (upper or "?", "", "")
    return label[1:], label[0], "red" if label[0] in "♥♦" else ""


def card_title(token: str, lang: Lang) -> str:
    """A readable name of a card for tooltips: ``♥10``, ``big joker`` (``大王``)."""
    upper = token.strip().upper()
    if upper == "BJ":
        return t(lang, "card.big_joker")
    if upper == "LJ":
        return t(lang, "card.little_joker")
    rank, suit, _ = _face(upper, lang)
    return suit + rank


def card_html(token: str, *, lang: Lang, trump: bool = False, mark: str = "") -> str:
    """One card face; ``mark`` is one of ``HIGHLIGHTS`` (or empty)."""
    rank, suit, colour = _face(token, lang)
    classes = ["cdp-card", *colour.split()]
    title = card_title(token, lang)
    if trump:
        classes.append("trump")
        title += f" ({t(lang, 'card.trump')})"
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
    lang: Lang,
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
        parts.append(card_html(upper, lang=lang, trump=upper in trumps, mark=mark))
    return f'<div class="{css}">{"".join(parts)}</div>'


def legend_html(lang: Lang) -> str:
    """What the card markings mean."""
    items = [
        (card_html("HA", lang=lang), t(lang, "legend.red")),
        (card_html("S2", lang=lang, trump=True), t(lang, "legend.trump")),
        (card_html("SK", lang=lang, mark="beat"), t(lang, "legend.beat")),
        (card_html("HJ", lang=lang, mark="alt"), t(lang, "legend.alt")),
        (card_html("D9", lang=lang, mark="offence"), t(lang, "legend.offence")),
    ]
    return (
        '<div class="cdp-legend">'
        + "".join(f"<span>{card} {escape(text)}</span>" for card, text in items)
        + "</div>"
    )
