"""Every tenant signed in: an API key (or an OIDC account) gives a session exactly its tenant's
games, players and uploads; without sign-in, the default tenant and only on this computer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from dashboard_support import APP, make_db, page_texts, untranslated
from streamlit.testing.v1 import AppTest

from chaodipi import importers
from chaodipi.auditor.generate import generate_hand
from chaodipi.dashboard import auth
from chaodipi.service.db import ENV_URL
from chaodipi.service.ingest import ingest_records
from chaodipi.service.keys import create_key
from chaodipi.service.readmodel import ReadModel
from chaodipi.v1 import records_pb2

TIMEOUT = 60


@dataclass(frozen=True, slots=True)
class Tenants:
    """A database of three tenants (the default one and two with keys), each its own games."""

    url: str
    keys: dict[str, str]  # tenant name -> API key
    games: dict[str, set[str]]  # tenant name -> game ids
    players: dict[str, set[str]]  # tenant name -> player ids


def hands_of(name: str, seeds: range) -> list[records_pb2.GameRecord]:
    """Hands whose record ids and players carry the tenant's name."""
    out = []
    for seed in seeds:
        record = generate_hand("classic", seed)
        record.record_id = f"{name}-hand-{seed}"
        for player in record.players:
            player.id = f"{name}.{player.id}"
            player.display_name = f"{name} {player.display_name}"
        out.append(record)
    return out


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Tenants:
    url = make_db(tmp_path_factory.mktemp("db") / "tenants.db")
    default = ReadModel.open(url)
    keys, games, players = {}, {}, {}
    for n, name in enumerate(("default", "alpha", "beta")):
        model = default if name == "default" else ReadModel.open(url, tenant=name)
        if name != "default":
            keys[name] = create_key(model.sessions, name)[1]
        ingest_records(
            model.sessions, model.tenant_id, hands_of(name, range(10 * n + 1, 10 * n + 4))
        )
        games[name] = {g.game_id for g in model.games().games}
        players[name] = {p.player_id for p in model.players()}
    return Tenants(url, keys, games, players)


@pytest.fixture
def env(tenants: Tenants, use_db: None, monkeypatch: pytest.MonkeyPatch) -> Tenants:
    monkeypatch.setenv(ENV_URL, tenants.url)
    return tenants


@pytest.fixture
def remote(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions come from another computer."""
    monkeypatch.setattr(auth, "request_is_local", lambda: False)


def run(at: AppTest, name: str = "overview", **params: str) -> AppTest:
    at.query_params.update({"lang": "en", **params})
    at.run()
    if name != "overview":
        at.switch_page(f"app_pages/{name}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sign_in(at: AppTest, key: str, form: str = "sign-in") -> AppTest:
    """Type an API key into a sign-in form and submit it (one run: a form sends both)."""
    at.text_input(key=f"{form}-key").input(key)
    buttons = at.sidebar.button if form == "sidebar-sign-in" else at.main.button
    next(b for b in buttons if b.label == "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sees(at: AppTest, tenants: Tenants) -> set[str]:
    """The tenants whose games or players a page shows."""
    text = "\n".join(page_texts(at)) + "".join(str(h.proto.body) for h in at.get("html"))
    return {
        name
        for name in tenants.games
        if any(g in text for g in tenants.games[name])
        or any(p in text for p in tenants.players[name])
        or f"{name}-hand-" in text
    }


def test_a_remote_session_must_sign_in_and_sees_nothing_before(env: Tenants, remote: None) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    assert [title.value for title in at.title] == ["Sign in"]
    assert not at.metric and sees(at, env) == set()
    sign_in(at, "cdp_wrong_key")
    assert any("unknown or revoked" in e.value for e in at.error) and not at.metric


@pytest.mark.parametrize("name", ["alpha", "beta"])
def test_a_key_shows_exactly_its_tenant_on_every_page(
    env: Tenants, remote: None, name: str
) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    sign_in(at, env.keys[name])
    assert at.metric[0].value == str(len(env.games[name]))
    assert f"Tenant: {name}" in "".join(str(h.proto.body) for h in at.get("html"))
    for page in ("overview", "games", "players", "replay"):
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception and sees(at, env) == {name}, page
    other = next(n for n in env.games if n != name)
    stranger = next(iter(env.games[other]))
    at.query_params["game"] = stranger
    at.switch_page("app_pages/replay.py").run()
    assert any(f"No stored game {stranger}" in e.value for e in at.error)


def test_two_sessions_of_two_tenants_never_share_what_they_see(env: Tenants, remote: None) -> None:
    sessions = {}
    for name in ("alpha", "beta"):
        at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
        sessions[name] = sign_in(at, env.keys[name])
    for _ in range(2):  # the second round reads from the caches the first one filled
        for name, at in sessions.items():
            at.switch_page("app_pages/games.py").run()
            assert sees(at, env) == {name}
            at.switch_page("app_pages/players.py").run()
            assert sees(at, env) == {name}


def test_this_computer_reads_the_default_tenant_and_may_switch_with_a_key(env: Tenants) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT), "games")
    assert sees(at, env) == {"default"}
    sign_in(at, env.keys["beta"], "sidebar-sign-in")
    at.switch_page("app_pages/games.py").run()
    assert sees(at, env) == {"beta"}
    at.button(key="sign-out").click().run()
    at.switch_page("app_pages/games.py").run()
    assert sees(at, env) == {"default"}


def test_uploads_go_to_the_signed_in_tenant(
    tmp_path: Path, use_db: None, monkeypatch: pytest.MonkeyPatch, remote: None
) -> None:
    url = make_db(tmp_path / "uploads.db")
    monkeypatch.setenv(ENV_URL, url)
    key = create_key(ReadModel.open(url).sessions, "gamma")[1]
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    sign_in(at, key)
    at.switch_page("app_pages/upload.py").run()
    hand = importers.dumps([records_pb2.RecordFile(game=generate_hand("anhui", 77))], "text")
    at.file_uploader(key="upload-files").set_value([("h.txt", hand, "text/plain")]).run()
    at.button(key="upload-go").click().run()
    assert not at.exception
    gamma = ReadModel.for_tenant(ReadModel.open(url).sessions, "gamma")
    assert gamma is not None and gamma.games().total == 1
    assert ReadModel.open(url).games().total == 0  # the default tenant got nothing


@pytest.mark.parametrize(
    ("ip", "host", "local"),
    [
        (None, "localhost:8501", True),  # Streamlit gives no address for a loopback client
        (None, "127.0.0.1:8501", True),
        (None, "[::1]:8501", True),
        ("192.168.1.9", "localhost:8501", False),
        (None, "chaodipi.example.org", False),  # a reverse proxy on this computer
        ("::1", "localhost", True),
        ("not an address", "localhost", False),
    ],
)
def test_only_this_computer_is_local(ip: str | None, host: str, local: bool) -> None:
    assert auth.is_local(ip, {"Host": host}) is local


def test_an_oidc_account_maps_to_a_tenant_by_its_email(monkeypatch: pytest.MonkeyPatch) -> None:
    sections = {"auth": {"redirect_uri": "x"}, "chaodipi": {"tenants": {"li@club.cn": "alpha"}}}
    monkeypatch.setattr(auth, "_secret_section", lambda name: sections.get(name, {}))
    assert auth.oidc_configured()
    assert auth.oidc_tenant("li@club.cn") == "alpha" and auth.oidc_tenant("x@y.z") is None
    monkeypatch.setattr(auth, "_secret_section", lambda name: {})
    assert not auth.oidc_configured() and auth.oidc_tenant("li@club.cn") is None


def test_the_sign_in_page_speaks_chinese(env: Tenants, remote: None) -> None:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["lang"] = "zh"
    at.run()
    assert [title.value for title in at.title] == ["登录"]
    assert not untranslated(at, ())
