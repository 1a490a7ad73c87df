"""Transport security (issue 16): the server speaks TLS with a certificate made here (a CA of
this test's own), asks for client certificates when given a client CA, and refuses to put API
keys on a network in plaintext unless told ``insecure``."""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import typer
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from typer.testing import CliRunner

from chaodipi.auditor.generate import generate_hand
from chaodipi.cli.service import register
from chaodipi.client import AuditClient, Retry, ServiceError
from chaodipi.service.keys import create_key
from chaodipi.service.server import ConfigError, ServerConfig
from tests.service.service_support import ServerThread

STORED = 1


@dataclass(frozen=True)
class Pems:
    """PEM files: a CA, a server certificate it signed (for 127.0.0.1 and localhost), and a
    client certificate it signed."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[str, ec.EllipticCurvePrivateKey] | None,
    *,
    usage: x509.ObjectIdentifier | None = None,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    issuer_name, issuer_key = issuer or (subject, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer_name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if usage is ExtendedKeyUsageOID.SERVER_AUTH:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    if usage is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _write(path: Path, certificate: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> Path:
    path.with_suffix(".key").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return path


@pytest.fixture(scope="module")
def pems(tmp_path_factory: pytest.TempPathFactory) -> Pems:
    folder = tmp_path_factory.mktemp("pki")
    ca_key, server_key, client_key = _key(), _key(), _key()
    ca = _certificate("chaodipi test CA", ca_key, None)
    issuer = ("chaodipi test CA", ca_key)
    server = _certificate("127.0.0.1", server_key, issuer, usage=ExtendedKeyUsageOID.SERVER_AUTH)
    client = _certificate("a club", client_key, issuer, usage=ExtendedKeyUsageOID.CLIENT_AUTH)
    return Pems(
        ca=_write(folder / "ca.pem", ca, ca_key),
        server_cert=_write(folder / "server.pem", server, server_key),
        server_key=folder / "server.key",
        client_cert=_write(folder / "client.pem", client, client_key),
        client_key=folder / "client.key",
    )


@pytest.fixture
def keyed(own_database_url: str) -> tuple[str, str]:
    """A database with an API key, and the key."""
    config = ServerConfig(port=0, database_url=own_database_url, audit_workers=0)
    ServerThread(config).stop()  # migrated
    from chaodipi.service.db import make_engine, session_factory

    engine = make_engine(own_database_url)
    key = create_key(session_factory(engine), "club")[1]
    engine.dispose()
    return own_database_url, key


@pytest.fixture
def tls_server(keyed: tuple[str, str], pems: Pems) -> Iterator[ServerThread]:
    """A server requiring keys, speaking TLS, listening on all interfaces."""
    url, _ = keyed
    config = ServerConfig(
        port=0,
        host="0.0.0.0",
        database_url=url,
        audit_workers=0,
        grace_seconds=1,
        tls_cert=pems.server_cert,
        tls_key=pems.server_key,
    )
    server = ServerThread(config)
    try:
        yield server
    finally:
        server.stop()


def test_tls_serves_clients_that_trust_its_ca(
    tls_server: ServerThread, keyed: tuple[str, str], pems: Pems
) -> None:
    assert tls_server.running.host == "0.0.0.0"
    key = keyed[1]
    with AuditClient(tls_server.target, api_key=key, tls_ca=pems.ca) as client:
        (summary,) = client.upload([generate_hand("classic", 1)])
        assert summary.status == STORED
        assert client.get_game(summary.game).name == summary.game
    # Plaintext gets nowhere; neither does TLS that trusts another CA (the system's).
    for plain in (
        AuditClient(tls_server.target, api_key=key, retry=Retry(attempts=1), timeout=30),
        AuditClient(tls_server.target, api_key=key, tls=True, retry=Retry(attempts=1), timeout=30),
    ):
        with plain, pytest.raises(ServiceError) as caught:
            plain.list_games()
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


def test_mutual_tls_asks_for_a_client_certificate(keyed: tuple[str, str], pems: Pems) -> None:
    url, key = keyed
    config = ServerConfig(
        port=0,
        database_url=url,
        audit_workers=0,
        grace_seconds=1,
        tls_cert=pems.server_cert,
        tls_key=pems.server_key,
        tls_client_ca=pems.ca,
    )
    server = ServerThread(config)
    try:
        with AuditClient(
            server.target,
            api_key=key,
            tls_ca=pems.ca,
            tls_cert=pems.client_cert,
            tls_key=pems.client_key,
        ) as client:
            assert client.list_games().total_size == 0
        with (
            AuditClient(
                server.target, api_key=key, tls_ca=pems.ca, retry=Retry(attempts=1)
            ) as anonymous,
            pytest.raises(ServiceError) as caught,
        ):
            anonymous.list_games()
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop()


def test_keys_never_cross_a_network_in_plaintext(keyed: tuple[str, str]) -> None:
    url, key = keyed
    with pytest.raises(ConfigError, match="--tls-cert and --tls-key, or --insecure"):
        ServerThread(ServerConfig(port=0, host="0.0.0.0", database_url=url, audit_workers=0))
    default = ServerThread(ServerConfig(port=0, database_url=url, audit_workers=0))
    try:
        assert default.running.host == "127.0.0.1"  # keys, no TLS, no host: localhost only
    finally:
        default.stop()
    insecure = ServerThread(
        ServerConfig(port=0, host="0.0.0.0", database_url=url, audit_workers=0, insecure=True)
    )
    try:
        assert insecure.running.host == "0.0.0.0"
        with AuditClient(insecure.target, api_key=key) as client:
            assert client.list_games().total_size == 0
    finally:
        insecure.stop()


def test_tls_needs_both_files(pems: Pems, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="both --tls-cert and --tls-key"):
        ServerThread(ServerConfig(port=0, tls_cert=pems.server_cert))
    with pytest.raises(ConfigError, match="cannot read --tls-key"):
        ServerThread(ServerConfig(port=0, tls_cert=pems.server_cert, tls_key=tmp_path / "none"))


def test_the_cli_speaks_tls(
    tls_server: ServerThread, keyed: tuple[str, str], pems: Pems, tmp_path: Path
) -> None:
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    sample = tmp_path / "s.pb"
    made = runner.invoke(app, ["sample", str(sample), "--hands", "2", "--matches", "0"])
    assert made.exit_code == 0
    args = ["--server", tls_server.target, "--api-key", keyed[1], "--tls-ca", str(pems.ca)]
    uploaded = runner.invoke(app, ["upload", *args, str(sample)])
    assert uploaded.exit_code == 0, uploaded.output
    assert "2 records: 2 stored" in uploaded.output
    plain = runner.invoke(app, ["stats", "--server", tls_server.target, "--api-key", keyed[1]])
    assert plain.exit_code == 1, plain.output
    said = " ".join(plain.output.split())
    assert f"the server at {tls_server.target} closed the connection" in said
    assert "give --tls-ca" in said
    missing = runner.invoke(app, ["stats", *args[:4], "--tls-ca", str(tmp_path / "none.pem")])
    assert missing.exit_code == 2 and "no such file" in " ".join(missing.output.split())


def test_serve_refuses_plaintext_keys_beyond_localhost(keyed: tuple[str, str]) -> None:
    app = typer.Typer()
    register(app)
    refused = CliRunner().invoke(
        app, ["serve", "--port", "0", "--host", "0.0.0.0", "--database-url", keyed[0]]
    )
    assert refused.exit_code == 1
    assert "refusing to listen on 0.0.0.0 in plaintext" in refused.output
