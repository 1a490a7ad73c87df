"""The dashboard's entry point: ``streamlit run dashboard/app.py`` (or ``chaodipi dashboard``).

Before any page runs: the language (URL, session, setting or browser), the page style, and
the session's tenant (``auth``: an API key, an OIDC account, or the default tenant on this
computer); a session that must sign in sees only the sign-in page.
"""

import streamlit as st

from chaodipi.dashboard import auth, ui
from chaodipi.dashboard.i18n import t

lang = ui.lang()
st.set_page_config(page_title=t(lang, "app.title"), page_icon="♠", layout="wide")
st.html(ui.PAGE_STYLE)
ui.language_switch(lang)

signed = auth.current()
if signed is None:
    auth.sign_in_page(lang)
    st.stop()
auth.sidebar(lang, signed)

PAGES = [
    st.Page(
        "app_pages/overview.py",
        title=t(lang, "page.overview"),
        icon=":material/home:",
        default=True,
    ),
    st.Page(
        "app_pages/replay.py",
        title=t(lang, "page.replay"),
        icon=":material/play_circle:",
        url_path="replay",
    ),
    st.Page(
        "app_pages/games.py",
        title=t(lang, "page.games"),
        icon=":material/table_rows:",
        url_path="games",
    ),
    st.Page(
        "app_pages/players.py",
        title=t(lang, "page.players"),
        icon=":material/groups:",
        url_path="players",
    ),
    st.Page(
        "app_pages/upload.py",
        title=t(lang, "page.upload"),
        icon=":material/upload_file:",
        url_path="upload",
    ),
]

st.navigation(PAGES).run()
