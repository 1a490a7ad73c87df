"""Games: search the stored games (record id, player, game id), filter them, page through them
with totals; each links to its replay. The search, the filters and the page live in the URL
(``?q=&ruleset=&player=&code=&dates=&state=&page=``), so a view of the list can be shared."""

from collections.abc import Callable, Iterable
from datetime import date
from html import escape

import pandas as pd
import plotly.express as px
import streamlit as st

from chaodipi.dashboard import data, explain, ui
from chaodipi.dashboard.i18n import t
from chaodipi.dashboard.stepping import SEVERITY_KEYS
from chaodipi.engine.presets import PRESETS
from chaodipi.service.readmodel import FINDING_CODES, GameFilter, GameSearch
from chaodipi.v1 import audit_pb2

SEVERITY_COLOURS = {
    audit_pb2.SEVERITY_BREACH: "#d32f2f",
    audit_pb2.SEVERITY_SCORING_ERROR: "#ef6c00",
    audit_pb2.SEVERITY_WARNING: "#0277bd",
}
PAGE_SIZE = 50
STATES = {"all": None, "clean": False, "findings": True}
STATE_KEYS = {
    "all": "games.state_all",
    "clean": "games.state_clean",
    "findings": "games.state_findings",
}

lang = ui.lang()
st.title(t(lang, "games.title"))
if not ui.require_data(lang):
    st.stop()

players = {p.player_id: f"{p.display_name or p.player_id} ({p.games})" for p in data.players()}


def first_page() -> None:
    """New filters start at their first page."""
    st.session_state["page"] = 1


def day(text: str) -> date | None:
    """A ``YYYY-MM-DD`` date of the URL (None when absent or unreadable)."""
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def days(text: str) -> list[date]:
    """The date range of the URL's ``dates`` (``2026-10-01..2026-10-05``, or one day)."""
    low, _, high = text.partition("..")
    return [d for d in (day(low), day(high) or day(low)) if d is not None] if day(low) else []


def one_of(choices: Iterable[str]) -> Callable[[str], str | None]:
    known = set(choices)
    return lambda text: text if text in known else None


# Each filter's widget key is its URL parameter; a link sets them, the page writes them back.
ui.from_url(
    "games",
    {
        "q": str,
        "ruleset": one_of(PRESETS),
        "player": one_of(players),
        "code": one_of(FINDING_CODES),
        "dates": days,
        "state": lambda text: text if text in STATES else "all",
        "page": lambda text: int(text) if text.isdigit() and int(text) > 0 else 1,
    },
)
text = st.text_input(
    t(lang, "games.search"),
    key="q",
    placeholder=t(lang, "games.search_placeholder"),
    help=t(lang, "games.search_help"),
    on_change=first_page,
)
# The filters fold away (a phone shows the list first); open while one is set.
chosen_filters = any(
    st.session_state.get(key) not in (None, "", [], (), "all")
    for key in ("ruleset", "player", "code", "dates", "state")
)
row1 = st.expander(t(lang, "games.filters"), expanded=chosen_filters).columns(
    [1, 1.3, 1.3, 1.4, 1.6]
)
ruleset = row1[0].selectbox(
    t(lang, "games.ruleset"),
    list(PRESETS),
    index=None,
    placeholder=t(lang, "games.any"),
    format_func=lambda r: explain.ruleset_text(r, lang),
    key="ruleset",
    on_change=first_page,
)
player = row1[1].selectbox(
    t(lang, "games.player"),
    list(players),
    index=None,
    placeholder=t(lang, "games.anyone"),
    format_func=players.__getitem__,
    key="player",
    on_change=first_page,
)
code = row1[2].selectbox(
    t(lang, "games.code"),
    FINDING_CODES,
    index=None,
    placeholder=t(lang, "games.any"),
    format_func=lambda c: f"{c} · {explain.finding_title(c, lang)}",
    key="code",
    on_change=first_page,
)
# A range (the URL's, else empty); typed by the stub as one date, as no default is passed.
dates: object = row1[3].date_input(t(lang, "games.dates"), key="dates", on_change=first_page)
state = row1[4].segmented_control(
    t(lang, "games.state"),
    list(STATES),
    format_func=lambda s: t(lang, STATE_KEYS[s]),
    key="state",
    on_change=first_page,
)

picked = (
    list(dates) if isinstance(dates, tuple | list) else [dates] if isinstance(dates, date) else []
)
start, end = [*picked, None, None][:2]
played_from, played_to = data.day_range(start, end or start)
filters = GameFilter(
    ruleset=ruleset,
    player_id=player,
    finding_code=code,
    played_from=played_from,
    played_to=played_to,
    with_findings=STATES.get(state or "all"),
)
# The page number sits under the table but is read first: lay the page out, then fill it in.
summary_box, table_box = st.container(), st.container()
pager = st.columns([1, 1, 1, 3], vertical_alignment="bottom")
# Page 1 of a search answers its total and page count (and is the page most often shown).
pages = data.search(GameSearch(filters, text=text.strip(), page_size=PAGE_SIZE)).pages
st.session_state["page"] = min(max(1, int(st.session_state.get("page", 1))), pages)
page_number = pager[2].number_input(t(lang, "games.page"), min_value=1, max_value=pages, key="page")
found = data.search(
    GameSearch(filters, text=text.strip(), page=int(page_number) - 1, page_size=PAGE_SIZE)
)

if found.total:
    first = found.page * PAGE_SIZE + 1
    summary_box.caption(
        t(
            lang,
            "games.count",
            total=found.total,
            page=found.page + 1,
            pages=found.pages,
            first=first,
            last=first + len(found.games) - 1,
        )
    )
else:
    summary_box.info(t(lang, "games.none"))


def cell(text: str, css: str = "") -> str:
    return f'<td class="{css}">{escape(text)}</td>' if css else f"<td>{escape(text)}</td>"


heads = ("record", "ruleset", "played", "players", "findings", "points", "result")
rows = []
for row in found.games:
    record = row.record_id + (
        f" · {t(lang, 'common.hand_n', n=row.hand_index + 1)}" if row.hand_index is not None else ""
    )
    link = escape(ui.replay_url(lang, row.game_id))
    counts = (
        t(lang, "games.findings_cell", b=row.breaches, s=row.scoring_errors, w=row.warnings)
        if row.breaches + row.scoring_errors + row.warnings
        else t(lang, "overview.clean")
    )
    codes = ", ".join(row.finding_codes)
    points = t(lang, "common.none") if row.defenders_points is None else str(row.defenders_points)
    result = (
        explain.level_text(row.level_result, lang) if row.level_result else t(lang, "common.none")
    )
    rows.append(
        "<tr>"
        f'<td class="wide"><a href="{link}" target="_self">{escape(record)}</a></td>'
        + cell(explain.ruleset_text(row.ruleset, lang), "nowrap")
        + cell(ui.played_text(row.played_at, lang))
        + cell(", ".join(p for p in row.player_ids if p) or t(lang, "common.none"), "wide")
        + f'<td class="wide">{escape(counts)}'
        + (f'<div class="codes">{escape(codes)}</div>' if codes else "")
        + "</td>"
        + cell(points, "num")
        + cell(result)
        + "</tr>"
    )
if rows:
    header = "".join(f"<th>{escape(t(lang, f'games.col_{h}'))}</th>" for h in heads)
    table_box.html(
        f'<table class="cdp-games" data-total="{found.total}"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def turn(by: int) -> None:
    st.session_state["page"] = max(1, int(st.session_state.get("page", 1)) + by)


pager[0].button(
    t(lang, "games.prev"), key="games-prev", on_click=turn, args=(-1,), disabled=found.page == 0
)
pager[1].button(
    t(lang, "games.next"),
    key="games-next",
    on_click=turn,
    args=(1,),
    disabled=found.page + 1 >= found.pages,
)

ui.to_url(
    "games",
    {
        "q": text.strip(),
        "ruleset": ruleset or "",
        "player": player or "",
        "code": code or "",
        "dates": f"{start.isoformat()}..{(end or start).isoformat()}" if start else "",
        "state": state if state and state != "all" else "",
        "page": str(found.page + 1) if found.page else "",
    },
)

st.subheader(t(lang, "games.by_code"))
counts_by_code = data.finding_counts(filters)
if counts_by_code:
    names = {sev: t(lang, key) for sev, key in SEVERITY_KEYS.items()}
    chart = pd.DataFrame(
        [
            {
                "code": c.code,
                "findings": c.count,
                "games": c.games,
                "severity": names.get(c.severity, "?"),
            }
            for c in counts_by_code
        ]
    )
    figure = px.bar(
        chart,
        x="code",
        y="findings",
        color="severity",
        hover_data=["games"],
        labels={
            "code": t(lang, "chart.code"),
            "findings": t(lang, "chart.findings"),
            "games": t(lang, "chart.games"),
            "severity": t(lang, "chart.severity"),
        },
        color_discrete_map={names[s]: colour for s, colour in SEVERITY_COLOURS.items()},
    )
    figure.update_layout(
        height=360,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"categoryorder": "total descending", "title": ""},
        legend={"orientation": "h", "y": -0.35},
    )
    st.plotly_chart(figure, width="stretch", key="games-codes")
else:
    st.write(t(lang, "games.no_findings"))
