"""The dashboard's reads at scale: search, player summaries and trends over N stored hands, then
the Games and Players pages rendered (Streamlit's AppTest, caches cold); prints seconds.

    python bench/dashboard.py                       # SQLite, 5000 hands
    python bench/dashboard.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/bench_dashboard

Hands are generated once (``--distinct`` deals, ~7 ms each) and stored again with new record
ids and times spread over a year (one hand every ~105 minutes for 5,000), so every stored hand
has its own seats, findings and time. The database must be empty (a fresh SQLite file is made
when no URL is given).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from build_info import describe_build  # bench/, beside this script

import chaodipi.dashboard
from chaodipi.auditor.generate import generate_hand
from chaodipi.service.ingest import ingest_records
from chaodipi.service.readmodel import GameFilter, GameSearch, ReadModel
from chaodipi.v1 import records_pb2

RULESETS = ("classic", "shuangsheng", "anhui", "changshu")
APP = Path(chaodipi.dashboard.__file__).resolve().parent / "app.py"
"""The installed dashboard's app (not a path into the source tree), like every other module."""
START = datetime(2026, 1, 1, tzinfo=UTC)


def _hands(total: int, distinct: int) -> list[records_pb2.GameRecord]:
    base = [generate_hand(RULESETS[i % 4], 20_000 + i) for i in range(distinct)]
    step = timedelta(days=365) / total
    out = []
    for i in range(total):
        hand = records_pb2.GameRecord()
        hand.CopyFrom(base[i % distinct])
        hand.record_id = f"bench-{i}"
        hand.played_at = (START + i * step).isoformat()
        out.append(hand)
    return out


def _timed(what: str, call: Callable[[], object]) -> None:
    start = time.perf_counter()
    answer = call()
    elapsed = time.perf_counter() - start
    size = f"{len(answer)} rows" if isinstance(answer, list | tuple) else ""
    print(f"{what:<46} {elapsed * 1000:8.1f} ms  {size}")


def _page(name: str, url: str, **params: str) -> Callable[[], object]:
    def run() -> object:
        import streamlit as st
        from streamlit.testing.v1 import AppTest

        st.cache_data.clear()
        st.cache_resource.clear()
        os.environ["CHAODIPI_DATABASE_URL"] = url
        at = AppTest.from_file(str(APP), default_timeout=300)
        at.query_params.update({"lang": "zh", **params})
        at.run()
        at.switch_page(f"app_pages/{name}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return run


def main() -> None:
    """Fill the database, then time each read and each page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000, help="hands to store")
    parser.add_argument("--distinct", type=int, default=200, help="distinct deals generated")
    parser.add_argument("--database-url", help="an empty database (default: a new SQLite file)")
    args = parser.parse_args()
    print(describe_build())

    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/bench.db"
        model = ReadModel.open(url)
        assert model.games().total == 0, "the database is not empty"
        start = time.perf_counter()
        hands = _hands(args.hands, min(args.distinct, args.hands))
        for i in range(0, len(hands), 500):
            ingest_records(model.sessions, model.tenant_id, hands[i : i + 500])
        print(f"database: {model.database_url}")
        print(f"stored {model.games().total} hands in {time.perf_counter() - start:.1f} s\n")
        player = max(model.players(), key=lambda p: p.games)
        print(f"busiest player: {player.player_id} ({player.games} hands)\n")
        _timed("search_games, page 1 of all", lambda: model.search_games().games)
        _timed("search_games, page 50", lambda: model.search_games(GameSearch(page=49)).games)
        _timed(
            "search_games, text 'bench-49'",
            lambda: model.search_games(GameSearch(text="bench-49")).games,
        )
        _timed(
            "search_games, player + with findings",
            lambda: (
                model.search_games(
                    GameSearch(GameFilter(player_id=player.player_id, with_findings=True))
                ).games
            ),
        )
        _timed("resolve_game (a record id)", lambda: model.resolve_game(f"bench-{args.hands // 2}"))
        _timed("player_summaries (every player)", model.player_summaries)
        for period in ("day", "week", "month", "match"):
            _timed(
                f"player_trend {period}", lambda p=period: model.player_trend(player.player_id, p)
            )
        print()
        # The first render also imports Streamlit's runtime and opens (migrates) the database.
        _timed("first page rendered (Overview, start-up)", _page("overview", url))
        for name in ("overview", "replay", "games", "players"):
            _timed(f"{name} page rendered (AppTest, cold caches)", _page(name, url))


if __name__ == "__main__":
    main()
