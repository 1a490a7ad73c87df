"""Overview: what the database holds; on an empty database, an offer to load sample games."""

import plotly.express as px
import streamlit as st

from chaodipi.dashboard import data, ui
from chaodipi.dashboard.stepping import SEVERITIES
from chaodipi.service.readmodel import GameFilter
from chaodipi.service.samples import load_samples
from chaodipi.v1 import audit_pb2

st.title("Chao Di Pi audits")
st.caption(f"Database: `{data.database_url()}`")

page = data.games(page_size=8)
if not page.total:
    st.subheader("The database is empty")
    st.write(
        "Nothing has been stored yet. Load a set of generated sample games (hands of every "
        "ruleset and two matches, about one in five with a planted rule breach) to see the "
        "dashboard at work, or upload your own records."
    )
    if st.button(
        "Load sample games", type="primary", icon=":material/auto_awesome:", key="load-samples"
    ):
        with st.spinner("Generating, auditing and storing sample games…"):
            result = load_samples(data.model())
        data.changed()
        st.session_state["samples-loaded"] = result.stored
        st.rerun()
    st.page_link(ui.UPLOAD_PAGE, label="Upload records instead", icon=":material/upload:")
    st.stop()

if st.session_state.pop("samples-loaded", None):
    st.success("Sample games loaded: open one with findings below and step to its breach.")

flagged = data.games(GameFilter(with_findings=True), page_size=6)
counts = data.finding_counts()
columns = st.columns(4)
columns[0].metric("Games", page.total)
columns[1].metric("With findings", flagged.total)
breaches = sum(c.count for c in counts if c.severity == audit_pb2.SEVERITY_BREACH)
columns[2].metric("Breaches", breaches)
columns[3].metric("Players", len(data.players()))

left, right = st.columns([1, 1])
with left:
    st.subheader("Games with findings")
    for row in flagged.games:
        st.page_link(
            ui.REPLAY_PAGE,
            label=ui.game_label(row),
            icon=":material/warning:",
            query_params={"game": row.game_id},
        )
    if not flagged.games:
        st.write("Every stored game is clean.")
    st.subheader("Latest games")
    for row in page.games[:5]:
        st.page_link(
            ui.REPLAY_PAGE,
            label=ui.game_label(row),
            icon=":material/style:",
            query_params={"game": row.game_id},
        )
with right:
    st.subheader("Findings by code")
    if counts:
        figure = px.bar(
            x=[c.count for c in counts],
            y=[c.code for c in counts],
            orientation="h",
            color=[SEVERITIES.get(c.severity, "?") for c in counts],
            color_discrete_map={
                "breach": "#d32f2f",
                "scoring error": "#ef6c00",
                "warning": "#0277bd",
            },
            labels={"x": "findings", "y": "", "color": "severity"},
        )
        figure.update_layout(
            height=80 + 28 * len(counts),
            margin={"l": 0, "r": 0, "t": 10, "b": 0},
            yaxis={"categoryorder": "total ascending"},
        )
        st.plotly_chart(figure, width="stretch", key="overview-codes")
    else:
        st.write("No findings.")
