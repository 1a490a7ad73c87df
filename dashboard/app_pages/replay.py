"""Replay: step through a stored game play by play, with the findings at the step they arose."""

import streamlit as st
from plotly import graph_objects

from chaodipi.dashboard import data, ui
from chaodipi.dashboard.cards import STYLE, legend_html
from chaodipi.dashboard.render import finding_html, info_html, table_html
from chaodipi.dashboard.stepping import ReplayView
from chaodipi.engine.presets import BUILTIN, get_ruleset
from chaodipi.service.readmodel import GameFilter

st.html(STYLE)
st.title("Replay")
if not ui.require_data():
    st.stop()


def choose_game() -> str:
    """The game in the URL (``?game=<id>``), else the latest game with findings."""
    rows = data.games(page_size=300).games
    labels = {row.game_id: ui.game_label(row) for row in rows}
    wanted = st.query_params.get("game")
    if not wanted:
        flagged = data.games(GameFilter(with_findings=True), page_size=1).games
        wanted = (flagged or rows)[0].game_id
    if wanted not in labels:
        labels = {wanted: wanted, **labels}
    if st.session_state.get("game-pick") != wanted:
        st.session_state["game-pick"] = wanted
    picked: str = st.selectbox(
        "Game", list(labels), format_func=labels.__getitem__, key="game-pick"
    )
    if st.query_params.get("game") != picked:
        st.query_params["game"] = picked
    return picked


game_id = choose_game()
found = data.replay_view(game_id)
if found is None:
    st.error(f"No stored game {game_id!r}.")
    st.stop()
view: ReplayView = found  # never None, also inside go() and jump_to_trick() below
if view.last < 0:
    st.error(
        "The auditor could not replay this record: "
        + "; ".join(f"{v.field}: {v.description}" for v in view.audit.rejections)
    )
    st.stop()

if st.session_state.get("step-game") != game_id:
    st.session_state["step-game"] = game_id
    st.session_state["step"] = 1
# The slider's state is the 1-based step number; ``step`` below is the 0-based step index.
st.session_state["step"] = view.clamp(st.session_state.get("step", 1) - 1) + 1


def go(index: int | None) -> None:
    """Move to a step (ignored when there is nowhere to go)."""
    if index is not None:
        st.session_state["step"] = view.clamp(index) + 1


def jump_to_trick() -> None:
    """Move to the end of the trick picked in the jump box, then clear the box."""
    trick = st.session_state.get("jump-trick")
    if trick is not None:
        go(view.trick_step(trick - 1))
    st.session_state["jump-trick"] = None


record, stored = view.record, view.stored
computed = view.audit.computed
result = view.replay.result_text
st.caption(
    f"Record **{record.record_id}** · ruleset **{stored.ruleset or record.ruleset}** · "
    f"played {ui.played_text(view.replay.game.played_at)} · defenders "
    f"{computed.defenders_points} points"
    + (f" · result {result}" if result else "")
    + f" · stored audit: {stored.breaches} breaches, {stored.scoring_errors} scoring errors, "
    f"{stored.warnings} warnings"
)
if view.differs:
    st.warning(
        "The current auditor's findings differ from the stored audit; the steps show the "
        "current auditor's findings."
    )

step = st.session_state["step"] - 1
buttons = st.columns([1, 1, 1, 1, 1, 1.3, 1.6])
buttons[0].button(
    "Start",
    icon=":material/first_page:",
    on_click=go,
    args=(0,),
    width="stretch",
    disabled=step == 0,
)
buttons[1].button(
    "Trick",
    icon=":material/keyboard_double_arrow_left:",
    on_click=go,
    args=(view.prev_trick(step),),
    width="stretch",
    disabled=step == 0,
    key="back-trick",
)
buttons[2].button(
    "Play",
    icon=":material/chevron_left:",
    on_click=go,
    args=(step - 1,),
    width="stretch",
    disabled=step == 0,
    key="back-play",
)
buttons[3].button(
    "Play",
    icon=":material/chevron_right:",
    on_click=go,
    args=(step + 1,),
    width="stretch",
    disabled=step == view.last,
    key="next-play",
)
buttons[4].button(
    "Trick",
    icon=":material/keyboard_double_arrow_right:",
    on_click=go,
    args=(view.next_trick(step),),
    width="stretch",
    disabled=step == view.last,
    key="next-trick",
)
following = view.next_finding(step)
buttons[5].button(
    "Next finding",
    icon=":material/flag:",
    on_click=go,
    args=(following,),
    width="stretch",
    type="primary",
    disabled=following is None,
    key="next-finding",
)
buttons[6].selectbox(
    "Jump to trick",
    [n + 1 for n in sorted(view.trick_ends)],
    index=None,
    placeholder="Jump to trick…",
    key="jump-trick",
    on_change=jump_to_trick,
    label_visibility="collapsed",
)
st.slider("Step", 1, view.last + 1, key="step", format="step %d")

step = st.session_state["step"] - 1
table, side = st.columns([3, 1.25])
with table:
    st.markdown(f"**{view.step_text(step)}** · step {step + 1} of {view.last + 1}")
    st.html(table_html(view, step))
    st.html(legend_html())
with side:
    here = view.step_finding_indexes(step)
    trumps = view.trumps(step)
    if here:
        st.markdown(f"**{len(here)} finding{'s' if len(here) > 1 else ''} at this step**")
        st.html("".join(finding_html(view, i, trumps) for i in here))
    else:
        st.markdown("**No finding at this step**")
        if following is not None:
            st.caption(f"Next finding at step {following + 1} ({view.step_text(following)}).")
        elif not view.findings:
            st.caption("The audit found nothing wrong in this game.")
    if view.findings:
        with st.expander(f"All findings ({len(view.findings)})", expanded=not here):
            for position, index in enumerate(view.finding_steps):
                for i in view.step_finding_indexes(index):
                    finding = view.findings[i]
                    st.button(
                        f"{finding.code} · {view.position_text(i)}",
                        key=f"goto-{position}-{finding.code}",
                        on_click=go,
                        args=(index,),
                        width="stretch",
                    )

st.html(info_html(view, step))


def score_figure(view: ReplayView, step: int) -> graph_objects.Figure:
    """Defenders' points trick by trick, computed and recorded, with findings marked."""
    points = view.score_points()
    final_x = len(view.trick_ends) + 1
    xs = [p.trick or final_x for p in points]
    figure = graph_objects.Figure()
    figure.add_scatter(
        x=xs,
        y=[p.computed for p in points],
        name="computed",
        mode="lines+markers",
        line={"color": "#1e5631", "width": 3},
    )
    figure.add_scatter(
        x=xs,
        y=[p.recorded for p in points],
        name="recorded (table's claims)",
        mode="lines+markers",
        line={"color": "#ef6c00", "dash": "dash"},
    )
    by_x = dict(zip(xs, (p.computed for p in points), strict=True))
    marks_x, marks_y, texts = [], [], []
    for finding in view.findings:
        pos = finding.position
        x = pos.trick + 1 if pos.HasField("trick") else final_x if pos.phase >= 5 else 1
        marks_x.append(x)
        marks_y.append(by_x.get(x, 0))
        texts.append(f"{finding.code}<br>{finding.message[:90]}")
    if marks_x:
        figure.add_scatter(
            x=marks_x,
            y=marks_y,
            name="findings",
            mode="markers",
            marker={"symbol": "x", "size": 14, "color": "#d32f2f"},
            hovertext=texts,
            hoverinfo="text",
        )
    current = view.steps[step]
    if current.HasField("trick"):
        figure.add_vline(x=current.trick + 1, line_dash="dot", line_color="#555")
    figure.update_layout(
        height=320,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        title="Defenders' points, trick by trick",
        legend={"orientation": "h", "y": -0.25},
        xaxis={
            "tickvals": [*range(1, final_x), final_x],
            "ticktext": [*(str(n) for n in range(1, final_x)), "final"],
            "title": "trick",
        },
        yaxis={"title": "points"},
    )
    return figure


st.plotly_chart(score_figure(view, step), width="stretch", key="score-chart")

with st.expander("Re-audit this game"):
    st.write(
        "Audit the stored record again, under its own ruleset or another, through the "
        "service's audit path; the stored audit is not changed."
    )
    choice = st.selectbox("Ruleset", ["(its own)", *BUILTIN], key="reaudit-ruleset")
    if st.button("Re-audit", key="reaudit"):
        chosen = None if choice == "(its own)" else get_ruleset(choice)
        report = view.replay.game.reaudit(chosen)
        codes = sorted({f.code for f in report.findings}) or ["none"]
        st.write(
            f"{len(report.findings)} findings: {', '.join(codes)} (stored: {len(stored.findings)})."
        )
