"""Players: statistics computed by the database, charted, and two players compared."""

import pandas as pd
import plotly.express as px
import streamlit as st

from chaodipi.dashboard import data, ui
from chaodipi.engine.cards import RANK_LETTERS
from chaodipi.service.readmodel import PlayerStatsRow

COLOURS = ["#1e5631", "#c62828"]

st.title("Players")
if not ui.require_data():
    st.stop()

stats = {row.player_id: row for row in data.player_stats()}
names = {pid: row.display_name or pid for pid, row in stats.items()}
ranked = sorted(stats, key=lambda pid: -stats[pid].games)
pick = st.columns(2)
first = pick[0].selectbox("Player", ranked, format_func=names.__getitem__, key="player-a")
second = pick[1].selectbox(
    "Compare with",
    [p for p in ranked if p != first],
    index=None,
    placeholder="nobody",
    format_func=names.__getitem__,
    key="player-b",
)
chosen = [p for p in (first, second) if p]


def per_100(row: PlayerStatsRow, count: int) -> float:
    """``count`` per 100 hands of the player."""
    return round(100 * count / row.games, 1) if row.games else 0.0


def throw_rate(row: PlayerStatsRow) -> float | None:
    """Share of the player's throws that stood (None without throws)."""
    return row.throws_stood / row.throws_tried if row.throws_tried else None


histories = {pid: data.history(pid) for pid in chosen}
summary = pd.DataFrame(
    {
        names[pid]: {
            "hands": stats[pid].games,
            "as dealer side / defending": f"{stats[pid].hands_as_dealer_side} / "
            f"{stats[pid].hands_as_defenders}",
            "win rate": f"{stats[pid].win_rate:.0%}",
            "breaches per 100 hands": per_100(
                stats[pid], sum(stats[pid].breaches_by_code.values())
            ),
            "throws stood / tried": f"{stats[pid].throws_stood} / {stats[pid].throws_tried}",
            "points taken as defender (per defending hand)": round(
                sum(h.points_as_defender for h in histories[pid])
                / max(1, sum(h.side == "defender" for h in histories[pid])),
                1,
            ),
            "kitty captures (kou di) / points": f"{stats[pid].kou_di_count} / "
            f"{stats[pid].kou_di_points}",
            "levels gained / conceded": f"+{stats[pid].levels_gained} / "
            f"-{stats[pid].levels_conceded}",
        }
        for pid in chosen
    }
)
st.dataframe(summary, width="stretch", key="players-summary")

colour_map = {names[pid]: COLOURS[i] for i, pid in enumerate(chosen)}
layout = {
    "height": 300,
    "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
    "legend": {"orientation": "h", "y": -0.3},
}
left, right = st.columns(2)
with left:
    breaches = pd.DataFrame(
        [
            {"player": names[pid], "code": code, "per 100 hands": per_100(stats[pid], count)}
            for pid in chosen
            for code, count in sorted(stats[pid].breaches_by_code.items())
        ],
        columns=["player", "code", "per 100 hands"],
    )
    figure = px.bar(
        breaches,
        x="code",
        y="per 100 hands",
        color="player",
        barmode="group",
        color_discrete_map=colour_map,
        title="Breaches per 100 hands, by code",
    )
    figure.update_layout(**layout)
    st.plotly_chart(figure, width="stretch", key="chart-breaches")

    throws = pd.DataFrame(
        [
            {
                "player": names[pid],
                "throws that stood": throw_rate(stats[pid]) or 0.0,
                "label": f"{stats[pid].throws_stood} of {stats[pid].throws_tried}",
            }
            for pid in chosen
        ]
    )
    figure = px.bar(
        throws,
        x="player",
        y="throws that stood",
        color="player",
        text="label",
        color_discrete_map=colour_map,
        title="Throw success rate",
        range_y=[0, 1],
    )
    figure.update_layout(**layout, showlegend=False, yaxis_tickformat=".0%")
    st.plotly_chart(figure, width="stretch", key="chart-throws")
with right:
    defending = pd.DataFrame(
        [
            {"player": names[pid], "hand": n + 1, "points": h.points_as_defender}
            for pid in chosen
            for n, h in enumerate(h for h in histories[pid] if h.side == "defender")
        ],
        columns=["player", "hand", "points"],
    )
    figure = px.bar(
        defending,
        x="hand",
        y="points",
        color="player",
        barmode="group",
        color_discrete_map=colour_map,
        title="Points taken as defender, hand by hand",
    )
    figure.update_layout(**layout)
    st.plotly_chart(figure, width="stretch", key="chart-defending")

    kou_di = pd.DataFrame(
        [
            {"player": names[pid], "what": what, "value": value}
            for pid in chosen
            for what, value in (
                ("captures", stats[pid].kou_di_count),
                ("bonus points", stats[pid].kou_di_points),
            )
        ]
    )
    figure = px.bar(
        kou_di,
        x="what",
        y="value",
        color="player",
        barmode="group",
        color_discrete_map=colour_map,
        title="Kitty captures (kou di): times and bonus points",
    )
    figure.update_layout(**layout)
    st.plotly_chart(figure, width="stretch", key="chart-kou-di")

levels = pd.DataFrame(
    [
        {
            "player": names[pid],
            "played": h.played_at,
            "level": RANK_LETTERS.index(h.level_after) + 2,
            "change": f"{h.levels:+d} ({h.side})",
        }
        for pid in chosen
        for h in histories[pid]
        if h.level_after and h.played_at
    ],
    columns=["player", "played", "level", "change"],
)
figure = px.line(
    levels,
    x="played",
    y="level",
    color="player",
    markers=True,
    line_shape="hv",
    hover_data=["change"],
    color_discrete_map=colour_map,
    title="Team level after each hand, over time",
)
figure.update_layout(
    **layout,
    yaxis={
        "tickvals": list(range(2, 15)),
        "ticktext": [r.replace("T", "10") for r in RANK_LETTERS],
    },
)
st.plotly_chart(figure, width="stretch", key="chart-levels")

st.subheader("All players")
st.dataframe(
    pd.DataFrame(
        [
            {
                "player": row.player_id,
                "name": row.display_name,
                "hands": row.games,
                "win rate": row.win_rate,
                "breaches /100": per_100(row, sum(row.breaches_by_code.values())),
                "throws stood": throw_rate(row),
                "points taken": row.points_taken,
                "kou di": row.kou_di_count,
                "levels +": row.levels_gained,
                "levels -": row.levels_conceded,
            }
            for row in stats.values()
        ]
    ),
    hide_index=True,
    width="stretch",
    key="players-all",
    column_config={
        "win rate": st.column_config.NumberColumn(format="percent"),
        "throws stood": st.column_config.NumberColumn(format="percent"),
    },
)
