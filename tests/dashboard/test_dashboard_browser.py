"""End to end: the real dashboard in headless Chromium (Debian's, driven by Playwright).

Every page is opened at 1400 px and at 390 px (a phone) in both languages and screenshotted;
the tests assert what matters: no exception box or error, no "Deploy" button, at phone width no
element wider than the screen, the URL holds the state (a reload opens the same step, filters
survive), and the keyboard moves the replay. Waits are for conditions (elements, the URL, the
script's end), never for a time.

Screenshots land in the test's tmp dir; with ``CHAODIPI_UPDATE_SCREENSHOTS=1`` (or
``python scripts/screenshots.py``) they are also written, as small palette PNGs, to
``docs/screenshots/``.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboard_support import Seeded, free_port, healthy

from chaodipi.cli.dashboard import streamlit_command, streamlit_env
from chaodipi.dashboard.i18n import t
from chaodipi.dashboard.stepping import ReplayView
from chaodipi.service.readmodel import ReadModel

CHROMIUM = Path("/usr/bin/chromium")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
START_SECONDS = 90
WAIT_MS = 90_000
WIDTHS = {"desktop": (1400, 900), "phone": (390, 844)}
LANGS = {"zh": "zh-CN", "en": "en-US"}
PAGES = ("overview", "replay", "games", "players", "upload")
TITLES = {
    "overview": "overview.title",
    "replay": "page.replay",
    "games": "games.title",
    "players": "players.title",
    "upload": "upload.title",
}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists() and not os.environ.get("CI"),
        reason="needs Debian's chromium (apt-get install chromium)",
    ),
]


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
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def finding_step(seeded: Seeded) -> int:
    """The 1-based step of the revoke in the seeded revoke game."""
    replay = ReadModel.open(seeded.url).replay(seeded.revoke)
    assert replay is not None
    index = ReplayView(replay).next_finding(0)
    assert index is not None
    return index + 1


@contextlib.contextmanager
def opened(browser: Any, url: str, size: str, lang: str) -> Iterator[Any]:
    """A page of its own (a fresh session) at a size, with the browser's language set."""
    width, height = WIDTHS[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale=LANGS[lang], device_scale_factor=1
    )
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    try:
        yield page
    finally:
        context.close()


READY = {
    "overview": ".js-plotly-plot .main-svg",
    "replay": ".cdp-table .cdp-card",
    "games": ".cdp-games tbody tr",
    "players": ".cdp-summary",
    "upload": "[data-testid=stFileUploader]",
}


def settle(page: Any, name: str) -> None:
    """Wait until the page's own content is drawn and Streamlit has finished the script."""
    page.wait_for_selector(READY[name])
    page.wait_for_function("document.fonts.status === 'loaded'")
    page.wait_for_selector("[data-testid=stStatusWidget]", state="detached")
    if name in ("overview", "replay", "players"):  # the games chart may have no findings to show
        page.wait_for_selector(".js-plotly-plot .main-svg")


def problems(page: Any) -> list[str]:
    """Exception boxes, error alerts and a "Deploy" button on the page."""
    found = []
    for selector in (
        "[data-testid=stException]",
        "[data-testid=stAlertContentError]",
        "[data-testid=stAppDeployButton]",
    ):
        if page.locator(selector).count():
            found.append(f"{selector}: {page.locator(selector).all_inner_texts()}")
    return found


TOO_WIDE = """() => {
  const width = document.documentElement.clientWidth;
  const sidebar = document.querySelector('[data-testid=stSidebar]');
  const closed = sidebar && sidebar.getAttribute('aria-expanded') === 'false';
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (closed && sidebar.contains(el)) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || (box.left >= -1 && box.right <= width + 1)) continue;
    if (box.right <= 0) continue;  // parked off screen to measure text (Plotly does)
    if (getComputedStyle(el).visibility === 'hidden') continue;
    let clipped = false;  // inside a box that fits and scrolls or clips its content
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX !== 'visible') {
        const outer = up.getBoundingClientRect();
        if (outer.left >= -1 && outer.right <= width + 1) { clipped = true; break; }
      }
    }
    if (!clipped) {
      out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}` +
               `[${el.getAttribute('data-testid') || ''}] ${Math.round(box.left)}..` +
               `${Math.round(box.right)}`);
    }
  }
  return {scroll: document.documentElement.scrollWidth, width, out: out.slice(0, 12)};
}"""


def keep(shot: Path) -> None:
    """Copy a screenshot to docs/screenshots as a small palette PNG, when asked to."""
    if not os.environ.get("CHAODIPI_UPDATE_SCREENSHOTS"):
        return
    from PIL import Image

    DOCS.mkdir(parents=True, exist_ok=True)
    with Image.open(shot) as image:
        small = image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
        small.save(DOCS / shot.name, optimize=True)


def address(server: str, name: str, lang: str, seeded: Seeded, step: int) -> str:
    query = {
        "overview": "",
        "replay": f"game={seeded.revoke}&step={step}&",
        "games": "state=findings&",
        "players": "",
        "upload": "",
    }[name]
    path = "" if name == "overview" else name
    return f"{server}/{path}?{query}lang={lang}"


@pytest.mark.parametrize("size", list(WIDTHS))
@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("name", PAGES)
def test_every_page_at_both_sizes_in_both_languages(
    server: str,
    browser: Any,
    seeded: Seeded,
    finding_step: int,
    tmp_path: Path,
    name: str,
    lang: str,
    size: str,
) -> None:
    url = address(server, name, lang, seeded, finding_step)
    with opened(browser, url, size, lang) as page:
        settle(page, name)
        assert not problems(page), problems(page)
        title = page.locator("h1").first.inner_text()
        assert title == t(lang, TITLES[name])  # type: ignore[arg-type]
        assert f"lang={lang}" in page.url
        wide = page.evaluate(TOO_WIDE)  # nothing clipped on the right, on a phone or not
        assert wide["scroll"] <= wide["width"] and not wide["out"], wide
        if name == "replay":
            assert page.locator('.cdp-finding[data-code="FOLLOW_REVOKE"]').count() == 1
            assert page.locator(".cdp-hand .cdp-card.alt").count() >= 1
        shot = tmp_path / f"{name}-{size}-{lang}.png"
        page.screenshot(path=str(shot))
        keep(shot)


def step_shown(page: Any) -> int:
    """The step the replay's table shows (1-based)."""
    return int(page.locator(".cdp-table").get_attribute("data-step"))


def wait_for_step(page: Any, step: int) -> None:
    """Wait until the URL and the table both show ``step``."""
    page.wait_for_function(f"new URLSearchParams(location.search).get('step') === '{step}'")
    page.wait_for_selector(f'.cdp-table[data-step="{step}"]')


def test_keys_move_the_replay_and_the_url_keeps_the_step(
    server: str, browser: Any, seeded: Seeded, finding_step: int
) -> None:
    replay = ReadModel.open(seeded.url).replay(seeded.revoke)
    assert replay is not None
    view = ReplayView(replay)
    url = f"{server}/replay?game={seeded.revoke}&step=5&lang=en"
    with opened(browser, url, "desktop", "en") as page:
        settle(page, "replay")
        page.wait_for_selector("body[data-cdp-keys=ready]", state="attached")
        assert step_shown(page) == 5
        moves = [
            ("ArrowRight", 6),
            ("ArrowLeft", 5),
            ("Shift+ArrowRight", view.next_trick(4) + 1),
            ("Shift+ArrowLeft", view.prev_trick(view.next_trick(4)) + 1),
            ("n", finding_step),
            ("End", view.last + 1),
            ("p", (view.prev_finding(view.last) or 0) + 1),
            ("Home", 1),
        ]
        for key, step in moves:
            page.keyboard.press(key)
            wait_for_step(page, step)
        page.keyboard.press("n")
        wait_for_step(page, finding_step)
        page.wait_for_selector('.cdp-finding[data-code="FOLLOW_REVOKE"]')
        link = page.locator("[data-testid=stCode] code").first.inner_text()
        assert link == f"{server}/replay?game={seeded.revoke}&step={finding_step}&lang=en"
        page.reload()
        settle(page, "replay")
        assert step_shown(page) == finding_step and "lang=en" in page.url
        # Keys typed into a field stay there.
        page.get_by_text("Open another game").click()
        field = page.locator(".st-key-game-search input")
        field.click()
        field.press("ArrowRight")
        field.press("n")
        assert field.input_value() == "n" and step_shown(page) == finding_step


def test_the_buttons_and_the_shortcuts_are_shown_on_a_phone_without_text(
    server: str, browser: Any, seeded: Seeded
) -> None:
    url = f"{server}/replay?game={seeded.revoke}&step=3&lang=zh"
    with opened(browser, url, "phone", "zh") as page:
        settle(page, "replay")
        bar = page.locator(".st-key-step-bar")
        assert bar.locator("[data-testid=stButton]").count() == 8
        box = bar.bounding_box()
        assert box is not None and box["height"] < 60  # one row of icons
        page.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 1500)")
        page.wait_for_function("document.querySelector('[data-testid=stMain]').scrollTop > 500")
        header = page.locator("[data-testid=stHeader]").bounding_box()
        sticky = bar.bounding_box()
        assert header is not None and sticky is not None
        assert sticky["y"] >= header["y"] + header["height"] - 1  # below the header, in view
        page.locator(".st-key-next-play button:visible").click()
        wait_for_step(page, 4)


def test_games_filters_live_in_the_url(server: str, browser: Any) -> None:
    with opened(browser, f"{server}/games?state=findings&lang=en", "desktop", "en") as page:
        settle(page, "games")
        assert page.locator(".cdp-games tbody tr").count() >= 1
        clean = page.locator(".st-key-state button:visible", has_text=re.compile(r"^clean$"))
        clean.click()
        page.wait_for_function("new URLSearchParams(location.search).get('state') === 'clean'")
        page.wait_for_selector("text=/\\d+ games match/")
        page.reload()
        settle(page, "games")
        assert "state=clean" in page.url
        assert clean.get_attribute("aria-checked") == "true"
        assert page.locator(".cdp-games .codes").count() == 0  # clean games have no codes


def test_the_browser_language_is_the_default(server: str, browser: Any) -> None:
    for lang, title in (("zh", "炒地皮审计"), ("en", "炒地皮 Chao Di Pi audits")):
        with opened(browser, f"{server}/", "desktop", lang) as page:
            page.wait_for_selector(f"h1:has-text('{title}')")
            page.wait_for_function(f"location.search.includes('lang={lang}')")
