"""Writing audited records: a game is stored with its seats, findings and computed results in the
same transaction, never without its audit. Duplicates (same content hash) are stored once.

A record id names one record of a tenant: a single hand (or a match) whose record id is already
stored with other content is not stored but answered ``STATUS_CONFLICT``, naming the stored game
(or match); the unique indexes ``uq_game_tenant_record`` and ``uq_match_tenant_record`` hold it
against concurrent uploads too. A record the database refuses for any other reason is rejected
alone (``STATUS_REJECTED``, "cannot be stored"); the rest of its batch is stored.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import Session
from sqlmodel import col

from chaodipi.auditor.wire import short_level_result
from chaodipi.service.audited import Audited, content_hash, fill_from_match, rejected_summary
from chaodipi.service.db import SessionFactory
from chaodipi.service.limits import echo
from chaodipi.service.models import Finding, Game, GamePlayer, Match, Player, Tenant
from chaodipi.service.names import game_name, match_name
from chaodipi.service.results import parse_played_at, seat_rows, utcnow
from chaodipi.v1 import audit_pb2, records_pb2, service_pb2

STORED = service_pb2.RecordSummary.STATUS_STORED
DUPLICATE = service_pb2.RecordSummary.STATUS_DUPLICATE
CONFLICT = service_pb2.RecordSummary.STATUS_CONFLICT

log = logging.getLogger("chaodipi.service")

# What a stored game or match answers a duplicate or a conflict with: content hash, id, counts,
# codes and record id.
_StoredRow = Row[str, str, int, int, int, str, str]


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
    stored_id: str,
    status: service_pb2.RecordSummary.Status.ValueType,
    *,
    breaches: int,
    scoring_errors: int,
    warnings: int,
    codes: Iterable[str],
) -> service_pb2.RecordSummary:
    summary = service_pb2.RecordSummary(
        index=item.index,
        client_ref=item.client_ref,
        record_id=item.record_id,
        status=status,
        breaches=breaches,
        scoring_errors=scoring_errors,
        warnings=warnings,
        finding_codes=codes,
    )
    if item.match is not None:
        summary.match = match_name(stored_id)
    else:
        summary.game = game_name(stored_id)
    return summary


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


def _conflict_summary(item: Audited, holder: str) -> service_pb2.RecordSummary:
    """The record id is taken by the stored ``holder`` (an id) with other content."""
    summary = _summary(item, holder, CONFLICT, breaches=0, scoring_errors=0, warnings=0, codes=())
    field = "match_id" if item.match is not None else "record_id"
    description = (
        f"{echo(item.record_id)!r} already names {summary.match or summary.game}, stored with "
        "other content: a record id names one record, so give the changed record a new id"
    )
    summary.error = f"{field}: {description}"
    summary.violations.add(field=field, description=description)
    return summary


def _stored(
    session: Session,
    model: type[Game] | type[Match],
    tenant_id: int,
    *conditions: ColumnElement[bool],
) -> list[_StoredRow]:
    query = select(
        col(model.content_hash),
        col(model.id),
        col(model.breaches),
        col(model.scoring_errors),
        col(model.warnings),
        col(model.finding_codes),
        col(model.record_id),
    ).where(col(model.tenant_id) == tenant_id, *conditions)
    return list(session.execute(query))


def _named(
    session: Session,
    model: type[Game] | type[Match],
    tenant_id: int,
    record_ids: list[str],
    *conditions: ColumnElement[bool],
) -> dict[str, _StoredRow]:
    """The tenant's stored games (or matches) with these record ids, by record id."""
    if not record_ids:
        return {}
    # "record_id <> ''" spelled out: it matches the unique indexes' own condition, so the
    # database searches them (without it, SQLite scanned every game of the tenant).
    named = col(model.record_id).in_(record_ids), col(model.record_id) != ""
    found = _stored(session, model, tenant_id, *named, *conditions)
    return {row.record_id: row for row in found}


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
    found = _stored(session, model, tenant_id, col(model.content_hash).in_(hashes), *conditions)
    return {row.content_hash: row for row in found}


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
    # Record ids already stored, by kind: a single hand's or a match's own (hands of a match are
    # named through their match, and an empty record id names nothing).
    named: dict[bool, dict[str, _StoredRow]] = {
        False: _named(
            session,
            Game,
            tenant_id,
            [i.record_id for i in items if i.game is not None and i.record_id],
            col(Game.dedupe_scope) == "",
        ),
        True: _named(
            session,
            Match,
            tenant_id,
            [i.record_id for i in items if i.match is not None and i.record_id],
        ),
    }
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
    taken_here: dict[bool, dict[str, str]] = {False: {}, True: {}}  # record ids stored in it
    for item in items:
        if item.content_hash in fresh:
            summary = service_pb2.RecordSummary()
            summary.CopyFrom(fresh[item.content_hash])
            summary.index, summary.client_ref = item.index, item.client_ref
            summary.record_id = item.record_id
            summary.status = DUPLICATE
            summaries.append(summary)
            continue
        is_match = item.match is not None
        existing = existing_matches if is_match else existing_games
        holder = named[is_match].get(item.record_id) if item.record_id else None
        if item.content_hash not in existing and holder is not None:
            # The two lookups may see different commits of a concurrent upload: the holder of
            # the record id decides, a duplicate when its content is this record's.
            if holder.content_hash != item.content_hash:
                summaries.append(_conflict_summary(item, holder.id))
                continue
            existing[item.content_hash] = holder
        if item.record_id and item.record_id in taken_here[is_match]:
            summaries.append(_conflict_summary(item, taken_here[is_match][item.record_id]))
            continue
        old = existing.get(item.content_hash)
        if item.game is not None and item.report is not None:
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
        if item.record_id and summary.status == STORED:
            taken_here[is_match][item.record_id] = (summary.match or summary.game).partition("/")[2]
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
        summary.hand_games.extend(
            game_name(game_id)
            for game_id in session.scalars(
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
        hand_id = _game_rows(
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
        summary.hand_games.append(game_name(hand_id))
    return summary


def store_batch(
    sessions: SessionFactory, tenant_id: int, items: Sequence[Audited]
) -> list[service_pb2.RecordSummary]:
    """Store audited records in one transaction; summaries in the items' order.

    Rejected items are summarised, not stored. If the batch fails on a unique key (a concurrent
    upload stored some of the same content or record ids first) or on a value the database
    refuses, it is retried one record per transaction: each record is then stored whole,
    reported as a duplicate or a conflict, or rejected alone as one the database cannot store.
    A record that conflicts again (a third upload stored it meanwhile) is retried until it reads
    as the duplicate it is. A database that cannot be reached (``OperationalError``) fails the
    batch: nothing of it is stored.
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
        except DBAPIError as exc:
            if not _refused(exc):
                raise
            stored = [_store_one(sessions, tenant_id, item) for item in valid]
        out.update((s.index, s) for s in stored)
    return [out[item.index] for item in items]


def _refused(exc: DBAPIError) -> bool:
    """Whether the database refused the statement's values (a record's fault), rather than
    being out of reach (a fault of the moment: the call fails and may be retried)."""
    unreachable = isinstance(exc, (OperationalError, InterfaceError))
    return not unreachable and not exc.connection_invalidated


def _store_one(
    sessions: SessionFactory, tenant_id: int, item: Audited, attempts: int = 5
) -> service_pb2.RecordSummary:
    # A conflict means the other record is committed (PostgreSQL waits for the other
    # transaction, SQLite has one writer): the next attempt finds it and reports a duplicate.
    try:
        for _ in range(attempts - 1):
            try:
                with sessions() as session, session.begin():
                    return _store(session, tenant_id, [item])[0]
            except IntegrityError:
                continue
        with sessions() as session, session.begin():
            return _store(session, tenant_id, [item])[0]
    except DBAPIError as exc:
        if not _refused(exc):
            raise
        # The statement may quote the record: the server's log has it, the caller does not.
        log.warning("record %d cannot be stored: %s", item.index, exc.orig)
        item.violations.append(
            audit_pb2.FieldViolation(
                field="record",
                description="cannot be stored: the database refused one of its values",
            )
        )
        return rejected_summary(item)
