"""A temporary database with sample games stored through the service's ingest path."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import streamlit as st
from dashboard_support import Seeded, make_db

from chaodipi.service.db import ENV_URL
from chaodipi.service.readmodel import ReadModel
from chaodipi.service.samples import load_samples


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    """Eleven sample hands (three with planted faults) and one match."""
    url = make_db(tmp_path_factory.mktemp("db") / "seeded.db")
    model = ReadModel.open(url)
    load_samples(model, hands=11, matches=1)
    rows = model.games(page_size=100).games
    by_code = {code: row.game_id for row in rows for code in row.finding_codes}
    clean = next(row.game_id for row in rows if not row.finding_codes)
    return Seeded(url, by_code["FOLLOW_REVOKE"], by_code["THROW_NOT_ENFORCED"], clean)


@pytest.fixture
def use_db(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Clear the dashboard's caches around a test (its database comes from the env var)."""
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()
    monkeypatch.delenv(ENV_URL, raising=False)


@pytest.fixture
def seeded_env(seeded: Seeded, use_db: None, monkeypatch: pytest.MonkeyPatch) -> Seeded:
    """The seeded database, chosen for the dashboard through ``CHAODIPI_DATABASE_URL``."""
    monkeypatch.setenv(ENV_URL, seeded.url)
    return seeded


@pytest.fixture(scope="session")
def many(tmp_path_factory: pytest.TempPathFactory) -> str:
    """120 sample hands over about five months (three pages of the Games list)."""
    url = make_db(tmp_path_factory.mktemp("db") / "many.db")
    load_samples(ReadModel.open(url), hands=120, matches=0)
    return url


@pytest.fixture
def many_env(many: str, use_db: None, monkeypatch: pytest.MonkeyPatch) -> str:
    """The database of 120 hands, chosen for the dashboard."""
    monkeypatch.setenv(ENV_URL, many)
    return many
