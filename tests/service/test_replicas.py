"""Replicas: two ``chaodipi serve`` processes on one PostgreSQL database serve the same tenants.

Both start at the same moment on an empty schema (the migrations run once, under an advisory
lock); keys created after they started work on both (looked up per call); 16 clients race
overlapping uploads through both, and every record is stored exactly once, whichever replica
stored it (the database's unique keys decide, not a process's memory); both replicas then give
the same answers, and a page token from one works on the other.
"""

from __future__ import annotations

import random
import sys
import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient
from chaodipi.service.db import make_engine, session_factory
from chaodipi.service.keys import create_key
from chaodipi.service.migrate import upgrade
from chaodipi.service.models import Game, Tenant
from chaodipi.v1 import records_pb2, service_pb2
from tests.service.service_support import ServerProcess

pytestmark = [
    pytest.mark.slow,
    pytest.mark.postgres,
    pytest.mark.skipif(sys.platform != "linux", reason="reads process groups in /proc"),
]

REPLICAS = 2
CLIENTS = 16
TENANTS = ("north", "south")
HANDS = 40  # distinct hands per tenant
EACH = 24  # hands each client uploads, a random draw of them in its own order

STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE


def _hands(tenant: int) -> list[records_pb2.GameRecord]:
    rng = random.Random(tenant)
    hands = []
    for i in range(HANDS):
        hand = generate_hand(("classic", "anhui")[i % 2], 900 + 100 * tenant + i)
        if i % 5 == 0:
            hand = plant_any(hand, rng)[0]  # findings are stored with their game, once
        hand.record_id = f"{TENANTS[tenant]}-{i:02d}"
        hands.append(hand)
    return hands


def _start_together(url: str, home: Path) -> list[ServerProcess]:
    """Start the replicas at once on the empty schema: they migrate it concurrently."""
    with ThreadPoolExecutor(REPLICAS) as pool:
        futures = [
            pool.submit(ServerProcess, url, home, audit_workers=1, options=["--require-keys"])
            for _ in range(REPLICAS)
        ]
        return [f.result() for f in futures]


def _same_answers(targets: list[str], key: str, player: str) -> int:
    """Check that every replica lists the tenant's games alike, and that a page token of one
    replica continues the listing on another; the number of games."""
    listings = []
    for target in targets:
        with AuditClient(target, api_key=key, timeout=60) as client:
            games = list(client.games())
            full = [client.get_game(g.name) for g in games]
            listings.append([g.SerializeToString(deterministic=True) for g in full])
            stats = client.get_player_stats(player)
            listings.append([stats.SerializeToString(deterministic=True)])
    assert listings[0::2] == [listings[0]] * REPLICAS, "replicas list different games"
    assert listings[1::2] == [listings[1]] * REPLICAS, "replicas count different statistics"
    first, second = (AuditClient(t, api_key=key, timeout=60) for t in targets[:2])
    with first, second:
        page = first.list_games(page_size=7)
        assert page.next_page_token
        here = first.list_games(page_size=7, page_token=page.next_page_token)
        there = second.list_games(page_size=7, page_token=page.next_page_token)
        assert [g.name for g in there.games] == [g.name for g in here.games]
        assert there.next_page_token == here.next_page_token
    return len(listings[0])


def test_two_replicas_store_each_record_once_under_sixteen_racing_clients(
    own_postgres_url: str, tmp_path: Path
) -> None:
    servers = _start_together(own_postgres_url, tmp_path)
    engine = make_engine(own_postgres_url)
    try:
        targets = [s.target for s in servers]
        # Keys made after the replicas started: each replica looks a key up on every call.
        keys = [create_key(session_factory(engine), name)[1] for name in TENANTS]
        hands = [_hands(t) for t in range(len(TENANTS))]
        start = threading.Barrier(CLIENTS)

        def client_run(n: int) -> list[service_pb2.RecordSummary]:
            tenant = n % len(TENANTS)
            draw = random.Random(n).sample(hands[tenant], EACH)
            with AuditClient(targets[n // 2 % REPLICAS], api_key=keys[tenant], timeout=120) as c:
                upload: Callable[..., list[service_pb2.RecordSummary]]
                upload = c.batch_upload if n % 4 < 2 else c.upload
                start.wait()
                return upload(draw)

        with ThreadPoolExecutor(CLIENTS) as pool:
            results = list(pool.map(client_run, range(CLIENTS)))

        stored: dict[tuple[int, str], int] = defaultdict(int)
        named: dict[tuple[int, str], set[str]] = defaultdict(set)
        for n, summaries in enumerate(results):
            assert len(summaries) == EACH
            for s in summaries:
                assert s.status in (STORED, DUPLICATE), f"client {n}: {s}"
                stored[n % len(TENANTS), s.record_id] += s.status == STORED
                named[n % len(TENANTS), s.record_id].add(s.game)
        assert set(stored.values()) == {1}, "a record stored twice, or never"
        assert all(len(games) == 1 for games in named.values()), "one record, two games"

        with engine.connect() as conn:
            counts = dict(
                conn.execute(
                    select(Tenant.name, func.count(Game.id))
                    .join(Game, Game.tenant_id == Tenant.id)
                    .group_by(Tenant.name)
                ).all()
            )
        for tenant, name in enumerate(TENANTS):
            uploaded = {r for t, r in stored if t == tenant}
            assert counts[name] == len(uploaded)
            player = hands[tenant][0].players[0].id
            assert _same_answers(targets, keys[tenant], player) == len(uploaded)
        for server in servers:
            assert server.terminate() == 0
    finally:
        for server in servers:
            if server.proc.poll() is None:
                server.kill()
            print(f"--- {server.log.name}:\n{server.log.read_text()[-4000:]}")  # shown on failure
        engine.dispose()


def test_migrations_started_together_run_once(own_postgres_url: str) -> None:
    engines = [make_engine(own_postgres_url) for _ in range(4)]
    ready = threading.Barrier(len(engines))

    def migrate(n: int) -> None:
        with engines[n].connect():  # connected before the race, so the upgrades overlap
            ready.wait()
        upgrade(engines[n])

    try:
        with ThreadPoolExecutor(len(engines)) as pool:
            list(pool.map(migrate, range(len(engines))))  # re-raises a failed migration
        with engines[0].connect() as conn:
            versions = conn.execute(text("SELECT version_num FROM alembic_version")).all()
        assert len(versions) == 1
    finally:
        for engine in engines:
            engine.dispose()
