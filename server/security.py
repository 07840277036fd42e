"""Transport security and authentication for the server: TLS (and mTLS) credentials, bearer
tokens checked by a server interceptor, and the warning for a server exposed without them.

Only the standard health service is open without a token: load balancers and Kubernetes
probes call it without credentials, and it tells nothing but SERVING / NOT_SERVING.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import os
import socket
import time

import grpc

log = logging.getLogger("fagin.server.security")

# Methods callable without a token (prefix of the full method name).
OPEN_METHODS = ("/grpc.health.v1.Health/",)

# How often a token file is looked at again for changes (rotation without a restart).
TOKEN_FILE_RECHECK_SECONDS = 1.0

# A shorter token is accepted, with a warning: guessable by brute force over the network.
SHORT_TOKEN = 16


def _read(path: str, flag: str) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError(f"{flag}: cannot read {path}: {e.strerror}") from None
    if not data.strip():
        raise ValueError(f"{flag}: {path} is empty")
    return data


# ---------------------------------------------------------------------------------------------
# Bearer tokens

def _check_token(token: str, where: str) -> str:
    # A metadata value is printable ASCII; a token with a space could never be sent as
    # "Bearer <token>" and would only lock every client out.
    if not token.isascii() or not token.isprintable() or any(c.isspace() for c in token):
        raise ValueError(f"{where}: a token must be printable ASCII without spaces")
    return token


def parse_token_file(text: str, where: str) -> list:
    """The tokens of a token file: one a line; blank lines and lines starting with # skipped."""
    tokens = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            tokens.append(_check_token(line, f"{where} line {number}"))
    if not tokens:
        raise ValueError(f"{where}: no token in the file (one a line; # starts a comment)")
    return tokens


class TokenSet:
    """The accepted tokens, kept as SHA-256 digests and compared in constant time.

    Comparing digests (all 32 bytes long) against every accepted token, with no early
    exit, makes the time of a check independent of the token sent, its length and which
    accepted token (if any) it matches.
    """

    def __init__(self, tokens):
        self._digests = [hashlib.sha256(t.encode()).digest() for t in tokens]

    def __len__(self):
        return len(self._digests)

    def accepts(self, token: str) -> bool:
        given = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        ok = False
        for digest in self._digests:
            ok |= hmac.compare_digest(given, digest)
        return ok


class TokenSource:
    """The tokens from ``--auth-token`` and/or ``--auth-token-file``.

    The file is looked at again at most every ``recheck_seconds`` (its inode, size and
    modification time), so tokens rotate without a restart: add the new token, move the
    clients to it, remove the old one. A file that cannot be read or holds no token at a
    reload (half-written, being replaced) leaves the previous tokens in force and is logged;
    replace the file atomically (write a temporary file, then rename it) to avoid that.
    """

    def __init__(self, token: str = "", path: str = "", recheck_seconds=TOKEN_FILE_RECHECK_SECONDS,
                 clock=time.monotonic):
        self._fixed = [_check_token(token, "--auth-token")] if token else []
        self._path = path
        self._recheck = recheck_seconds
        self._clock = clock
        self._stamp = None
        self._checked_at = clock()
        file_tokens = []
        if path:
            self._stamp = self._file_stamp()
            file_tokens = parse_token_file(_read(path, "--auth-token-file").decode("utf-8", "replace"),
                                           f"--auth-token-file {path}")
        self._set(file_tokens)
        self.short = any(len(t) < SHORT_TOKEN for t in self._fixed + file_tokens)

    def _set(self, file_tokens):
        self._tokens = TokenSet(self._fixed + file_tokens)

    def _file_stamp(self):
        try:
            st = os.stat(self._path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def current(self) -> TokenSet:
        if self._path and self._clock() - self._checked_at >= self._recheck:
            self._checked_at = self._clock()
            stamp = self._file_stamp()
            if stamp != self._stamp:
                self._reload(stamp)
        return self._tokens

    def _reload(self, stamp):
        try:
            tokens = parse_token_file(_read(self._path, "--auth-token-file").decode("utf-8", "replace"),
                                      f"--auth-token-file {self._path}")
        except ValueError as e:
            # Retried at the next check (the stamp is not recorded): the file may be mid-rotation.
            log.error("auth tokens not reloaded, the previous ones stay in force: %s", e)
            return
        self._stamp = stamp
        self._set(tokens)
        log.info("auth tokens reloaded from %s: %d token(s)", self._path, len(tokens))


MISSING_TOKEN = ("authentication required: send the metadata 'authorization: Bearer <token>' "
                 "(fagin --auth-token-file FILE or FAGIN_AUTH_TOKEN; FaginClient(token=...))")
MALFORMED_TOKEN = "authentication failed: the authorization metadata must be 'Bearer <token>'"
BAD_TOKEN = "authentication failed: the bearer token is not accepted"


def token_problem(metadata, tokens: TokenSet):
    """None when ``metadata`` carries an accepted bearer token, else the reason (never the token)."""
    values = [value for key, value in (metadata or ()) if key == "authorization"]
    if not values:
        return MISSING_TOKEN
    if len(values) > 1:
        return "authentication failed: give one authorization metadata entry, not several"
    value = values[0]
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return MALFORMED_TOKEN
    return None if tokens.accepts(token) else BAD_TOKEN


def bearer_token(metadata):
    """The token of the call's one ``authorization: Bearer <token>`` metadata entry, or ""."""
    values = [value for key, value in (metadata or ()) if key == "authorization"]
    if len(values) != 1:
        return ""
    value = values[0].decode("latin-1") if isinstance(values[0], bytes) else values[0]
    scheme, _, token = value.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


#: The caller of a call that carries no token and no client certificate.
ANONYMOUS = "anonymous"


def caller_identity(context) -> str:
    """Who is calling, for what the server keeps per caller (sessions.py): the bearer token
    the call carries (a digest of it: the identity is a key, never logged), else the identity
    its client certificate proves (mTLS), else ANONYMOUS.  A token is its caller's whether or
    not this server checks tokens: without the token, no one else reaches what it keeps."""
    token = bearer_token(context.invocation_metadata())
    if token:
        return "token:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
    try:
        names = context.peer_identities()
    except Exception:        # a context without transport security (a test's fake, say)
        names = None
    if names:
        return "x509:" + "\n".join(sorted(n.decode("utf-8", "replace") if isinstance(n, bytes) else n
                                          for n in names))
    return ANONYMOUS


def _refusal(handler, message):
    """A handler of the same kind as ``handler`` that answers UNAUTHENTICATED at once.

    The same kind, so that the client's streams end cleanly; no request deserializer, so a
    refused request is never parsed.
    """
    async def refuse(request_or_iterator, context):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(refuse)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(refuse)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(refuse)
    return grpc.unary_unary_rpc_method_handler(refuse)


class BearerTokenInterceptor(grpc.aio.ServerInterceptor):
    """Refuses, with UNAUTHENTICATED, every call but OPEN_METHODS without an accepted token."""

    def __init__(self, source: TokenSource, open_methods=OPEN_METHODS):
        self.source = source
        self.open_methods = tuple(open_methods)

    async def intercept_service(self, continuation, details):
        if details.method.startswith(self.open_methods):
            return await continuation(details)
        problem = token_problem(details.invocation_metadata, self.source.current())
        handler = await continuation(details)
        if problem is None or handler is None:
            return handler
        return _refusal(handler, problem)


# ---------------------------------------------------------------------------------------------
# TLS

def server_credentials(config):
    """grpc.ServerCredentials for ``config``'s TLS files, or None for plaintext.

    With ``tls_client_ca``, clients must present a certificate signed by that CA (mTLS).
    """
    if not config.tls_cert:
        return None
    cert = _read(config.tls_cert, "--tls-cert")
    key = _read(config.tls_key, "--tls-key")
    client_ca = _read(config.tls_client_ca, "--tls-client-ca") if config.tls_client_ca else None
    return grpc.ssl_server_credentials([(key, cert)], root_certificates=client_ca,
                                       require_client_auth=client_ca is not None)


class ServerSecurity:
    """What ``config`` asks for, loaded (files read, tokens parsed): raises ValueError naming
    the flag when a file is missing or unusable, so the server refuses to start rather than
    run with less protection than asked."""

    def __init__(self, config):
        self.credentials = server_credentials(config)
        token, path = config.auth_token, config.auth_token_file
        self.tokens = TokenSource(token, path) if (token or path) else None

    @property
    def interceptors(self):
        return [BearerTokenInterceptor(self.tokens)] if self.tokens is not None else []

    @property
    def weak_token_warning(self):
        if self.tokens is not None and self.tokens.short:
            return (f"an auth token is shorter than {SHORT_TOKEN} characters: use a long random "
                    f"one (for example `openssl rand -hex 32`)")
        return None


# ---------------------------------------------------------------------------------------------
# The warning for an exposed server

def is_loopback_host(host: str) -> bool:
    """True when ``host`` (an address or a name) is only reachable from this machine."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False
    try:
        return bool(addresses) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback
                                       for a in addresses)
    except ValueError:
        return False


def exposure_warning(config, port=None):
    """The warning for a server bound beyond loopback without TLS or without client
    authentication (a token, or client certificates), or None. ``port``: the bound port."""
    if is_loopback_host(config.host):
        return None
    tls = bool(config.tls_cert)
    authenticated = bool(config.auth_token or config.auth_token_file or config.tls_client_ca)
    if tls and authenticated:
        return None
    where = f"{config.host}:{config.port if port is None else port}"
    if not tls and not authenticated:
        risk = ("without TLS and without authentication: anyone who can reach this port can use "
                "the server, and its traffic is readable on the network")
    elif not tls:
        risk = ("without TLS: bearer tokens and game states travel in plaintext, so anyone on the "
                "network path can read a token and use it")
    else:
        risk = "without authentication: anyone who can reach this port can use the server"
    return (f"SECURITY WARNING: fagin is listening on {where} {risk}. Set --tls-cert/--tls-key and "
            f"--auth-token-file (or --tls-client-ca), or bind to 127.0.0.1; see docs/operating.md, Security.")
