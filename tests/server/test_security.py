"""TLS, mTLS, bearer tokens and the exposure warning, with certificates made at test time."""
import datetime
import ipaddress
import logging
import os

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from fagin.clients import FaginClient, cli
from fagin.clients.client import channel_security, make_channel
from fagin.server import config as config_mod
from fagin.server import security
from fagin.server.config import ServerConfig
from fagin.v1 import fagin_pb2 as pb

from ..serving import TEST_CONFIG, RunningServer

TOKEN = "s3cret-" + "t" * 40
OTHER_TOKEN = "other-" + "u" * 40


# --- certificates -------------------------------------------------------------------------------

def _name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _write(directory, stem, key, cert):
    key_path, cert_path = directory / f"{stem}.key", directory / f"{stem}.pem"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return str(cert_path), str(key_path)


def _cert(subject, key, issuer, issuer_key, *, ca=False, server=False, client=False):
    now = datetime.datetime.now(datetime.timezone.utc)
    b = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer))
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(now - datetime.timedelta(minutes=5))
         .not_valid_after(now + datetime.timedelta(days=1))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if server:
        b = b.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False).add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                                          critical=False)
    if client:
        b = b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    if ca:
        b = b.add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                          content_commitment=False, key_encipherment=False,
                                          data_encipherment=False, key_agreement=False,
                                          encipher_only=False, decipher_only=False), critical=True)
    return b.sign(issuer_key, hashes.SHA256())


class Pki:
    """Two CAs (the right one and another), a server certificate and client certificates."""

    def __init__(self, directory):
        def key():
            return ec.generate_private_key(ec.SECP256R1())   # fast, unlike RSA key generation

        def ca(cn):
            k = key()
            return k, _cert(cn, k, cn, k, ca=True)

        ca_key, ca_cert = ca("fagin test CA")
        other_key, other_cert = ca("another CA")
        self.ca, _ = _write(directory, "ca", ca_key, ca_cert)
        self.other_ca, _ = _write(directory, "other-ca", other_key, other_cert)
        k = key()
        self.server_cert, self.server_key = _write(
            directory, "server", k, _cert("localhost", k, "fagin test CA", ca_key, server=True))
        k = key()
        self.client_cert, self.client_key = _write(
            directory, "client", k, _cert("a client", k, "fagin test CA", ca_key, client=True))
        k = key()
        self.stranger_cert, self.stranger_key = _write(
            directory, "stranger", k, _cert("a stranger", k, "another CA", other_key, client=True))


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return Pki(tmp_path_factory.mktemp("pki"))


def _serve(**settings):
    return RunningServer(ServerConfig(**{**TEST_CONFIG, "workers": 1, **settings}))


@pytest.fixture(scope="module")
def tls_server(pki, tmp_path_factory):
    """TLS and tokens from a file (two tokens: rotation keeps the old one a while)."""
    tokens = tmp_path_factory.mktemp("tokens") / "tokens"
    tokens.write_text(f"# accepted tokens\n{TOKEN}\n\n{OTHER_TOKEN}\n")
    srv = _serve(tls_cert=pki.server_cert, tls_key=pki.server_key, auth_token_file=str(tokens))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def mtls_server(pki):
    srv = _serve(tls_cert=pki.server_cert, tls_key=pki.server_key, tls_client_ca=pki.ca)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def token_server():
    """Plaintext on loopback with a token, and reflection off."""
    srv = _serve(auth_token=TOKEN, reflection=False)
    yield srv
    srv.stop()


def _code(call):
    with pytest.raises(grpc.RpcError) as e:
        call()
    return e.value.code(), e.value.details() or ""


# --- TLS ----------------------------------------------------------------------------------------

def test_tls_call_succeeds_with_the_right_ca(tls_server, pki):
    with FaginClient(tls_server.target, ca_file=pki.ca, token=TOKEN, timeout=10) as c:
        assert "kids_of_london" in {g.id for g in c.list_games()}


def test_tls_call_fails_with_another_ca(tls_server, pki):
    with FaginClient(tls_server.target, ca_file=pki.other_ca, token=TOKEN, timeout=10) as c:
        code, _ = _code(c.list_games)
    assert code == grpc.StatusCode.UNAVAILABLE


def test_plaintext_client_cannot_talk_to_a_tls_server(tls_server):
    with FaginClient(tls_server.target, timeout=10) as c:
        code, _ = _code(c.list_games)
    assert code == grpc.StatusCode.UNAVAILABLE


def test_server_name_override_checks_the_name_in_the_certificate(tls_server, pki):
    with FaginClient(tls_server.target, ca_file=pki.ca, token=TOKEN, server_name="localhost",
                     timeout=10) as c:
        assert c.list_games()
    with FaginClient(tls_server.target, ca_file=pki.ca, token=TOKEN, server_name="elsewhere.example",
                     timeout=10) as c:
        assert _code(c.list_games)[0] == grpc.StatusCode.UNAVAILABLE


def test_mtls_refuses_a_client_without_a_certificate(mtls_server, pki):
    with FaginClient(mtls_server.target, ca_file=pki.ca, timeout=10) as c:
        assert _code(c.list_games)[0] == grpc.StatusCode.UNAVAILABLE
    with FaginClient(mtls_server.target, ca_file=pki.ca, cert_file=pki.stranger_cert,
                     key_file=pki.stranger_key, timeout=10) as c:
        assert _code(c.list_games)[0] == grpc.StatusCode.UNAVAILABLE
    with FaginClient(mtls_server.target, ca_file=pki.ca, cert_file=pki.client_cert,
                     key_file=pki.client_key, timeout=10) as c:
        assert c.list_games()


# --- tokens -------------------------------------------------------------------------------------

def test_a_token_is_required_for_fagin_calls_and_not_for_health(tls_server, pki):
    with FaginClient(tls_server.target, ca_file=pki.ca, timeout=10) as c:
        code, details = _code(c.list_games)
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert details == security.MISSING_TOKEN
        health = health_pb2_grpc.HealthStub(c._channel)
        for service in ("", "fagin.v1.Fagin"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_a_wrong_token_is_unauthenticated_and_never_echoed(tls_server, pki):
    wrong = TOKEN[:-1] + "x"
    with FaginClient(tls_server.target, ca_file=pki.ca, token=wrong, timeout=10) as c:
        code, details = _code(c.list_games)
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert details == security.BAD_TOKEN and wrong not in details and TOKEN not in details


def test_every_accepted_token_of_the_file_works(tls_server, pki):
    with FaginClient(tls_server.target, ca_file=pki.ca, token=OTHER_TOKEN, timeout=10) as c:
        assert c.list_games()


def test_streaming_calls_need_the_token_too(tls_server, pki, client):
    state = client.new_game("kids_of_london", players=3, seed=1).state
    with FaginClient(tls_server.target, ca_file=pki.ca, timeout=10) as c:
        code, _ = _code(lambda: list(c.stream_recommend(state, 0, iterations=50)))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, _ = _code(lambda: list(c.batch_recommend([("a", pb.RecommendRequest(state=state))])))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        # Without reading the request stream: a refused bidirectional call ends at once.
        code, _ = _code(lambda: list(c.batch_recommend(iter(()))))
        assert code == grpc.StatusCode.UNAUTHENTICATED
    with FaginClient(tls_server.target, ca_file=pki.ca, token=TOKEN, timeout=30) as c:
        reports = list(c.stream_recommend(state, 0, iterations=50))
        assert reports[-1].final and reports[-1].recommendation.iterations == 50


def test_malformed_authorization_metadata(tls_server, pki):
    channel = make_channel(tls_server.target, ca_file=pki.ca)
    try:
        list_games = channel.unary_unary("/fagin.v1.Fagin/ListGames",
                                         request_serializer=pb.ListGamesRequest.SerializeToString,
                                         response_deserializer=pb.ListGamesResponse.FromString)
        for value in (TOKEN, f"Basic {TOKEN}", "Bearer "):
            code, details = _code(lambda: list_games(pb.ListGamesRequest(), timeout=10,
                                                     metadata=(("authorization", value),)))
            assert code == grpc.StatusCode.UNAUTHENTICATED and TOKEN not in details
        assert list_games(pb.ListGamesRequest(), timeout=10,
                          metadata=(("authorization", f"bearer {TOKEN}"),)).games
    finally:
        channel.close()


def test_a_token_over_plaintext_to_loopback(token_server):
    with FaginClient(token_server.target, token=TOKEN, timeout=10) as c:
        assert c.list_games()
    with FaginClient(token_server.target, timeout=10) as c:
        assert _code(c.list_games)[0] == grpc.StatusCode.UNAUTHENTICATED


def test_the_client_never_sends_a_token_in_plaintext_beyond_loopback():
    with pytest.raises(ValueError, match="only over TLS or to a loopback"):
        channel_security("10.1.2.3:50051", token=TOKEN)
    creds, _ = channel_security("10.1.2.3:50051", token=TOKEN, tls=True)
    assert creds is not None
    with pytest.raises(ValueError, match="both cert_file and key_file"):
        channel_security("127.0.0.1:1", cert_file="c.pem")


# --- reflection ---------------------------------------------------------------------------------

def _list_services(channel, **kw):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    reply = next(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                           timeout=10, **kw))
    return {s.name for s in reply.list_services_response.service}


def test_reflection_needs_the_token_and_can_be_turned_off(tls_server, token_server, pki):
    channel = make_channel(tls_server.target, ca_file=pki.ca)
    try:
        assert _code(lambda: _list_services(channel))[0] == grpc.StatusCode.UNAUTHENTICATED
        assert "fagin.v1.Fagin" in _list_services(channel, metadata=(("authorization", f"Bearer {TOKEN}"),))
    finally:
        channel.close()
    channel = make_channel(token_server.target, token=TOKEN)
    try:
        assert _code(lambda: _list_services(channel))[0] == grpc.StatusCode.UNIMPLEMENTED
    finally:
        channel.close()


# --- token files and rotation -------------------------------------------------------------------

def test_token_file_rotation(tmp_path, caplog):
    path = tmp_path / "tokens"

    def replace(text):       # as an operator should: a new file renamed over the old one
        tmp = tmp_path / "tokens.new"
        tmp.write_text(text)
        os.replace(tmp, path)

    replace("old-token-aaaaaaaaaaaaaaaa\n")
    source = security.TokenSource(path=str(path), recheck_seconds=0)
    assert source.current().accepts("old-token-aaaaaaaaaaaaaaaa")
    replace("old-token-aaaaaaaaaaaaaaaa\nnew-token-bbbbbbbbbbbbbbbb\n")
    assert source.current().accepts("new-token-bbbbbbbbbbbbbbbb")
    replace("new-token-bbbbbbbbbbbbbbbb\n")
    assert not source.current().accepts("old-token-aaaaaaaaaaaaaaaa")
    # A file caught empty (mid-rotation) leaves the last tokens in force, and says so.
    replace("# nothing yet\n")
    with caplog.at_level(logging.ERROR, logger="fagin.server.security"):
        assert source.current().accepts("new-token-bbbbbbbbbbbbbbbb")
    assert "no token in the file" in caplog.text
    replace("third-token-cccccccccccccccc\n")
    assert source.current().accepts("third-token-cccccccccccccccc")


def test_token_file_is_rechecked_at_most_every_interval(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("first-token-aaaaaaaaaaaaaaaa\n")
    now = [0.0]
    source = security.TokenSource(path=str(path), recheck_seconds=1.0, clock=lambda: now[0])
    tmp = tmp_path / "next"
    tmp.write_text("second-token-bbbbbbbbbbbbbbbb\n")
    os.replace(tmp, path)
    now[0] = 0.5
    assert source.current().accepts("first-token-aaaaaaaaaaaaaaaa")
    now[0] = 1.0
    assert source.current().accepts("second-token-bbbbbbbbbbbbbbbb")


def test_token_set_matches_whole_tokens_only():
    tokens = security.TokenSet([TOKEN, OTHER_TOKEN])
    assert tokens.accepts(TOKEN) and tokens.accepts(OTHER_TOKEN)
    for wrong in ("", TOKEN[:-1], TOKEN + "x", TOKEN.upper(), " " + TOKEN):
        assert not tokens.accepts(wrong)


# --- settings -----------------------------------------------------------------------------------

def test_security_settings_are_checked(tmp_path, pki):
    with pytest.raises(ValueError, match="--tls-cert and --tls-key"):
        ServerConfig(tls_cert=pki.server_cert)
    with pytest.raises(ValueError, match="client certificates need TLS"):
        ServerConfig(tls_client_ca=pki.ca)
    with pytest.raises(ValueError, match="--tls-key: cannot read"):
        security.ServerSecurity(ServerConfig(tls_cert=pki.server_cert, tls_key=str(tmp_path / "none")))
    empty = tmp_path / "empty"
    empty.write_text("\n# no tokens\n")
    with pytest.raises(ValueError, match="--auth-token-file .*no token"):
        security.ServerSecurity(ServerConfig(auth_token_file=str(empty)))
    with pytest.raises(ValueError, match="printable ASCII"):
        security.ServerSecurity(ServerConfig(auth_token="two words"))
    assert TOKEN not in repr(ServerConfig(auth_token=TOKEN))
    env = {"FAGIN_AUTH_TOKEN": TOKEN, "FAGIN_REFLECTION": "off"}
    cfg = config_mod.from_namespace(None, environ=env)
    assert cfg.auth_token == TOKEN and cfg.reflection is False
    with pytest.raises(ValueError, match="FAGIN_REFLECTION"):
        config_mod.from_namespace(None, environ={"FAGIN_REFLECTION": "maybe"})


# --- the warning --------------------------------------------------------------------------------

def _started(capsys, caplog, **settings):
    with caplog.at_level(logging.WARNING, logger="fagin.server"):
        srv = _serve(**settings)
        srv.stop()
    err = capsys.readouterr().err
    return [r.getMessage() for r in caplog.records if "SECURITY WARNING" in r.getMessage()], err


def test_warning_when_exposed_without_tls_or_token(capsys, caplog):
    logged, printed = _started(capsys, caplog, host="0.0.0.0")
    assert len(logged) == 1 and "without TLS and without authentication" in logged[0]
    assert "SECURITY WARNING" in printed and "0.0.0.0:" in printed


def test_no_warning_on_loopback(capsys, caplog):
    logged, printed = _started(capsys, caplog, host="127.0.0.1")
    assert not logged and "SECURITY WARNING" not in printed


def test_which_exposures_warn(pki):
    tls = dict(tls_cert=pki.server_cert, tls_key=pki.server_key)
    warn = security.exposure_warning
    assert "without TLS:" in warn(ServerConfig(host="0.0.0.0", auth_token=TOKEN))
    assert "without authentication" in warn(ServerConfig(host="::", **tls))
    assert warn(ServerConfig(host="0.0.0.0", auth_token=TOKEN, **tls)) is None
    assert warn(ServerConfig(host="0.0.0.0", tls_client_ca=pki.ca, **tls)) is None   # mTLS
    for host in ("127.0.0.1", "::1", "[::1]", "localhost", "127.0.0.2"):
        assert warn(ServerConfig(host=host)) is None, host
    assert warn(ServerConfig(host="192.0.2.10")) is not None


# --- the command line ---------------------------------------------------------------------------

def test_cli_with_tls_and_a_token(tls_server, pki, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("FAGIN_AUTH_TOKEN", raising=False)
    base = ["--server", tls_server.target, "--tls-ca", pki.ca]
    assert cli.main([*base, "games"]) == 2
    assert "UNAUTHENTICATED" in capsys.readouterr().err
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    assert cli.main(["games", *base, "--auth-token-file", str(token_file)]) == 0
    assert "kids_of_london" in capsys.readouterr().out
    monkeypatch.setenv("FAGIN_AUTH_TOKEN", TOKEN)
    assert cli.main([*base, "games"]) == 0
    capsys.readouterr()
    assert cli.main(["--server", tls_server.target, "--tls-ca", pki.other_ca, "games"]) == 3
    assert cli.main([*base, "--tls-cert", pki.client_cert, "games"]) == 2
    assert "--tls-cert and --tls-key go together" in capsys.readouterr().err
