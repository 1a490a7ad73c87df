"""Games: the stored games, filtered, each linking to its replay; findings counted by code."""

import pandas as pd
import plotly.express as px
import streamlit as st

from chaodipi.dashboard import data, ui
from chaodipi.dashboard.stepping import SEVERITIES
from chaodipi.engine.presets import BUILTIN
from chaodipi.service.readmodel import FINDING_CODES, GameFilter

PAGE_SIZE = 100
STATES = {"all": None, "clean": False, "with findings": True}

st.title("Games")
if not ui.require_data():
    st.stop()

players = {p.player_id: f"{p.display_name or p.player_id} ({p.games})" for p in data.players()}
row1 = st.columns([1, 1.3, 1.3, 1.4, 1.6])
ruleset = row1[0].selectbox("Ruleset", BUILTIN, index=None, placeholder="any", key="f-ruleset")
player = row1[1].selectbox(
    "Player",
    list(players),
    index=None,
    placeholder="anyone",
    format_func=players.__getitem__,
    key="f-player",
)
code = row1[2].selectbox("Finding code", FINDING_CODES, index=None, placeholder="any", key="f-code")
dates = row1[3].date_input("Played between", value=[], key="f-dates")  # a range, none picked
state = row1[4].segmented_control("Games", list(STATES), default="all", key="f-state")

start, end = (*dates, None, None)[:2] if isinstance(dates, tuple) else (dates, dates)
played_from, played_to = data.day_range(start, end or start)
filters = GameFilter(
    ruleset=ruleset,
    player_id=player,
    finding_code=code,
    played_from=played_from,
    played_to=played_to,
    with_findings=STATES.get(state or "all"),
)

# Page tokens of the pages already seen, so "previous" can go back; reset when filters change.
if st.session_state.get("games-filters") != filters:
    st.session_state["games-filters"] = filters
    st.session_state["games-tokens"] = [""]
tokens: list[str] = st.session_state["games-tokens"]
page = data.games(filters, page_size=PAGE_SIZE, page_token=tokens[-1])

first = (len(tokens) - 1) * PAGE_SIZE
st.caption(
    f"{page.total} games match; showing {first + 1 if page.games else 0}–"
    f"{first + len(page.games)}, newest stored first. Click a game to open its replay."
)
frame = pd.DataFrame(
    [
        {
            "replay": ui.replay_url(row.game_id),
            "record": row.record_id
            + (f" (hand {row.hand_index + 1})" if row.hand_index is not None else ""),
            "ruleset": row.ruleset,
            "played": row.played_at,
            "players": ", ".join(p for p in row.player_ids if p),
            "breaches": row.breaches,
            "scoring errors": row.scoring_errors,
            "warnings": row.warnings,
            "codes": ", ".join(row.finding_codes),
            "defenders": row.defenders_points,
            "result": row.level_result,
        }
        for row in page.games
    ]
)
selection = st.dataframe(
    frame,
    hide_index=True,
    width="stretch",
    key="games-table",
    on_select="rerun",
    selection_mode="single-row",
    column_config={
        "replay": st.column_config.LinkColumn("replay", display_text="open ▶", width="small"),
        "played": st.column_config.DatetimeColumn("played", format="YYYY-MM-DD HH:mm"),
        "breaches": st.column_config.NumberColumn("breaches", width="small"),
    },
)
chosen = selection.selection.rows if selection is not None else []
if chosen:
    st.switch_page(ui.REPLAY_PAGE, query_params={"game": page.games[chosen[0]].game_id})

pager = st.columns([1, 1, 6])
if pager[0].button("◀ Previous", disabled=len(tokens) == 1, key="games-prev"):
    tokens.pop()
    st.rerun()
if pager[1].button("Next ▶", disabled=not page.next_page_token, key="games-next"):
    tokens.append(page.next_page_token)
    st.rerun()

st.subheader("Findings by code")
counts = data.finding_counts(filters)
if counts:
    chart = pd.DataFrame(
        [
            {
                "code": c.code,
                "findings": c.count,
                "games": c.games,
                "severity": SEVERITIES.get(c.severity, "?"),
            }
            for c in counts
        ]
    )
    figure = px.bar(
        chart,
        x="code",
        y="findings",
        color="severity",
        hover_data=["games"],
        color_discrete_map={"breach": "#d32f2f", "scoring error": "#ef6c00", "warning": "#0277bd"},
    )
    figure.update_layout(
        height=360,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"categoryorder": "total descending", "title": ""},
    )
    st.plotly_chart(figure, width="stretch", key="games-codes")
else:
    st.write("No findings in the games selected.")
