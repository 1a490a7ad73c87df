"""Replay: step through a stored game play by play, with the findings at the step they arose.

The URL holds the state worth sharing: ``?game=<game id or record id>&step=N&lang=zh``. The
keyboard moves as on lichess (``ui.KEY_BUTTONS``), by pressing the same buttons.
"""

import json
from html import escape

import streamlit as st
from plotly import graph_objects

from chaodipi.dashboard import data, explain, exports, rules, ui
from chaodipi.dashboard.analysis import analysis_html
from chaodipi.dashboard.cards import STYLE, legend_html
from chaodipi.dashboard.i18n import Lang, t
from chaodipi.dashboard.render import finding_html, info_html, score_html, table_html
from chaodipi.dashboard.stepping import ReplayView
from chaodipi.engine.presets import BUILTIN, get_ruleset
from chaodipi.service.readmodel import GameFilter, GameSearch
from chaodipi.v1 import audit_pb2

# Games the picker offers for a search (the search itself covers every stored game). A bare
# string here would be shown on the page: Streamlit writes a page's top-level expressions.
PICKER_SIZE = 20

lang = ui.lang()
st.html(STYLE)
st.html(ui.KEYS_SCRIPT % json.dumps(ui.KEY_BUTTONS), unsafe_allow_javascript=True)
st.title(t(lang, "page.replay"))
if not ui.require_data(lang):
    st.stop()


def default_game() -> str:
    """The latest game with findings, else the latest game."""
    flagged = data.games(GameFilter(with_findings=True), page_size=1).games
    return (flagged or data.games(page_size=1).games)[0].game_id


wanted = st.query_params.get("game") or default_game()
game_id = data.resolve_game(wanted)


def pick_game() -> None:
    """Open the game picked in the picker at its first step."""
    picked = st.session_state.get("game-pick")
    if picked:
        st.query_params["game"] = picked
        st.query_params["step"] = "1"
        st.session_state["step-game"] = picked
        st.session_state["step-url"] = "1"
        st.session_state["step"] = 1


with st.expander(t(lang, "replay.find"), expanded=game_id is None):
    search = st.text_input(
        t(lang, "replay.search"), key="game-search", help=t(lang, "replay.game_help")
    )
    found = data.search(GameSearch(text=search, page_size=PICKER_SIZE)).games
    labels = {row.game_id: ui.game_label(row, lang) for row in found}
    if game_id is not None and game_id not in labels:
        current = data.search(GameSearch(text=game_id, page_size=1)).games
        labels = {**{row.game_id: ui.game_label(row, lang) for row in current}, **labels}
    if game_id is not None and st.session_state.get("game-pick") != game_id:
        st.session_state["game-pick"] = game_id
    st.selectbox(
        t(lang, "replay.game"),
        list(labels),
        format_func=labels.__getitem__,
        key="game-pick",
        on_change=pick_game,
    )

view_found = data.replay_view(game_id) if game_id is not None else None
if view_found is None:
    st.error(t(lang, "replay.no_game", game=wanted))
    st.stop()
view: ReplayView = view_found  # never None, also inside the callbacks below


def rule_panel(finding: audit_pb2.Finding, current: Lang) -> None:
    """The rule a finding cites, from the project's rules document in the chosen language."""
    if not finding.rule_id:
        return
    found = rules.ruling_for(current, finding.rule_id)
    if found is None:
        with st.expander(t(current, "rule.open_bare", rule=finding.rule_id)):
            st.write(t(current, "rule.missing", rule=finding.rule_id))
        return
    ruling, source = found
    title = t(current, "rule.open", rule=finding.rule_id, title=ruling.title)
    with st.expander(title if ruling.title else t(current, "rule.open_bare", rule=finding.rule_id)):
        if ruling.rule_id != finding.rule_id:
            st.caption(t(current, "rule.parent", rule=finding.rule_id, parent=ruling.rule_id))
        if source != current:
            st.caption(t(current, "rule.other_lang"))
        st.markdown(ruling.text)


if view.audit.rejections:
    problems = "; ".join(f"{v.field}: {v.description}" for v in view.audit.rejections)
    st.error(t(lang, "replay.unreadable", problems=problems))
    st.stop()
if view.last < 0:
    # Read, but not replayed: the audit checks nothing of a record that needs rules no ruleset
    # models (UNSUPPORTED); its findings say why.
    st.warning(t(lang, "replay.not_replayed"))
    for index, finding in enumerate(view.findings):
        st.html(finding_html(view, index, frozenset(), lang))
        rule_panel(finding, lang)
    st.stop()

# The URL's step (1-based) wins when it changed since this session last wrote it (a link was
# opened); otherwise the session's step, which the buttons move, is written to the URL below.
url_step = st.query_params.get("step", "")
if st.session_state.get("step-game") != game_id or st.session_state.get("step-url") != url_step:
    st.session_state["step-game"] = game_id
    st.session_state["step"] = int(url_step) if url_step.isdigit() else 1
    st.session_state.pop("reaudit-result", None)
st.session_state["step"] = view.clamp(st.session_state["step"] - 1) + 1


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
caption = t(
    lang,
    "replay.caption",
    record=record.record_id,
    ruleset=explain.ruleset_text(stored.ruleset or record.ruleset, lang),
    played=ui.played_text(view.replay.game.played_at, lang),
    points=computed.defenders_points,
)
if view.replay.result_text:
    result = explain.level_text(view.replay.result_text, lang)
    caption += " · " + t(lang, "replay.result", result=result)
caption += " · " + t(
    lang,
    "replay.stored",
    breaches=stored.breaches,
    scoring=stored.scoring_errors,
    warnings=stored.warnings,
)
st.html(f'<div class="cdp-caption">{escape(caption)}</div>')
if view.differs:
    st.warning(t(lang, "replay.differs"))

step = st.session_state["step"] - 1
following = view.next_finding(step)
previous = view.prev_finding(step)
moves = (
    ("first-step", "replay.first", ":material/first_page:", 0, step == 0, "Home"),
    ("back-trick", "replay.prev_trick", ":material/keyboard_double_arrow_left:",
     view.prev_trick(step), step == 0, "Shift+←"),
    ("back-play", "replay.prev_play", ":material/chevron_left:", step - 1, step == 0, "←"),
    ("next-play", "replay.next_play", ":material/chevron_right:", step + 1, step == view.last, "→"),
    ("next-trick", "replay.next_trick", ":material/keyboard_double_arrow_right:",
     view.next_trick(step), step == view.last, "Shift+→"),
    ("last-step", "replay.last", ":material/last_page:", view.last, step == view.last, "End"),
    ("prev-finding", "replay.prev_finding", ":material/flag:", previous, previous is None, "p"),
    ("next-finding", "replay.next_finding", ":material/flag:", following, following is None, "n"),
)  # fmt: skip
with st.container(horizontal=True, key="step-bar", gap="small"):
    for key, label, icon, target, disabled, shortcut in moves:
        st.button(
            t(lang, label),
            icon=icon,
            key=key,
            on_click=go,
            args=(target,),
            disabled=disabled,
            help=f"{t(lang, label)} ({shortcut})",
            type="primary" if key == "next-finding" else "secondary",
        )

controls = st.columns([4, 1.3])
if view.last > 0:  # a slider needs two steps at least (a record may stop at its deal)
    controls[0].slider(
        t(lang, "replay.step"),
        1,
        view.last + 1,
        key="step",
        label_visibility="collapsed",
    )
controls[1].selectbox(
    t(lang, "replay.jump"),
    [n + 1 for n in sorted(view.trick_ends)],
    index=None,
    placeholder=t(lang, "replay.jump"),
    format_func=lambda n: t(lang, "replay.trick_n", n=n),
    key="jump-trick",
    on_change=jump_to_trick,
    label_visibility="collapsed",
)
st.html(ui.keys_html(lang))

step = st.session_state["step"] - 1
here = view.step_finding_indexes(step)
trumps = view.trumps(step)
table, side = st.columns([3, 1.25])
with table:
    st.markdown(
        f"**{explain.step_caption(view, step, lang)}** · "
        + t(lang, "replay.step_of", step=step + 1, steps=view.last + 1)
    )
    st.html(table_html(view, step, lang))
    st.html(legend_html(lang))


with side:
    if here:
        st.markdown("**" + t(lang, "replay.findings_here", n=len(here)) + "**")
        for i in here:
            st.html(finding_html(view, i, trumps, lang))
            rule_panel(view.findings[i], lang)
    else:
        st.markdown("**" + t(lang, "replay.no_finding") + "**")
        if following is not None:
            where = explain.step_caption(view, following, lang)
            st.caption(t(lang, "replay.next_at", step=following + 1, where=where))
        elif not view.findings:
            st.caption(t(lang, "replay.clean"))
    if view.steps[step].phase == audit_pb2.PHASE_SCORING:
        st.html(score_html(view, lang))
    if view.findings:
        with st.expander(t(lang, "replay.all_findings", n=len(view.findings)), expanded=not here):
            for index in view.finding_steps:
                for i in view.step_finding_indexes(index):
                    finding = view.findings[i]
                    st.button(
                        f"{explain.finding_title(finding.code, lang)} · "
                        f"{explain.position_text(view, finding, lang)}",
                        key=f"goto-{i}",  # a finding's index is unique: one button each
                        on_click=go,
                        args=(index,),
                        width="stretch",
                    )

st.html(info_html(view, step, lang))


def score_figure(view: ReplayView, step: int, current: Lang) -> graph_objects.Figure:
    """Defenders' points trick by trick, computed and recorded, with findings marked."""
    points = view.score_points()
    final_x = len(view.trick_ends) + 1
    xs = [p.trick or final_x for p in points]
    figure = graph_objects.Figure()
    figure.add_scatter(
        x=xs,
        y=[p.computed for p in points],
        name=t(current, "replay.chart_computed"),
        mode="lines+markers",
        line={"color": "#1e5631", "width": 3},
    )
    figure.add_scatter(
        x=xs,
        y=[p.recorded for p in points],
        name=t(current, "replay.chart_recorded"),
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
        sentence = escape(explain.finding_sentence(view, finding, current))
        texts.append(
            escape(explain.finding_title(finding.code, current))
            + "<br>"
            + sentence.replace("；", "；<br>").replace("; ", ";<br>")
        )
    if marks_x:
        figure.add_scatter(
            x=marks_x,
            y=marks_y,
            name=t(current, "replay.chart_findings"),
            mode="markers",
            marker={"symbol": "x", "size": 14, "color": "#d32f2f"},
            hovertext=texts,
            hoverinfo="text",
        )
    here_step = view.steps[step]
    if here_step.HasField("trick"):
        figure.add_vline(x=here_step.trick + 1, line_dash="dot", line_color="#555")
    figure.update_layout(
        height=320,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        title=t(current, "replay.chart_title"),
        legend={"orientation": "h", "y": -0.25},
        xaxis={
            "tickvals": [*range(1, final_x), final_x],
            "ticktext": [*(str(n) for n in range(1, final_x)), t(current, "replay.chart_final")],
            "title": t(current, "replay.chart_trick"),
        },
        yaxis={"title": t(current, "replay.chart_points")},
    )
    return figure


st.plotly_chart(score_figure(view, step, lang), width="stretch", key="score-chart")

st.subheader(t(lang, "replay.download"))
link = ui.absolute(ui.replay_url(lang, wanted, step + 1))
st.caption(t(lang, "replay.link") + " · " + t(lang, "replay.link_help"))
st.code(link, language=None)
try:
    notation = exports.annotated_notation(view.replay.game)
except ValueError as exc:
    notation = ""
    st.caption(t(lang, "replay.no_notation", reason=str(exc)))
stem = exports.file_stem(view.replay.game)
files = st.columns(2)
if notation:
    files[0].download_button(
        t(lang, "replay.download_text"),
        notation,
        file_name=f"{stem}.txt",
        mime="text/plain",
        key="download-notation",
        icon=":material/description:",
    )
files[1].download_button(
    t(lang, "replay.download_json"),
    exports.game_json(view.replay.game),
    file_name=f"{stem}.json",
    mime="application/json",
    key="download-json",
    icon=":material/data_object:",
)
st.caption(t(lang, "replay.download_note"))

with st.expander(t(lang, "analysis.heading")):
    st.write(t(lang, "analysis.about"))
    stored_game = view.replay.game
    tricks = max(len(stored_game.record.tricks), 1)
    # The ruleset's window by default; fewer tricks when a hand's search stops at its budget.
    window_box, run_box = st.columns([1, 3], vertical_alignment="bottom")
    window = window_box.number_input(
        t(lang, "analysis.window"),
        min_value=1,
        max_value=tricks,
        value=min(stored_game.analysis_window, tricks),
        step=1,
        key=f"analysis-window-{game_id}",  # a game's own: another's may have fewer tricks
    )
    if run_box.button(t(lang, "analysis.go"), key="analyse"):
        st.session_state["analysis-result"] = (game_id, stored_game.analyse(int(window)))
    analysed = st.session_state.get("analysis-result")
    if analysed is not None and analysed[0] == game_id:
        st.html(analysis_html(view, analysed[1], lang))

with st.expander(t(lang, "reaudit.heading")):
    st.write(t(lang, "reaudit.about"))
    own = stored.ruleset or record.ruleset
    options = ["", *BUILTIN]
    choice = st.selectbox(
        t(lang, "reaudit.ruleset"),
        options,
        format_func=lambda r: (
            t(lang, "reaudit.own", ruleset=explain.ruleset_text(own, lang))
            if not r
            else explain.ruleset_text(r, lang)
        ),
        key="reaudit-ruleset",
    )
    if st.button(t(lang, "reaudit.go"), key="reaudit"):
        report = view.replay.game.reaudit(get_ruleset(choice) if choice else None)
        st.session_state["reaudit-result"] = (game_id, choice, report)
    kept = st.session_state.get("reaudit-result")
    if kept is not None and kept[0] == game_id:
        report = kept[2]
        changes = explain.audit_changes(stored.findings, report.findings)
        before, after = stored.computed, report.computed
        lines = [
            t(
                lang,
                "reaudit.counts",
                appear=sum(c.kind == "appears" for c in changes),
                gone=sum(c.kind == "disappears" for c in changes),
                changed=sum(c.kind == "changes" for c in changes),
            ),
            t(lang, "reaudit.score", old=before.defenders_points, new=after.defenders_points),
            t(
                lang,
                "reaudit.level",
                old=explain.result_text(before.level_result, lang),
                new=explain.result_text(after.level_result, lang),
            ),
        ]
        st.markdown("\n".join(f"- {line}" for line in lines))
        if not changes:
            st.success(t(lang, "reaudit.same"))
        else:
            kinds = {
                "appears": t(lang, "reaudit.appears"),
                "disappears": t(lang, "reaudit.disappears"),
                "changes": t(lang, "reaudit.changes"),
            }
            rows = "".join(
                f'<tr class="{c.kind}"><td>{escape(kinds[c.kind])}</td>'
                f"<td>{escape(explain.position_text(view, c.finding, lang))}</td>"
                f"<td><b>{escape(explain.finding_title(c.finding.code, lang))}</b><br>"
                f"{escape(explain.finding_sentence(view, c.finding, lang))}</td></tr>"
                for c in changes
            )
            head = "".join(
                f"<th>{escape(t(lang, key))}</th>"
                for key in ("reaudit.what", "reaudit.where", "reaudit.finding")
            )
            st.html(
                f'<table class="cdp-games cdp-diff"><thead><tr>{head}</tr></thead>'
                f"<tbody>{rows}</tbody></table>"
            )

# Written last, so the URL names the step shown (a reload or a copied link opens it).
st.query_params["step"] = str(step + 1)
st.session_state["step-url"] = str(step + 1)
