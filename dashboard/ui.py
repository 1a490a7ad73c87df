"""Small pieces the pages share: labels, links and the empty-database notice."""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from chaodipi.dashboard import data
from chaodipi.service.readmodel import GameRow

REPLAY_PAGE = "app_pages/replay.py"
UPLOAD_PAGE = "app_pages/upload.py"
OVERVIEW_PAGE = "app_pages/overview.py"


def game_label(row: GameRow) -> str:
    """``classic-3 · classic · 2 breaches`` for pickers."""
    findings = row.breaches + row.scoring_errors + row.warnings
    state = "clean" if not findings else ", ".join(row.finding_codes)
    hand = f" hand {row.hand_index + 1}" if row.hand_index is not None else ""
    return f"{row.record_id}{hand} · {row.ruleset} · {state}"


def played_text(played_at: datetime | None) -> str:
    """When a game was played, as ``2026-10-13 21:00 UTC`` (``at an unknown time`` for None)."""
    return f"{played_at:%Y-%m-%d %H:%M} UTC" if played_at else "at an unknown time"


def replay_url(game_id: str) -> str:
    """The replay page's address for a game (relative to the dashboard's root)."""
    return f"replay?game={game_id}"


def require_data() -> bool:
    """False (after saying so) when the database holds no games yet."""
    if data.games(page_size=1).total:
        return True
    st.info(
        "No games are stored yet. Load the sample games on the Overview page, or upload records."
    )
    columns = st.columns(2)
    columns[0].page_link(
        OVERVIEW_PAGE, label="Overview: load sample games", icon=":material/auto_awesome:"
    )
    columns[1].page_link(UPLOAD_PAGE, label="Upload records", icon=":material/upload:")
    return False
