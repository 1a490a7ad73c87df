"""Concurrent uploads: 32 clients at once, hands shared between clients of a tenant (so their
dedupe races) and between tenants; every hand stored once per tenant, and whole.
``bench/load.py`` is the big one (32 clients x 200 hands)."""

from __future__ import annotations

import itertools
import secrets
import threading
from collections import defaultdict
from typing import Any

import grpc
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient
from chaodipi.service import store
from chaodipi.service.ingest import ingest_records
from chaodipi.service.keys import create_key
from chaodipi.service.models import Game, GamePlayer, Match, Tenant
from chaodipi.service.store import ensure_tenant
from chaodipi.v1 import records_pb2, service_pb2
from tests.service.service_support import Service

STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE
TENANTS = 4
CLIENTS_PER_TENANT = 8
OWN = 2  # hands only one client of a tenant sends
SHARED = 4  # hands all clients of a tenant may send; each sends three of them
ROUNDS = 3


def _describe(exc: BaseException) -> str:
    if isinstance(exc, grpc.RpcError):  # the server's exception, in the status details
        return f"{exc.code()}: {exc.details()[:300]}"
    return repr(exc)


def test_concurrent_uploads_store_each_hand_once(service: Service) -> None:
    for _ in range(ROUNDS):  # races are rare events: a few rounds give them more chances
        _concurrent_uploads(service)


def _concurrent_uploads(service: Service) -> None:
    rulesets = ("classic", "shuangsheng", "anhui", "changshu")
    own = [
        [generate_hand(rulesets[c % 4], 900 + c * OWN + i) for i in range(OWN)]
        for c in range(CLIENTS_PER_TENANT)
    ]
    shared = [generate_hand(rulesets[i], 800 + i) for i in range(SHARED)]
    distinct = {h.record_id for hands in own for h in hands} | {h.record_id for h in shared}
    assert len(distinct) == CLIENTS_PER_TENANT * OWN + SHARED

    # Three shared hands around a client's own, in an order of its own: the same content
    # arrives in concurrent transactions, first, in the middle or last in them.
    orders = list(itertools.permutations(range(SHARED), 3))

    def hands_of(c: int) -> list[records_pb2.GameRecord]:
        first, middle, last = orders[(c * 5) % len(orders)]
        return [shared[first], own[c][0], shared[middle], own[c][1], shared[last]]

    names = [f"concurrent-{i}-{secrets.token_hex(4)}" for i in range(TENANTS)]
    keys = [create_key(service.sessions, name)[1] for name in names]
    start = threading.Barrier(TENANTS * CLIENTS_PER_TENANT)
    results: dict[int, list[list[service_pb2.RecordSummary]]] = defaultdict(list)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(tenant: int, c: int) -> None:
        try:
            with AuditClient(service.target, api_key=keys[tenant], timeout=120) as client:
                hands = hands_of(c)
                start.wait(30)
                summaries = client.upload(hands)
            with lock:
                results[tenant].append(summaries)
        except BaseException as exc:  # reported by the main thread
            with lock:
                errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(t, c), daemon=True)
        for t in range(TENANTS)
        for c in range(CLIENTS_PER_TENANT)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, [_describe(e) for e in errors]
    assert not any(thread.is_alive() for thread in threads)

    for tenant, name in enumerate(names):
        game_ids: dict[str, set[str]] = defaultdict(set)
        stored: dict[str, int] = defaultdict(int)
        for summaries in results[tenant]:
            assert len(summaries) == OWN + 3
            for s in summaries:
                assert s.status in (STORED, DUPLICATE), s
                game_ids[s.record_id].add(s.game.partition("/")[2])
                stored[s.record_id] += s.status == STORED
        assert game_ids.keys() == distinct
        assert all(len(ids) == 1 for ids in game_ids.values()), "one content, two games"
        assert all(n == 1 for n in stored.values()), f"stored more or less than once: {stored}"
        with service.sessions() as session:
            tenant_id = session.scalars(select(Tenant.id).where(Tenant.name == name)).one()
            rows = session.execute(
                select(Game.id, Game.record_id).where(Game.tenant_id == tenant_id)
            ).all()
            seats = dict(
                session.execute(
                    select(GamePlayer.game_id, func.count())
                    .join(Game, Game.id == GamePlayer.game_id)
                    .where(Game.tenant_id == tenant_id)
                    .group_by(GamePlayer.game_id)
                ).all()
            )
        assert sorted(r.record_id for r in rows) == sorted(distinct)
        assert {r.id for r in rows} == {i for ids in game_ids.values() for i in ids}
        assert all(seats.get(r.id) == 4 for r in rows)


def test_a_hand_stored_meanwhile_twice_over_reads_as_a_duplicate(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race above, made certain: another upload commits the hand between this transaction's
    # lookups (of its content and of its record id) and its insert, for the batch and again for
    # the retry of the record on its own.
    tenant = ensure_tenant(service.sessions, f"race-{secrets.token_hex(4)}")
    hand = generate_hand("classic", 990)
    (first,) = ingest_records(service.sessions, tenant, [hand])
    blind = {"_existing": 2, "_named": 2}

    def late(name: str) -> Any:
        lookup = getattr(store, name)

        def blinded(session: Session, model: type[Game] | type[Match], *args: Any) -> Any:
            if model is Game and blind[name]:
                blind[name] -= 1
                return {}
            return lookup(session, model, *args)

        return blinded

    for name in blind:
        monkeypatch.setattr(store, name, late(name))
    (again,) = ingest_records(service.sessions, tenant, [hand])
    assert blind == {"_existing": 0, "_named": 0}
    assert again.status == DUPLICATE and again.game == first.game
