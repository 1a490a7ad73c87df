"""The dashboard's entry point: ``streamlit run dashboard/app.py`` (or ``chaodipi dashboard``)."""

import streamlit as st

st.set_page_config(page_title="chaodipi: audited replays", page_icon="♠", layout="wide")

PAGES = [
    st.Page("app_pages/overview.py", title="Overview", icon=":material/home:", default=True),
    st.Page(
        "app_pages/replay.py", title="Replay", icon=":material/play_circle:", url_path="replay"
    ),
    st.Page("app_pages/games.py", title="Games", icon=":material/table_rows:", url_path="games"),
    st.Page("app_pages/players.py", title="Players", icon=":material/groups:", url_path="players"),
    st.Page(
        "app_pages/upload.py", title="Upload", icon=":material/upload_file:", url_path="upload"
    ),
]

st.navigation(PAGES).run()
