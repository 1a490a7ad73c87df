"""Overview: what the tenant holds; with no games yet, an offer to load sample games."""

import plotly.express as px
import streamlit as st

from chaodipi.dashboard import data, ui
from chaodipi.dashboard.i18n import t
from chaodipi.dashboard.stepping import SEVERITY_KEYS
from chaodipi.service.readmodel import GameFilter
from chaodipi.service.samples import load_samples
from chaodipi.v1 import audit_pb2

SEVERITY_COLOURS = {
    audit_pb2.SEVERITY_BREACH: "#d32f2f",
    audit_pb2.SEVERITY_SCORING_ERROR: "#ef6c00",
    audit_pb2.SEVERITY_WARNING: "#0277bd",
}

lang = ui.lang()
st.title(t(lang, "overview.title"))
st.caption(t(lang, "overview.database", url=data.database_url()))

page = data.games(page_size=8)
if not page.total:
    st.subheader(t(lang, "overview.empty"))
    st.write(t(lang, "overview.empty_text"))
    if st.button(
        t(lang, "overview.load"), type="primary", icon=":material/auto_awesome:", key="load-samples"
    ):
        with st.spinner(t(lang, "overview.loading")):
            result = load_samples(data.model())
        data.changed()
        st.session_state["samples-loaded"] = result.stored
        st.rerun()
    st.page_link(
        ui.UPLOAD_PAGE,
        label=t(lang, "overview.upload_instead"),
        icon=":material/upload:",
        query_params=ui.params(lang),
    )
    st.stop()

if st.session_state.pop("samples-loaded", None):
    st.success(t(lang, "overview.loaded"))

flagged = data.games(GameFilter(with_findings=True), page_size=6)
counts = data.finding_counts()
columns = st.columns(4)
columns[0].metric(t(lang, "overview.games"), page.total)
columns[1].metric(t(lang, "overview.with_findings"), flagged.total)
breaches = sum(c.count for c in counts if c.severity == audit_pb2.SEVERITY_BREACH)
columns[2].metric(t(lang, "overview.breaches"), breaches)
columns[3].metric(t(lang, "overview.players"), len(data.players()))

left, right = st.columns([1, 1])
with left:
    st.subheader(t(lang, "overview.flagged"))
    for row in flagged.games:
        st.page_link(
            ui.REPLAY_PAGE,
            label=ui.game_label(row, lang),
            icon=":material/warning:",
            query_params=ui.params(lang, game=row.game_id),
        )
    if not flagged.games:
        st.write(t(lang, "overview.all_clean"))
    st.subheader(t(lang, "overview.latest"))
    for row in page.games[:5]:
        st.page_link(
            ui.REPLAY_PAGE,
            label=ui.game_label(row, lang),
            icon=":material/style:",
            query_params=ui.params(lang, game=row.game_id),
        )
with right:
    st.subheader(t(lang, "overview.by_code"))
    if counts:
        names = {sev: t(lang, key) for sev, key in SEVERITY_KEYS.items()}
        figure = px.bar(
            x=[c.count for c in counts],
            y=[c.code for c in counts],
            orientation="h",
            color=[names.get(c.severity, "?") for c in counts],
            color_discrete_map={names[s]: colour for s, colour in SEVERITY_COLOURS.items()},
            labels={"x": t(lang, "chart.findings"), "y": "", "color": t(lang, "chart.severity")},
        )
        figure.update_layout(
            height=80 + 28 * len(counts),
            margin={"l": 0, "r": 0, "t": 10, "b": 0},
            yaxis={"categoryorder": "total ascending"},
            legend={"orientation": "h", "y": -0.15},
        )
        st.plotly_chart(figure, width="stretch", key="overview-codes")
    else:
        st.write(t(lang, "overview.no_findings"))
