"""Players: what a player asks of their statistics, side by side with a second player, and how
it moved over time. Totals and per-period sums come from the database (the read model's
``player_summaries`` and ``player_trend``), so a chart has one point per period, not per hand,
however many games are stored. The choice lives in the URL (``?player=&vs=&period=``)."""

from datetime import timedelta
from html import escape
from urllib.parse import urlencode

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from chaodipi.dashboard import data, ui
from chaodipi.dashboard.i18n import Lang, t
from chaodipi.service.readmodel import ENDGAME_HANDS, TREND_PERIODS, PlayerSummary, TrendRow

COLOURS = ["#1e5631", "#c62828"]
PERIODS = ("auto", *TREND_PERIODS)
ROLLING = 4  # periods the rolling mean spans (weighted by hands)

lang = ui.lang()
st.title(t(lang, "players.title"))
if not ui.require_data(lang):
    st.stop()

summaries = {s.player_id: s for s in data.summaries()}
if not summaries:
    st.info(t(lang, "players.none"))
    st.stop()
names = {pid: s.display_name or pid for pid, s in summaries.items()}
ranked = sorted(summaries, key=lambda pid: (-summaries[pid].hands, pid))

# The widget keys are the URL's parameters: a link sets them, the page writes them back.
ui.from_url(
    "players",
    {
        "player": lambda text: text if text in summaries else ranked[0],
        "vs": lambda text: text if text in summaries else None,
        "period": lambda text: text if text in PERIODS else "auto",
    },
)
if st.session_state.get("vs") == st.session_state.get("player"):
    st.session_state["vs"] = None
pick = st.columns([1, 1, 1.4])
first = pick[0].selectbox(
    t(lang, "players.pick"), ranked, format_func=names.__getitem__, key="player"
)
second = pick[1].selectbox(
    t(lang, "players.compare"),
    [p for p in ranked if p != first],
    index=None,
    placeholder=t(lang, "players.nobody"),
    format_func=names.__getitem__,
    key="vs",
)
period_choice = pick[2].segmented_control(
    t(lang, "players.period"),
    PERIODS,
    format_func=lambda p: t(lang, f"players.period_{p}"),
    key="period",
)
ui.to_url(
    "players",
    {
        "player": first,
        "vs": second or "",
        "period": period_choice if period_choice and period_choice != "auto" else "",
    },
)
chosen = [p for p in (first, second) if p]


def auto_period(players: list[PlayerSummary]) -> str:
    """Days for up to three weeks of play, weeks up to half a year, else months: at most
    about 26 points a line."""
    starts = [p.first_played for p in players if p.first_played]
    ends = [p.last_played for p in players if p.last_played]
    span = (max(ends) - min(starts)) if starts and ends else timedelta(0)
    if span <= timedelta(days=21):
        return "day"
    return "week" if span <= timedelta(days=183) else "month"


period = (
    period_choice if period_choice in TREND_PERIODS else auto_period([summaries[p] for p in chosen])
)


def pct(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else t(lang, "common.none")


def rate(part: int, whole: int, current: Lang) -> str:
    if not whole:
        return t(current, "common.none")
    return t(current, "players.rate", pct=pct(part, whole), won=part, of=whole)


def per(total: int, count: int) -> str:
    return f"{total / count:.1f}" if count else t(lang, "common.none")


def summary_rows(s: PlayerSummary) -> list[tuple[str, str]]:
    """The summary of one player: (label, value) pairs, every value text."""
    per_match = (
        t(lang, "players.per_match_value", value=f"{s.match_levels / s.matches:+.1f}", n=s.matches)
        if s.matches
        else t(lang, "players.no_matches")
    )
    return [
        (t(lang, "players.hands"), str(s.hands)),
        (t(lang, "players.as_dealer"), rate(s.dealer_wins, s.dealer_decided, lang)),
        (t(lang, "players.as_defender"), rate(s.defender_wins, s.defender_decided, lang)),
        (t(lang, "players.team_points"), per(s.team_points_defending, s.defender_hands)),
        (t(lang, "players.own_points"), per(s.own_points_defending, s.defender_hands)),
        (t(lang, "players.throws"), rate(s.throws_stood, s.throws_tried, lang)),
        (
            t(lang, "players.kou_di"),
            t(lang, "players.kou_value", n=s.kou_di_count, points=s.kou_di_points),
        ),
        (
            t(lang, "players.levels"),
            t(lang, "players.levels_value", gained=s.levels_gained, conceded=s.levels_conceded),
        ),
        (t(lang, "players.per_match"), per_match),
        (t(lang, "players.breaches"), per(100 * s.breaches, s.hands)),
    ]


st.subheader(t(lang, "players.summary"))
columns = {pid: summary_rows(summaries[pid]) for pid in chosen}
head = "<th></th>" + "".join(
    f'<th style="color:{COLOURS[i]}">{escape(names[pid])}</th>' for i, pid in enumerate(chosen)
)
body = "".join(
    f"<tr><td>{escape(label)}</td>"
    + "".join(f'<td class="num">{escape(columns[pid][n][1])}</td>' for pid in chosen)
    + "</tr>"
    for n, (label, _) in enumerate(columns[first])
)
st.html(
    f'<table class="cdp-games cdp-summary"><thead><tr>{head}</tr></thead>'
    f"<tbody>{body}</tbody></table>"
)

with st.expander(t(lang, "players.endgame_heading")):
    st.write(t(lang, "players.endgame_about", n=ENDGAME_HANDS))
    if st.button(t(lang, "players.endgame_go"), key="endgames"):
        st.session_state["endgame-losses"] = {pid: data.endgame_losses(pid) for pid in chosen}
    losses = st.session_state.get("endgame-losses") or {}
    for pid in chosen:
        if pid in losses:
            loss = losses[pid]
            value = (
                t(lang, "common.none")
                if loss.per_hand is None
                else t(lang, "players.endgame_value", points=f"{loss.per_hand:.1f}", n=loss.hands)
            )
            skipped = t(lang, "players.endgame_skipped", n=loss.not_analysed)
            st.markdown(f"- {escape(names[pid])}: {escape(value)}{escape(skipped)}")

st.subheader(t(lang, "players.trend_heading", period=t(lang, f"players.period_{period}")))
st.caption(t(lang, "players.rolling", n=ROLLING))
trends = {pid: data.trend(pid, period) for pid in chosen}


def rolling(rows: list[TrendRow], part: str, whole: str) -> list[float | None]:
    """``part / whole`` over the last ``ROLLING`` periods at each period (None before any)."""
    out: list[float | None] = []
    for n in range(len(rows)):
        window = rows[max(0, n - ROLLING + 1) : n + 1]
        top = sum(getattr(r, part) for r in window)
        bottom = sum(getattr(r, whole) for r in window)
        out.append(top / bottom if bottom else None)
    return out


layout = {
    "height": 320,
    "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
    "legend": {"orientation": "h", "y": -0.3},
}


def line_chart(
    title: str,
    lines: list[tuple[str, str, list[str], list[float | None], str]],
    *,
    percent: bool,
    key: str,
) -> None:
    """One chart: a line per (name, colour, periods, values, dash)."""
    figure = go.Figure()
    for name, colour, periods, values, dash in lines:
        figure.add_scatter(
            x=periods,
            y=values,
            name=name,
            mode="lines+markers",
            line={"color": colour, "dash": dash},
            connectgaps=True,
        )
    figure.update_layout(title=title, **layout)
    figure.update_xaxes(type="category", title=t(lang, "players.period_axis"))
    if percent:
        figure.update_yaxes(tickformat=".0%", range=[0, 1])
    st.plotly_chart(figure, width="stretch", key=key)


left, right = st.columns(2)
with left:
    line_chart(
        t(lang, "players.trend_win"),
        [
            (
                f"{names[pid]} · {t(lang, label)}",
                COLOURS[i],
                [r.period for r in trends[pid]],
                rolling(trends[pid], wins, decided),
                dash,
            )
            for i, pid in enumerate(chosen)
            for label, wins, decided, dash in (
                ("players.as_dealer_short", "dealer_wins", "dealer_decided", "solid"),
                ("players.as_defender_short", "defender_wins", "defender_decided", "dot"),
            )
        ],
        percent=True,
        key="chart-win",
    )
    line_chart(
        t(lang, "players.trend_breaches"),
        [
            (
                names[pid],
                COLOURS[i],
                [r.period for r in trends[pid]],
                [None if v is None else 100 * v for v in rolling(trends[pid], "breaches", "hands")],
                "solid",
            )
            for i, pid in enumerate(chosen)
        ],
        percent=False,
        key="chart-breaches",
    )
with right:
    line_chart(
        t(lang, "players.trend_points"),
        [
            (
                names[pid],
                COLOURS[i],
                [r.period for r in trends[pid]],
                rolling(trends[pid], "team_points_defending", "defender_hands"),
                "solid",
            )
            for i, pid in enumerate(chosen)
        ],
        percent=False,
        key="chart-points",
    )
    levels = pd.DataFrame(
        [
            {"player": names[pid], "period": r.period, "levels": r.levels_net}
            for pid in chosen
            for r in trends[pid]
        ],
        columns=["player", "period", "levels"],
    )
    figure = px.bar(
        levels,
        x="period",
        y="levels",
        color="player",
        barmode="group",
        color_discrete_map={names[pid]: COLOURS[i] for i, pid in enumerate(chosen)},
        title=t(lang, "players.trend_levels"),
        labels={
            "period": t(lang, "players.period_axis"),
            "levels": t(lang, "players.value_axis"),
            "player": "",
        },
    )
    figure.update_layout(**layout)
    figure.update_xaxes(type="category")
    st.plotly_chart(figure, width="stretch", key="chart-levels")

breaches = pd.DataFrame(
    [
        {
            "player": names[pid],
            "code": code,
            "per 100": round(100 * count / summaries[pid].hands, 1),
        }
        for pid in chosen
        for code, count in sorted(summaries[pid].breaches_by_code.items())
    ],
    columns=["player", "code", "per 100"],
)
st.subheader(t(lang, "players.by_code"))
if breaches.empty:
    st.write(t(lang, "players.no_breaches"))
else:
    figure = px.bar(
        breaches,
        x="code",
        y="per 100",
        color="player",
        barmode="group",
        color_discrete_map={names[pid]: COLOURS[i] for i, pid in enumerate(chosen)},
        labels={
            "code": t(lang, "chart.code"),
            "per 100": t(lang, "players.breaches"),
            "player": "",
        },
    )
    figure.update_layout(**{**layout, "margin": {"l": 10, "r": 10, "t": 10, "b": 10}})
    st.plotly_chart(figure, width="stretch", key="chart-codes")

st.subheader(t(lang, "players.all"))
heads = (
    "player",
    "name",
    "hands",
    "dealer_rate",
    "defender_rate",
    "points",
    "throws",
    "kou",
    "breaches",
)
rows = []
for pid in ranked:
    s = summaries[pid]
    values = (
        pid,
        s.display_name or t(lang, "common.none"),
        str(s.hands),
        pct(s.dealer_wins, s.dealer_decided),
        pct(s.defender_wins, s.defender_decided),
        per(s.team_points_defending, s.defender_hands),
        pct(s.throws_stood, s.throws_tried),
        t(lang, "players.kou_value", n=s.kou_di_count, points=s.kou_di_points),
        per(100 * s.breaches, s.hands),
    )
    link = escape("players?" + urlencode(ui.params(lang, player=pid)))
    cells = f'<td class="wide"><a href="{link}" target="_self">{escape(values[0])}</a></td>'
    cells += "".join(
        f'<td class="{"num" if n >= 2 else "wide"}">{escape(v)}</td>'
        for n, v in enumerate(values[1:], 1)
    )
    rows.append(f"<tr>{cells}</tr>")
header = "".join(f"<th>{escape(t(lang, f'players.col_{h}'))}</th>" for h in heads)
st.html(
    f'<table class="cdp-games cdp-players"><thead><tr>{header}</tr></thead>'
    f"<tbody>{''.join(rows)}</tbody></table>"
)
