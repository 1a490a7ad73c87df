"""Writing audited records: a game is stored with its seats, findings and computed results in the
same transaction, never without its audit. Duplicates (same content hash) are stored once."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlmodel import col

from chaodipi.auditor.wire import short_level_result
from chaodipi.service.audited import Audited, content_hash, fill_from_match, rejected_summary
from chaodipi.service.db import SessionFactory
from chaodipi.service.models import Finding, Game, GamePlayer, Match, Player, Tenant
from chaodipi.service.results import parse_played_at, seat_rows, utcnow
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE

# What a stored game or match answers a duplicate with: content hash, id, counts and codes.
_StoredRow = Row[str, str, int, int, int, str]


def new_id() -> str:
    """A random 16-hex-digit id for games and matches (short enough to type)."""
    return secrets.token_hex(8)


def find_tenant(session: Session, name: str) -> int | None:
    """The id of the tenant called ``name`` (``"default"`` when the server runs without keys)."""
    return session.scalar(select(col(Tenant.id)).where(col(Tenant.name) == name))


def ensure_tenant(sessions: SessionFactory, name: str) -> int:
    """The id of the tenant called ``name``, created if missing."""
    with sessions() as session, session.begin():
        found = find_tenant(session, name)
        if found is None:
            session.execute(
                _insert_ignore(session, Tenant), [{"name": name, "created_at": utcnow()}]
            )
            found = find_tenant(session, name)
        assert found is not None
        return found


def _insert_ignore(session: Session, model: type[Any]) -> Any:
    # INSERT … ON CONFLICT DO NOTHING: concurrent uploads may add the same player at once.
    if session.get_bind().dialect.name == "postgresql":
        return pg_insert(model).on_conflict_do_nothing()
    return sqlite_insert(model).on_conflict_do_nothing()


def ensure_players(session: Session, tenant_id: int, names: dict[str, str]) -> dict[str, int]:
    """Player ids by record player id, adding new players and keeping the latest display name."""
    if not names:
        return {}
    # Rows are inserted and updated in key order: concurrent uploads of the same players then
    # lock them in the same order and cannot deadlock on PostgreSQL.
    query = (
        select(col(Player.player_key), col(Player.id), col(Player.display_name))
        .where(col(Player.tenant_id) == tenant_id, col(Player.player_key).in_(names))
        .order_by(col(Player.player_key))
    )
    rows = session.execute(query).all()
    missing = sorted(names.keys() - {key for key, _, _ in rows})
    if missing:
        session.execute(
            _insert_ignore(session, Player),
            [{"tenant_id": tenant_id, "player_key": k, "display_name": names[k]} for k in missing],
        )
        rows = session.execute(query).all()
    ids: dict[str, int] = {}
    for key, player_id, name in rows:
        assert player_id is not None  # the primary key of a stored row
        ids[key] = player_id
        if names[key] and names[key] != name:
            session.execute(
                update(Player).where(col(Player.id) == player_id).values(display_name=names[key])
            )
    return ids


@dataclass(slots=True)
class _Rows:
    """Rows of one batch, inserted table by table so each insert is one batched statement."""

    matches: list[dict[str, Any]]
    games: list[dict[str, Any]]
    seats: list[dict[str, Any]]
    findings: list[dict[str, Any]]


def _codes(findings: Sequence[audit_pb2.Finding]) -> list[str]:
    return sorted({f.code for f in findings})


def _finding_row(
    finding: audit_pb2.Finding, players: list[int | None], game_id: str | None, match_id: str | None
) -> dict[str, Any]:
    pos = finding.position
    seat = pos.seat if pos.HasField("seat") else None
    return {
        "game_id": game_id,
        "match_id": match_id,
        "code": finding.code,
        "severity": int(finding.severity),
        "seat": seat,
        "player_id": players[seat] if seat is not None and 0 <= seat < len(players) else None,
        "trick": pos.trick if pos.HasField("trick") else None,
        "play": pos.play if pos.HasField("play") else None,
        "hand_index": pos.hand_index if pos.HasField("hand_index") else None,
        "rule_id": finding.rule_id,
        "message": finding.message,
    }


def _game_rows(
    rows: _Rows,
    tenant_id: int,
    record: records_pb2.GameRecord,
    report: audit_pb2.AuditReport,
    player_ids: dict[str, int],
    stored_at: datetime,
    *,
    digest: str,
    scope: str = "",
    match_id: str | None = None,
    hand_index: int | None = None,
) -> str:
    game_id = new_id()
    computed = report.computed
    seats: list[int | None] = [player_ids.get(p.id) if p.id else None for p in record.players[:4]]
    seats += [None] * (4 - len(seats))
    rows.games.append(
        {
            "id": game_id,
            "tenant_id": tenant_id,
            "content_hash": digest,
            "dedupe_scope": scope,
            "record_id": record.record_id,
            "ruleset": report.ruleset or record.ruleset,
            "played_at": parse_played_at(record.played_at),
            "stored_at": stored_at,
            "match_id": match_id,
            "hand_index": hand_index,
            "record": record.SerializeToString(),
            "report": report.SerializeToString(),
            "breaches": report.breaches,
            "scoring_errors": report.scoring_errors,
            "warnings": report.warnings,
            "finding_codes": ",".join(_codes(report.findings)),
            "dealer_seat": computed.dealer if computed.HasField("dealer") else None,
            "defenders_points": computed.defenders_points if report.HasField("computed") else None,
            "level_result": short_level_result(computed.level_result),
        }
    )
    rows.seats.extend(seat_rows(computed, game_id, seats))
    rows.findings.extend(_finding_row(f, seats, game_id, match_id) for f in report.findings)
    return game_id


def _summary(
    item: Audited,
    game_id: str,
    status: service_pb2.RecordSummary.Status.ValueType,
    *,
    breaches: int,
    scoring_errors: int,
    warnings: int,
    codes: Iterable[str],
) -> service_pb2.RecordSummary:
    return service_pb2.RecordSummary(
        index=item.index,
        client_ref=item.client_ref,
        record_id=item.record_id,
        game_id=game_id,
        status=status,
        duplicate=status == DUPLICATE,
        breaches=breaches,
        scoring_errors=scoring_errors,
        warnings=warnings,
        finding_codes=codes,
    )


def _duplicate_summary(item: Audited, old: _StoredRow) -> service_pb2.RecordSummary:
    return _summary(
        item,
        old.id,
        DUPLICATE,
        breaches=old.breaches,
        scoring_errors=old.scoring_errors,
        warnings=old.warnings,
        codes=[c for c in old.finding_codes.split(",") if c],
    )


def _existing(
    session: Session,
    model: type[Game] | type[Match],
    tenant_id: int,
    hashes: list[str],
    *conditions: ColumnElement[bool],
) -> dict[str, _StoredRow]:
    """The tenant's stored games (or matches) with these content hashes, by hash."""
    if not hashes:
        return {}
    query = select(
        col(model.content_hash),
        col(model.id),
        col(model.breaches),
        col(model.scoring_errors),
        col(model.warnings),
        col(model.finding_codes),
    ).where(col(model.tenant_id) == tenant_id, col(model.content_hash).in_(hashes), *conditions)
    return {row.content_hash: row for row in session.execute(query)}


def _store(
    session: Session, tenant_id: int, items: Sequence[Audited]
) -> list[service_pb2.RecordSummary]:
    existing_games = _existing(
        session,
        Game,
        tenant_id,
        [i.content_hash for i in items if i.game is not None],
        col(Game.dedupe_scope) == "",
    )
    existing_matches = _existing(
        session, Match, tenant_id, [i.content_hash for i in items if i.match is not None]
    )
    names: dict[str, str] = {}
    for item in items:
        record = item.game if item.game is not None else item.match
        assert record is not None
        for p in record.players:
            if p.id:
                names[p.id] = p.display_name or names.get(p.id, "")
    player_ids = ensure_players(session, tenant_id, names)
    stored_at = utcnow()
    rows = _Rows([], [], [], [])
    summaries: list[service_pb2.RecordSummary] = []
    fresh: dict[str, service_pb2.RecordSummary] = {}  # repeated content within this batch
    for item in items:
        if item.content_hash in fresh:
            summary = service_pb2.RecordSummary()
            summary.CopyFrom(fresh[item.content_hash])
            summary.index, summary.client_ref = item.index, item.client_ref
            summary.status, summary.duplicate = DUPLICATE, True
            summaries.append(summary)
            continue
        if item.game is not None and item.report is not None:
            old = existing_games.get(item.content_hash)
            if old is not None:
                summary = _duplicate_summary(item, old)
            else:
                report = item.report
                game_id = _game_rows(
                    rows,
                    tenant_id,
                    item.game,
                    report,
                    player_ids,
                    stored_at,
                    digest=item.content_hash,
                )
                summary = _summary(
                    item,
                    game_id,
                    STORED,
                    breaches=report.breaches,
                    scoring_errors=report.scoring_errors,
                    warnings=report.warnings,
                    codes=_codes(report.findings),
                )
        else:
            summary = _store_match(
                session, rows, tenant_id, item, existing_matches, player_ids, stored_at
            )
        fresh[item.content_hash] = summary
        summaries.append(summary)
    # Matches and games in content-hash order, for the same reason as players: two batches
    # holding the same records in different orders wait for each other, never deadlock.
    rows.matches.sort(key=lambda row: row["content_hash"])
    rows.games.sort(key=lambda row: (row["dedupe_scope"], row["content_hash"]))
    for model, values in (
        (Match, rows.matches),
        (Game, rows.games),
        (GamePlayer, rows.seats),
        (Finding, rows.findings),
    ):
        if values:
            session.execute(insert(model), values)
    return summaries


def _store_match(
    session: Session,
    rows: _Rows,
    tenant_id: int,
    item: Audited,
    existing: dict[str, _StoredRow],
    player_ids: dict[str, int],
    stored_at: datetime,
) -> service_pb2.RecordSummary:
    match, report = item.match, item.match_report
    assert match is not None and report is not None
    old = existing.get(item.content_hash)
    if old is not None:
        summary = _duplicate_summary(item, old)
        summary.hand_game_ids.extend(
            session.scalars(
                select(col(Game.id))
                .where(col(Game.match_id) == old.id)
                .order_by(col(Game.hand_index))
            )
        )
        return summary
    match_id = new_id()
    all_findings = [*report.findings, *(f for hand in report.hands for f in hand.findings)]
    counts = {
        sev: sum(1 for f in all_findings if f.severity == sev)
        for sev in (
            audit_pb2.SEVERITY_BREACH,
            audit_pb2.SEVERITY_SCORING_ERROR,
            audit_pb2.SEVERITY_WARNING,
        )
    }
    codes = _codes(all_findings)
    bare = records_pb2.MatchRecord()
    bare.CopyFrom(match)
    del bare.hands[:]  # the hands are stored as games
    match_level = audit_pb2.MatchAuditReport()
    match_level.CopyFrom(report)
    del match_level.hands[:]
    rows.matches.append(
        {
            "id": match_id,
            "tenant_id": tenant_id,
            "content_hash": item.content_hash,
            "record_id": match.match_id,
            "ruleset": match.ruleset,
            "stored_at": stored_at,
            "record": bare.SerializeToString(),
            "report": match_level.SerializeToString(),
            "hands": len(match.hands),
            "breaches": counts[audit_pb2.SEVERITY_BREACH],
            "scoring_errors": counts[audit_pb2.SEVERITY_SCORING_ERROR],
            "warnings": counts[audit_pb2.SEVERITY_WARNING],
            "finding_codes": ",".join(codes),
        }
    )
    seats: list[int | None] = [player_ids.get(p.id) if p.id else None for p in match.players[:4]]
    rows.findings.extend(_finding_row(f, seats, None, match_id) for f in report.findings)
    summary = _summary(
        item,
        match_id,
        STORED,
        breaches=counts[audit_pb2.SEVERITY_BREACH],
        scoring_errors=counts[audit_pb2.SEVERITY_SCORING_ERROR],
        warnings=counts[audit_pb2.SEVERITY_WARNING],
        codes=codes,
    )
    for i, (hand, hand_report) in enumerate(zip(fill_from_match(match), report.hands, strict=True)):
        summary.hand_game_ids.append(
            _game_rows(
                rows,
                tenant_id,
                hand,
                hand_report,
                player_ids,
                stored_at,
                digest=content_hash(hand),
                scope=f"{match_id}#{i}",
                match_id=match_id,
                hand_index=i,
            )
        )
    return summary


def store_batch(
    sessions: SessionFactory, tenant_id: int, items: Sequence[Audited]
) -> list[service_pb2.RecordSummary]:
    """Store audited records in one transaction; summaries in the items' order.

    Rejected items are summarised, not stored. If a concurrent upload stored some of the same
    content first (a unique-key conflict), the batch is retried one record per transaction, so
    each record is still stored whole or reported as a duplicate; a record that conflicts again
    (a third upload stored it meanwhile) is retried until it reads as the duplicate it is.
    """
    out: dict[int, service_pb2.RecordSummary] = {}
    valid = []
    for item in items:
        if item.violations:
            out[item.index] = rejected_summary(item)
        else:
            valid.append(item)
    if valid:
        try:
            with sessions() as session, session.begin():
                stored = _store(session, tenant_id, valid)
        except IntegrityError:
            stored = [_store_one(sessions, tenant_id, item) for item in valid]
        out.update((s.index, s) for s in stored)
    return [out[item.index] for item in items]


def _store_one(
    sessions: SessionFactory, tenant_id: int, item: Audited, attempts: int = 5
) -> service_pb2.RecordSummary:
    # A conflict means the other record is committed (PostgreSQL waits for the other
    # transaction, SQLite has one writer): the next attempt finds it and reports a duplicate.
    for _ in range(attempts - 1):
        try:
            with sessions() as session, session.begin():
                return _store(session, tenant_id, [item])[0]
        except IntegrityError:
            continue
    with sessions() as session, session.begin():
        return _store(session, tenant_id, [item])[0]
