"""End to end: the real dashboard in headless Chromium (Debian's, driven by Playwright).

Screenshots land in the test's tmp dir; with ``CHAODIPI_UPDATE_SCREENSHOTS=1`` they are also
copied to ``docs/screenshots/`` for the documentation.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from dashboard_support import Seeded

from chaodipi.cli.dashboard import streamlit_command, streamlit_env

CHROMIUM = Path("/usr/bin/chromium")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
START_SECONDS = 60
WAIT_MS = 60_000

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists() and not os.environ.get("CI"),
        reason="needs Debian's chromium (apt-get install chromium)",
    ),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def server(seeded: Seeded, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``streamlit run`` on a free port against the seeded database; yields its base URL."""
    port = free_port()
    log = (tmp_path_factory.mktemp("streamlit") / "streamlit.log").open("wb")
    process = subprocess.Popen(
        streamlit_command(port), env=streamlit_env(seeded.url), stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(START_SECONDS * 4):
            if healthy(base) or process.poll() is not None:
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(0.25)
        assert process.poll() is None and healthy(base), f"dashboard did not start: {log.name}"
        yield base
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


def settle(page: object) -> None:
    """Wait until Streamlit has finished running the script and charts are drawn."""
    page.wait_for_selector(
        "[data-testid=stStatusWidget]",
        state="detached",  # type: ignore[attr-defined]
        timeout=WAIT_MS,
    )
    page.wait_for_selector(".js-plotly-plot", timeout=WAIT_MS)  # type: ignore[attr-defined]


def no_errors(page: object) -> None:
    for selector in ("[data-testid=stException]", "[data-testid=stAlertContentError]"):
        assert page.locator(selector).count() == 0, page.locator(selector).all_inner_texts()  # type: ignore[attr-defined]


def keep(shot: Path) -> None:
    if os.environ.get("CHAODIPI_UPDATE_SCREENSHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS / shot.name)


def test_replay_page_shows_cards_and_the_breach(
    server: str, browser: object, seeded: Seeded, tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 1500})  # type: ignore[attr-defined]
    page.goto(f"{server}/replay?game={seeded.revoke}")
    page.wait_for_selector(".cdp-table", timeout=WAIT_MS)
    settle(page)
    page.get_by_role("button", name="Next finding").click()
    page.wait_for_selector('.cdp-finding[data-code="FOLLOW_REVOKE"]', timeout=WAIT_MS)
    settle(page)
    no_errors(page)
    hands = page.locator(".cdp-hand .cdp-card")
    assert hands.count() > 40
    labels = set(hands.evaluate_all("cards => cards.map(c => c.innerText.replace(/\\s/g, ''))"))
    assert labels & {"A♠", "K♥", "10♦", "Q♣", "A♥", "K♠"}
    assert page.locator(".cdp-hand .cdp-card.alt").count() >= 1
    assert page.locator(".cdp-center .cdp-card.offence").count() >= 1
    assert page.locator(".cdp-card.red").count() > 0
    shot = tmp_path / "replay.png"
    page.screenshot(path=str(shot))
    keep(shot)
    page.close()


def test_players_page_draws_its_charts(server: str, browser: object, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 1500})  # type: ignore[attr-defined]
    page.goto(f"{server}/players")
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot').length >= 5", timeout=WAIT_MS
    )
    settle(page)
    no_errors(page)
    assert page.locator(".js-plotly-plot").count() == 5
    shot = tmp_path / "players.png"
    page.screenshot(path=str(shot), full_page=True)
    keep(shot)
    page.close()
