"""Crash safety: a server killed with SIGKILL in the middle of an upload stream loses nothing
and leaves nothing half-written; re-sending the whole stream stores the rest, each record once.

The server runs as ``python -m chaodipi.cli serve`` in a process group of its own, with audit
worker processes; the kill takes the whole group, as a crash of the host or an OOM kill of the
unit would. The stream is held back after ``HOLD_AT`` records until the kill, and the kill comes
once ``KILL_AT`` summaries are back (each batch's once it is committed), so it always lands
while batches are being audited and stored, never after the stream is done.
"""

from __future__ import annotations

import random
import sys
import threading
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sqlalchemy import Engine, func, select

from chaodipi.auditor import audit_game
from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand
from chaodipi.client import AuditClient
from chaodipi.service.audited import content_hash
from chaodipi.service.db import make_engine
from chaodipi.service.models import Finding, Game, GamePlayer, Match
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2
from tests.service.service_support import ServerProcess, group_members

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="reads process groups in /proc"),
]

HANDS = 1000
DISTINCT = 80  # generated deals; the stream repeats them under new record ids
FAULTY_EVERY = 4  # every 4th deal has a planted fault, so findings must be stored with it
HOLD_AT = 600  # the stream waits here until the server is killed
KILL_AT = 128  # games stored when the server is killed (two of its 64-record batches)

STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE
_FindingKey = tuple[str, int, int | None, int | None, int | None]


def _stream() -> list[service_pb2.UploadRecordsRequest]:
    """``HANDS`` hands with distinct content (record ids), a quarter of them with findings."""
    rulesets = ("classic", "shuangsheng", "anhui", "changshu")
    rng = random.Random(2024)
    deals = []
    for i in range(DISTINCT):
        hand = generate_hand(rulesets[i % 4], 7_000 + i)
        if i % FAULTY_EVERY == 0:
            hand, _ = plant_any(hand, rng)
        deals.append(hand)
    requests = []
    for i in range(HANDS):
        hand = records_pb2.GameRecord()
        hand.CopyFrom(deals[i % DISTINCT])
        hand.record_id = f"crash-{i:04d}"
        requests.append(service_pb2.UploadRecordsRequest(game=hand, client_ref=str(i)))
    return requests


def _finding_key(f: audit_pb2.Finding) -> _FindingKey:
    pos = f.position
    return (
        f.code,
        int(f.severity),
        pos.seat if pos.HasField("seat") else None,
        pos.trick if pos.HasField("trick") else None,
        pos.play if pos.HasField("play") else None,
    )


def _count(engine: Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(Game)).scalar_one()


def _check_stored(engine: Engine, sent: dict[str, service_pb2.UploadRecordsRequest]) -> set[str]:
    """Check that every stored game is one of ``sent``, stored once and whole (record, audit,
    four seats, its findings); the record ids of the stored games."""
    with engine.connect() as conn:
        games = conn.execute(
            select(
                Game.id,
                Game.record_id,
                Game.content_hash,
                Game.record,
                Game.report,
                Game.breaches,
                Game.scoring_errors,
                Game.warnings,
                Game.finding_codes,
            )
        ).all()
        seats: dict[str, list[int]] = defaultdict(list)
        for game_id, seat in conn.execute(select(GamePlayer.game_id, GamePlayer.seat)):
            seats[game_id].append(seat)
        findings: dict[str | None, Counter[_FindingKey]] = defaultdict(Counter)
        for row in conn.execute(
            select(
                Finding.game_id,
                Finding.code,
                Finding.severity,
                Finding.seat,
                Finding.trick,
                Finding.play,
            )
        ):
            findings[row[0]][tuple(row[1:])] += 1
        assert conn.execute(select(func.count()).select_from(Match)).scalar_one() == 0
    record_ids = Counter(g.record_id for g in games)
    assert [r for r, n in record_ids.items() if n > 1] == [], "a record stored twice"
    assert len({g.content_hash for g in games}) == len(games)
    assert record_ids.keys() <= sent.keys()
    ids = {g.id for g in games}
    assert seats.keys() <= ids and findings.keys() <= ids, "seats or findings without a game"
    for g in games:
        record = records_pb2.GameRecord.FromString(g.record)
        assert record == sent[g.record_id].game
        assert g.content_hash == content_hash(record)
        report = audit_pb2.AuditReport.FromString(g.report)
        assert report == audit_game(record), f"{g.record_id}: stored audit differs"
        assert (g.breaches, g.scoring_errors, g.warnings) == (
            report.breaches,
            report.scoring_errors,
            report.warnings,
        )
        assert g.finding_codes == ",".join(sorted({f.code for f in report.findings}))
        assert sorted(seats.get(g.id, [])) == [0, 1, 2, 3], f"{g.record_id}: seats missing"
        assert findings.get(g.id, Counter()) == Counter(map(_finding_key, report.findings)), (
            f"{g.record_id}: finding rows differ from the stored audit"
        )
    return set(record_ids)


def test_sigkill_mid_stream_then_resend_stores_each_hand_once(
    own_database_url: str, tmp_path: Path
) -> None:
    requests = _stream()
    sent = {r.game.record_id: r for r in requests}
    engine = make_engine(own_database_url)
    servers: list[ServerProcess] = []
    try:
        servers.append(server := ServerProcess(own_database_url, tmp_path, audit_workers=2))
        killed = threading.Event()

        def held() -> Iterator[service_pb2.UploadRecordsRequest]:
            yield from requests[:HOLD_AT]
            killed.wait(60)

        with AuditClient(server.target, upload_timeout=120) as client:
            responses = client.stub.UploadRecords(held(), timeout=120)
            # A summary comes back once its batch is committed: after KILL_AT of them (two of
            # the server's 64-record batches) the kill lands mid-stream, batches in flight.
            answered = [next(responses) for _ in range(KILL_AT)]
            server.kill()
            killed.set()
            with pytest.raises(grpc.RpcError) as caught:
                answered.extend(responses)
        assert server.survivors() == [], "processes of the killed server survive"
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
        assert {s.status for s in answered} == {STORED}

        before = _check_stored(engine, sent)
        print(f"stored when killed: {len(before)} of {HANDS}")
        assert KILL_AT <= len(before) <= HOLD_AT

        servers.append(server := ServerProcess(own_database_url, tmp_path, audit_workers=2))
        with AuditClient(server.target, upload_timeout=120) as client:
            summaries = list(client.upload_stream(iter(requests)))
        assert server.terminate() == 0
        assert server.survivors() == [], "audit workers outlive a stopped server"

        assert [s.record_id for s in summaries] == [r.game.record_id for r in requests]
        assert Counter(s.status for s in summaries) == {
            STORED: HANDS - len(before),
            DUPLICATE: len(before),
        }
        assert {s.record_id for s in summaries if s.status == DUPLICATE} == before
        assert _check_stored(engine, sent) == sent.keys()
        assert _count(engine) == HANDS
        with engine.connect() as conn:
            stored_ids = dict(conn.execute(select(Game.record_id, Game.id)).all())
            assert conn.execute(select(func.count()).select_from(Finding)).scalar_one() > 0
        assert all(f"games/{stored_ids[s.record_id]}" == s.game for s in summaries)
    finally:
        for server in servers:
            if server.proc.poll() is None:
                server.kill()
            print(f"--- {server.log.name}:\n{server.log.read_text()[-4000:]}")  # shown on failure
        engine.dispose()


def test_audit_workers_exit_when_the_server_process_is_killed(tmp_path: Path) -> None:
    # An OOM kill (or ``kill -9 <pid>``) takes the server process only, not its group.
    server = ServerProcess(f"sqlite:///{tmp_path / 'service.db'}", tmp_path, audit_workers=2)
    try:
        assert len(group_members(server.pgid)) >= 3  # the server and its two workers
        server.proc.kill()
        server.proc.wait(30)
        assert server.survivors() == [], "orphaned audit workers"
    finally:
        server.kill()
