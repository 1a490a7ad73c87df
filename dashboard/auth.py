"""Who a dashboard session reads for: one tenant, chosen by signing in.

- An **API key** (``chaodipi keys create TENANT``) signs in to its tenant, checked by the read
  model (``ReadModel.for_api_key``: the service's key lookup); the key itself is not kept.
- **Streamlit's OIDC login**, where the dashboard's secrets configure it (an ``[auth]``
  section, see Streamlit's docs), signs in an account; ``[chaodipi.tenants]`` in the same
  secrets maps the account's e-mail to a tenant name. An account without a tenant sees nothing.
- **Without sign-in**, the service's default tenant, and only for a browser on this computer:
  the client address is a loopback address and the ``Host`` header names this computer (a
  reverse proxy in front of the dashboard sends its public name, so it must sign in). A session
  without an HTTP request (Streamlit's AppTest, bare mode) is local too.

The tenant id goes into the session state (``data.TENANT_KEY``), which every cached read
takes as part of its key, so one session never sees another tenant's data.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from urllib.parse import urlsplit

import streamlit as st

from chaodipi.dashboard import data
from chaodipi.dashboard.i18n import Lang, t
from chaodipi.service.readmodel import ReadModel

SIGNED_KEY = "cdp-signed"
"""The session state entry holding the session's ``Signed``."""

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True, slots=True)
class Signed:
    """A session's tenant, and how the session got it."""

    tenant_id: int
    how: str  # "local", "key" or "oidc"
    user: str = ""


def is_local(ip: object, headers: Mapping[str, str]) -> bool:
    """True when a request comes from this computer: no request at all (no headers, as under
    AppTest), or a loopback client (Streamlit gives no address for one) with a ``Host`` that
    names this computer.

    >>> is_local(None, {"Host": "localhost:8501"}), is_local("10.0.0.2", {"Host": "localhost"})
    (True, False)
    >>> is_local(None, {"Host": "chaodipi.example.org"})    # behind a reverse proxy
    False
    """
    if not headers:
        return True
    if ip is None:
        loopback = True
    elif isinstance(ip, str):
        try:
            loopback = ipaddress.ip_address(ip).is_loopback
        except ValueError:
            return False
    else:
        return False
    host = headers.get("Host", headers.get("host", ""))
    name = urlsplit(f"//{host}").hostname or ""
    return loopback and name in LOCAL_HOSTS


def request_is_local() -> bool:
    """Does the session's request come from this computer (``is_local`` of ``st.context``)?"""
    return is_local(st.context.ip_address, dict(st.context.headers))


def _secret_section(name: str) -> Mapping[str, object]:
    """A section of the dashboard's secrets (empty when there are no secrets)."""
    try:
        section = st.secrets.get(name, {})
    except FileNotFoundError:  # Streamlit's "no secrets file" error is one
        return {}
    return section if isinstance(section, Mapping) else {}


def oidc_configured() -> bool:
    """True when the secrets configure Streamlit's OIDC login."""
    return bool(_secret_section("auth"))


def oidc_tenant(email: str) -> str | None:
    """The tenant name ``[chaodipi.tenants]`` gives an account's e-mail, or None."""
    tenants = _secret_section("chaodipi").get("tenants", {})
    if not isinstance(tenants, Mapping):
        return None
    name = tenants.get(email)
    return name if isinstance(name, str) and name else None


def current() -> Signed | None:
    """The session's sign-in, settling it first: an OIDC account with a tenant, else the
    default tenant for a local request; None when the session must sign in."""
    signed: Signed | None = st.session_state.get(SIGNED_KEY)
    if signed is None and oidc_configured() and st.user.is_logged_in:
        email = str(st.user.get("email") or "")
        name = oidc_tenant(email)
        found = ReadModel.for_tenant(data.base().sessions, name) if name else None
        if found is not None:
            signed = Signed(found.tenant_id, "oidc", email)
    if signed is None and request_is_local():
        signed = Signed(data.base().tenant_id, "local")
    if signed is not None:
        st.session_state[SIGNED_KEY] = signed
        st.session_state[data.TENANT_KEY] = signed.tenant_id
    return signed


def sign_in_with_key(key: str) -> bool:
    """Sign the session in to the tenant of an API key; False for an unknown or revoked key."""
    found = ReadModel.for_api_key(data.base().sessions, key)
    if found is None:
        return False
    st.session_state[SIGNED_KEY] = Signed(found.tenant_id, "key")
    st.session_state[data.TENANT_KEY] = found.tenant_id
    return True


def sign_out() -> None:
    """Forget the session's sign-in (a local session falls back to the default tenant)."""
    for key in (SIGNED_KEY, data.TENANT_KEY):
        st.session_state.pop(key, None)
    if oidc_configured() and st.user.is_logged_in:
        st.logout()


def _key_form(lang: Lang, key: str) -> None:
    """The API key form: signs in and reruns, or says the key is not known."""
    with st.form(key, clear_on_submit=True):
        secret = st.text_input(
            t(lang, "auth.key"), type="password", help=t(lang, "auth.key_help"), key=f"{key}-key"
        )
        if st.form_submit_button(t(lang, "auth.sign_in")):
            if sign_in_with_key(secret):
                st.rerun()
            st.error(t(lang, "auth.bad_key"))


def sign_in_page(lang: Lang) -> None:
    """The page shown instead of the dashboard to a session that must sign in."""
    st.title(t(lang, "auth.heading"))
    st.info(t(lang, "auth.needed"))
    _key_form(lang, "sign-in")
    if oidc_configured() and st.button(t(lang, "auth.oidc"), key="oidc-login"):
        st.login()
    if oidc_configured() and st.user.is_logged_in:
        st.warning(t(lang, "auth.no_tenant", user=str(st.user.get("email") or "?")))


def sidebar(lang: Lang, signed: Signed) -> None:
    """The tenant the session reads, how it signed in, and the ways to change it."""
    tenant = t(lang, "auth.tenant", name=data.tenant_name())
    st.sidebar.html(f'<div class="cdp-tenant">{escape(tenant)}</div>')
    how = {
        "local": t(lang, "auth.local"),
        "key": t(lang, "auth.by_key"),
        "oidc": t(lang, "auth.by_oidc", user=signed.user),
    }[signed.how]
    st.sidebar.caption(how)
    if signed.how == "local":
        with st.sidebar.expander(t(lang, "auth.other_key")):
            _key_form(lang, "sidebar-sign-in")
    elif st.sidebar.button(t(lang, "auth.sign_out"), key="sign-out"):
        sign_out()
        st.rerun()
