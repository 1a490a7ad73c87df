"""Small pieces the pages share: the language, links that keep it, labels, the page style, the
keyboard shortcuts and the empty-database notice."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import datetime
from html import escape
from urllib.parse import urlencode, urlsplit

import streamlit as st

from chaodipi.dashboard import data, explain
from chaodipi.dashboard.i18n import LANG_NAMES, LANGS, Lang, is_lang, pick_lang, t
from chaodipi.service.readmodel import GameRow

REPLAY_PAGE = "app_pages/replay.py"
UPLOAD_PAGE = "app_pages/upload.py"
OVERVIEW_PAGE = "app_pages/overview.py"
GAMES_PAGE = "app_pages/games.py"
PAGE_PATHS = ("replay", "games", "players", "upload")
"""The pages' URL paths (the overview is the root)."""

ENV_LANG = "CHAODIPI_LANG"
"""A setting for the language when the URL does not name one (``zh`` or ``en``)."""

LANG_KEY = "cdp-lang"

PAGE_STYLE = """<style>
/* The step controls stay in view, under Streamlit's header, while the table scrolls. */
div:has(> .st-key-step-bar){position:sticky;top:3.75rem;z-index:990;background:#fff;
  padding:4px 0}
.st-key-step-bar button{padding-left:10px;padding-right:10px;min-height:38px}
.st-key-step-bar{gap:6px}
.cdp-keys{font-size:12px;color:#555;font-family:"DejaVu Sans",system-ui,sans-serif}
.cdp-keys kbd{border:1px solid #bbb;border-bottom-width:2px;border-radius:4px;padding:0 4px;
  font-size:11px;background:#fafafa}
.cdp-tenant{font-size:14px;font-weight:600;overflow-wrap:anywhere}
.cdp-caption{font-size:14px;color:#555;overflow-wrap:anywhere;
  font-family:"DejaVu Sans",system-ui,sans-serif}
.cdp-diff tr.appears td:first-child{color:#c62828;font-weight:600}
.cdp-diff tr.disappears td:first-child{color:#2e7d32;font-weight:600}
.cdp-diff tr.changes td:first-child{color:#ef6c00;font-weight:600}
.cdp-games{width:100%;border-collapse:collapse;font-size:13px;
  font-family:"DejaVu Sans",system-ui,sans-serif}
.cdp-games th{text-align:left;font-weight:600;color:#444;border-bottom:2px solid #ddd;
  padding:4px 6px;white-space:nowrap}
.cdp-games td{border-bottom:1px solid #eee;padding:4px 6px;vertical-align:top;
  overflow-wrap:anywhere}
.cdp-games td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.cdp-games .codes{font-size:11px;color:#8e0000}
.cdp-games td.nowrap{white-space:nowrap}
.cdp-summary{width:auto;min-width:min(100%,560px)}
.cdp-games a{font-weight:600}
@media (max-width:640px){
  h1{font-size:1.9rem !important;padding-top:0 !important}
  .cdp-keys{display:none}
  .st-key-step-bar button p{display:none}
  .st-key-step-bar button{padding-left:6px;padding-right:6px;min-width:0}
  .st-key-step-bar{gap:2px}
  .cdp-games thead{display:none}
  .cdp-games tr{display:grid;grid-template-columns:1fr auto;border-bottom:1px solid #ddd;
    padding:4px 0}
  .cdp-games td{border:none;padding:1px 4px}
  .cdp-games td.wide{grid-column:1/3}
}
</style>"""
"""The style every page gets (step bar, shortcuts, games table; the phone layout)."""

KEY_BUTTONS = {
    "ArrowLeft": "back-play",
    "ArrowRight": "next-play",
    "Shift+ArrowLeft": "back-trick",
    "Shift+ArrowRight": "next-trick",
    "n": "next-finding",
    "p": "prev-finding",
    "Home": "first-step",
    "End": "last-step",
}
"""Keyboard shortcuts of the replay (as lichess has them) and the button each one presses."""

KEYS_SCRIPT = """<script>
(function () {
  const buttons = %s;
  if (!window.__cdpKeys) {
    window.__cdpKeys = true;
    window.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
      const focus = document.activeElement;
      if (focus && (focus.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(focus.tagName) ||
          ["slider", "combobox", "textbox"].includes(focus.getAttribute("role")))) return;
      const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
      const name = (event.shiftKey && key.length > 1 ? "Shift+" : "") + key;
      const wanted = window.__cdpButtons[name];
      if (!wanted) return;
      // The button on screen (Streamlit may keep a hidden twin of a button with a tooltip).
      const button = [...document.querySelectorAll(".st-key-" + wanted + " button")]
        .find((b) => b.getClientRects().length > 0 && b.getBoundingClientRect().width > 0);
      if (!button || button.disabled) return;
      event.preventDefault();
      button.click();
    }, true);
  }
  window.__cdpButtons = buttons;
  document.body.dataset.cdpKeys = "ready";
})();
</script>"""
"""Presses the replay's buttons from the keyboard (Streamlit has no key events): one listener
on the window, installed once, looking the button up when a key is pressed, so it follows the
page across reruns. Keys typed into a field, a slider or a picker are left to them."""


def lang() -> Lang:
    """The session's language: the URL's ``lang``, else the one chosen before in this session,
    else ``$CHAODIPI_LANG``, else the browser's, else Chinese. It is written back to the URL,
    so a link always carries it."""
    wanted = st.query_params.get("lang")
    chosen: Lang
    if is_lang(wanted):
        chosen = wanted
    elif is_lang(st.session_state.get(LANG_KEY)):
        chosen = st.session_state[LANG_KEY]
    else:
        chosen = pick_lang(None, os.environ.get(ENV_LANG), st.context.locale)
    st.session_state[LANG_KEY] = chosen
    if st.query_params.get("lang") != chosen:
        st.query_params["lang"] = chosen
    return chosen


def language_switch(current: Lang) -> None:
    """中文 / English in the sidebar; a change goes to the URL and reruns."""

    def switch() -> None:
        picked = st.session_state.get("lang-switch")
        if is_lang(picked):
            st.session_state[LANG_KEY] = picked
            st.query_params["lang"] = picked

    if st.session_state.get("lang-switch") != current:
        st.session_state["lang-switch"] = current
    st.sidebar.segmented_control(
        t(current, "lang.label"),
        list(LANGS),
        format_func=LANG_NAMES.__getitem__,
        key="lang-switch",
        on_change=switch,
    )


def from_url(scope: str, parsers: Mapping[str, Callable[[str], object]]) -> None:
    """Set widgets from the URL: each key of ``parsers`` is both a widget key and a query
    parameter. The URL wins when it says something new since this session last wrote it (a
    link was opened, or the page runs for the first time in the session); a URL that names
    none of them (after a switch between pages) keeps the session's choice."""
    now = {key: st.query_params.get(key, "") for key in parsers}
    before = st.session_state.get(f"url:{scope}")
    if before is None or (now != before and any(now.values())):
        for key, parse in parsers.items():
            st.session_state[key] = parse(now[key])


def to_url(scope: str, values: Mapping[str, str]) -> None:
    """Write a page's state to the URL (an empty value leaves its parameter out) and remember
    what was written, for ``from_url``."""
    for key, value in values.items():
        if value:
            if st.query_params.get(key) != value:
                st.query_params[key] = value
        elif key in st.query_params:
            del st.query_params[key]
    st.session_state[f"url:{scope}"] = {key: st.query_params.get(key, "") for key in values}


def params(current: Lang, **values: str | int) -> dict[str, str]:
    """Query parameters of a link: ``values`` and the language."""
    return {**{k: str(v) for k, v in values.items()}, "lang": current}


def replay_url(current: Lang, game: str, step: int | None = None) -> str:
    """The replay page's address for a game (relative to the dashboard's root)."""
    values: dict[str, str | int] = {"game": game}
    if step is not None:
        values["step"] = step
    return "replay?" + urlencode(params(current, **values))


def absolute(relative: str) -> str:
    """A dashboard address made absolute with the address the browser used (relative when the
    session has no browser, as under AppTest)."""
    url = st.context.url
    if not url:
        return relative
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    for page in PAGE_PATHS:
        if path.endswith("/" + page) or path == page:
            path = path[: -len(page)].rstrip("/")
            break
    return f"{parts.scheme}://{parts.netloc}{path}/{relative}"


def game_label(row: GameRow, current: Lang) -> str:
    """``classic-3 · 经典炒地皮 · FOLLOW_REVOKE`` for pickers and links."""
    findings = row.breaches + row.scoring_errors + row.warnings
    state = ", ".join(row.finding_codes) if findings else t(current, "overview.clean")
    hand = (
        f" · {t(current, 'common.hand_n', n=row.hand_index + 1)}"
        if row.hand_index is not None
        else ""
    )
    ruleset = explain.ruleset_text(row.ruleset, current)
    return f"{row.record_id}{hand} · {ruleset} · {state}"


def played_text(played_at: datetime | None, current: Lang) -> str:
    """When a game was played, as ``2026-10-13 21:00 UTC``."""
    return f"{played_at:%Y-%m-%d %H:%M} UTC" if played_at else t(current, "common.unknown_time")


SHORTCUTS = (
    (("←", "→"), "keys.play"),
    (("Shift+←", "Shift+→"), "keys.trick"),
    (("n", "p"), "keys.finding"),
    (("Home", "End"), "keys.ends"),
)
"""The shortcuts as shown: the keys and what they do."""


def keys_html(current: Lang) -> str:
    """The shortcuts, for people: ``← → one play · Shift+← Shift+→ one trick · …``."""
    items = [
        " ".join(f"<kbd>{escape(key)}</kbd>" for key in keys) + " " + escape(t(current, what))
        for keys, what in SHORTCUTS
    ]
    title = escape(t(current, "replay.shortcuts"))
    return f'<div class="cdp-keys" title="{title}">{" · ".join(items)}</div>'


def require_data(current: Lang) -> bool:
    """False (after saying so) when the tenant has no games yet."""
    if data.games(page_size=1).total:
        return True
    st.info(t(current, "common.no_data"))
    columns = st.columns(2)
    columns[0].page_link(
        OVERVIEW_PAGE,
        label=t(current, "common.load_samples_link"),
        icon=":material/auto_awesome:",
        query_params=params(current),
    )
    columns[1].page_link(
        UPLOAD_PAGE,
        label=t(current, "common.upload_link"),
        icon=":material/upload:",
        query_params=params(current),
    )
    return False
