"""API keys: each bound to a tenant, stored as a SHA-256 hash, revocable.

A key reads ``cdp_<key id>_<secret>``; the id is public (listed, used to revoke), the secret
is 32 random bytes, so a plain SHA-256 of the whole key is as strong as a slow password hash.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlmodel import col

from chaodipi.service.db import SessionFactory
from chaodipi.service.models import ApiKey, Tenant
from chaodipi.service.results import utcnow
from chaodipi.service.store import ensure_tenant

PREFIX = "cdp_"


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """A stored key, without its secret."""

    key_id: str
    tenant: str
    created_at: datetime
    revoked_at: datetime | None


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_key(sessions: SessionFactory, tenant: str) -> tuple[str, str]:
    """A new key for ``tenant`` (created if new): its id and the key itself, shown only once."""
    tenant_id = ensure_tenant(sessions, tenant)
    key_id = secrets.token_hex(6)
    key = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
    with sessions() as session, session.begin():
        session.add(
            ApiKey(id=key_id, tenant_id=tenant_id, key_hash=_digest(key), created_at=utcnow())
        )
    return key_id, key


def revoke_key(sessions: SessionFactory, key_id: str) -> bool:
    """Revoke a key by id; False when there is no such active key."""
    with sessions() as session, session.begin():
        # Session.execute is typed as returning Result; for an UPDATE it is a CursorResult.
        result = cast(
            CursorResult[Any],
            session.execute(
                update(ApiKey)
                .where(col(ApiKey.id) == key_id, col(ApiKey.revoked_at).is_(None))
                .values(revoked_at=utcnow())
            ),
        )
        return bool(result.rowcount)


def list_keys(sessions: SessionFactory) -> list[KeyInfo]:
    """All keys, active and revoked, oldest first."""
    with sessions() as session:
        rows = session.execute(
            select(col(ApiKey.id), col(Tenant.name), col(ApiKey.created_at), col(ApiKey.revoked_at))
            .join(Tenant, col(Tenant.id) == col(ApiKey.tenant_id))
            .order_by(col(ApiKey.created_at))
        ).all()
    return [KeyInfo(*row) for row in rows]


def has_active_keys(sessions: SessionFactory) -> bool:
    """True when at least one key is active (the server then requires keys)."""
    with sessions() as session:
        query = select(col(ApiKey.id)).where(col(ApiKey.revoked_at).is_(None)).limit(1)
        return session.scalar(query) is not None


def tenant_for_key(sessions: SessionFactory, key: str) -> int | None:
    """The tenant id of an active key, or None."""
    if not key.startswith(PREFIX):
        return None
    with sessions() as session:
        return session.scalar(
            select(col(ApiKey.tenant_id)).where(
                col(ApiKey.key_hash) == _digest(key), col(ApiKey.revoked_at).is_(None)
            )
        )
