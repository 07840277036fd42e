"""The HTTP port (``--http-port``): gRPC-Web and the Connect protocol's unary form (JSON or
binary protobuf over plain HTTP/1.1), for browsers and for clients without gRPC.

No call is implemented twice.  Each HTTP request is forwarded, as the bytes of its protobuf
message, over a gRPC channel to the server's own grpc.aio server, on a Unix socket that only
this process knows (in a directory only its user can open), so that it meets the very
servicer, interceptors (bearer tokens, metrics), admission control and message-size limit
that a gRPC client meets.  What is done here is only the translation:

- ``POST /<service>/<Method>`` with ``Content-Type: application/json`` (proto3 JSON) or
  ``application/proto``: a Connect unary call.  Errors come back as Connect's JSON error
  (``{"code": "invalid_argument", "message": ...}``) with the HTTP status that Connect maps
  the code to.  Streaming methods are not served in this form (415, code unimplemented).
- ``Content-Type: application/grpc-web[+proto]`` or ``application/grpc-web-text[+proto]``:
  gRPC-Web, unary and server-streaming calls (StreamRecommend); the status is in the
  trailers, as the gRPC-Web protocol has it.
- ``connect-timeout-ms`` (Connect) or ``grpc-timeout`` (gRPC-Web) is the call's deadline;
  ``Authorization: Bearer <token>`` its token.

aiohttp serves the port on the server's own event loop (TLS and mTLS with the gRPC port's
files); aiohttp-cors answers CORS preflights for the origins in ``--http-cors-origins``.
``--http-static-dir`` serves a directory at ``/`` (the browser frontend), and beside it
``/data/<game>/<file>.json``, the served games' component data the page draws tables from.

The port shares its event loop with the gRPC port, so what one HTTP client can cost is bounded
before any of it is spent: the token (from the headers) and the Content-Length are checked
before a byte of the body is read; a body is read with a running cap and within
``--http-body-timeout``; a large JSON body is parsed in threads by a parser that stops at a
list or a request larger than any game's could be (``BoundedJson``); a connection must bring a
whole request head within ``--http-idle-timeout``; and at most ``--http-max-connections`` are
open, within the process's descriptor limit, whose exhaustion pauses accepting with one log
line (``HttpListener``).
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import errno
import importlib
import json
import json.decoder
import logging
import math
import os
import re
import resource
import shutil
import socket
import ssl
import struct
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import aiohttp_cors
import grpc
from aiohttp import web
from google.protobuf import json_format, message_factory
from grpc_health.v1 import health_pb2

from fagin.engines.registry import GAMES
from fagin.engines.room_data import data_path
from fagin.server import security
from fagin.server.codec import MAX_RECORD_MOVES, MAX_STATE_BYTES
from fagin.server.logs import QUOTED_CHARS, quoted
from fagin.server.rpc import DECODE_THREADS, HTTP_PEER_METADATA, bounded_message
from fagin.server.sessions import SESSION_METADATA
from fagin.v1 import fagin_pb2

log = logging.getLogger("fagin.server.gateway")

#: The services reachable over HTTP: the game service, and health (open without a token,
#: for load balancers in front of the HTTP port).
SERVICES = (fagin_pb2.DESCRIPTOR.services_by_name["Fagin"],
            health_pb2.DESCRIPTOR.services_by_name["Health"])

#: An HTTP body may be this many times --max-message-bytes: room for JSON's and base64's
#: overhead over the binary message.  The message itself is held to --max-message-bytes by
#: the gRPC server, as on the gRPC port.
BODY_FACTOR = 4
#: Bodies being read (not yet handed on) hold at most this many bodies' limit of memory in all:
#: a chunk beyond it refuses its request (RESOURCE_EXHAUSTED, retry), so that clients sending
#: large bodies slowly on many connections cannot fill the memory before their body timeouts.
BODIES_READ_AT_ONCE = 4
#: The first this many bytes of each body are not counted in BODIES_READ_AT_ONCE: however
#: full large bodies keep it, small calls are served (what small bodies hold together is
#: bounded by --http-max-connections).
SMALL_BODY_BYTES = 64 * 1024
#: The largest body of a method open without a token (health: a service name).
OPEN_BODY_BYTES = 1024

#: JSON bodies up to this size are parsed on the event loop (a few milliseconds at most);
#: larger ones in the gateway's parsing threads, by a parser that stops at the bounds below
#: before it has built anything large.
JSON_INLINE_BYTES = 8 * 1024
#: The longest list a JSON request may hold: the longest any served game's state or action
#: holds, or a game record's moves (the server then holds each game's lists, and a record's
#: moves, to the game's own bound, as for gRPC).
MAX_JSON_LIST = max(max(game.max_list for game in GAMES.values()), MAX_RECORD_MOVES)
#: Values (numbers, strings, lists, objects) in one JSON request: a request carries one state
#: of at most MAX_STATE_BYTES on the wire, where each value takes a byte or more; twice that
#: leaves room for the rest of the request.
MAX_JSON_VALUES = 2 * MAX_STATE_BYTES
#: Nesting of a JSON request (the deepest state nests a handful of levels).
MAX_JSON_DEPTH = 32

#: Descriptors kept free of HTTP connections, for the gRPC port, its clients and the process's
#: own files: the HTTP port holds at most the descriptor limit less this many (or less a
#: quarter of the limit, if that is more) connections, whatever --http-max-connections says.
FD_RESERVE = 64
#: After running out of descriptors (or memory) at accept, the HTTP port stops accepting for
#: this long: the kernel keeps the waiting connections in the listen queue meanwhile.
ACCEPT_PAUSE_S = 1.0
#: Connection trouble (out of descriptors, connections refused at the limit) is logged at most
#: once per kind per this many seconds, with a count of what the interval saw.
TROUBLE_LOG_INTERVAL_S = 60.0
#: Seconds for which the unread rest of a refused request's body is still read and dropped
#: before the connection closes: a socket closed on unread bytes is reset, and a reset can
#: take the answer already sent away from the client.
LINGER_S = 2.0

#: Request headers a browser may send cross-origin (CORS), and response headers it may read.
CORS_ALLOW_HEADERS = ("authorization", "content-type", "connect-protocol-version", "connect-timeout-ms",
                      "grpc-timeout", "x-grpc-web", "x-user-agent", SESSION_METADATA)
CORS_EXPOSE_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin", "grpc-retry-pushback-ms",
                       "trailer-grpc-retry-pushback-ms", "retry-after")
#: Seconds a browser may cache a preflight's answer.
CORS_MAX_AGE = 600

JSON_TYPE = "application/json"
PROTO_TYPE = "application/proto"
#: gRPC-Web content types: whether the body is base64 text.
GRPC_WEB_TYPES = {"application/grpc-web": False, "application/grpc-web+proto": False,
                  "application/grpc-web-text": True, "application/grpc-web-text+proto": True}

#: Connect's HTTP status for each code (connectrpc.com/docs/protocol, "Error codes").
CONNECT_HTTP_STATUS = {
    grpc.StatusCode.CANCELLED: 499, grpc.StatusCode.UNKNOWN: 500, grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504, grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409, grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429, grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409, grpc.StatusCode.OUT_OF_RANGE: 400, grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500, grpc.StatusCode.UNAVAILABLE: 503, grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}


def connect_code(code: grpc.StatusCode) -> str:
    """Connect's name of a status code (Connect spells CANCELLED the American way)."""
    return "canceled" if code is grpc.StatusCode.CANCELLED else code.name.lower()


@dataclass(frozen=True)
class Method:
    path: str                 # /fagin.v1.Fagin/Recommend
    name: str
    request_class: type
    response_class: type
    client_streaming: bool
    server_streaming: bool


def method_table():
    """Every method of SERVICES by its path."""
    table = {}
    for service in SERVICES:
        for m in service.methods:
            path = f"/{service.full_name}/{m.name}"
            table[path] = Method(path, m.name, message_factory.GetMessageClass(m.input_type),
                                 message_factory.GetMessageClass(m.output_type),
                                 m.client_streaming, m.server_streaming)
    return table


class CallError(Exception):
    """A request refused before it reaches the servicer: its status and message; `close`:
    the connection is closed after the answer (its body was left unread part way)."""

    def __init__(self, code: grpc.StatusCode, message: str, http_status: int | None = None, headers=None,
                 close=False):
        message = _printable(bounded_message(message))
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = http_status
        self.headers = headers or {}
        self.close = close


def _printable(message):
    """`message` with every character that does not print escaped as repr escapes it: a
    client's text quoted inside a message that is not ours (protobuf's JSON parser names the
    unknown key it met) can then never break a line of the answer or of a log."""
    if message.isprintable():
        return message
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in message)


# ---------------------------------------------------------------------------------------------
# Deadlines

_GRPC_TIMEOUT = re.compile(r"^(\d{1,8})([HMSmun])$")
_GRPC_TIMEOUT_UNIT = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}


def timeout_of(headers, grpc_web: bool):
    """The call's deadline in seconds from now, or None: ``grpc-timeout`` for gRPC-Web (e.g.
    ``1500m``), ``connect-timeout-ms`` for Connect; INVALID_ARGUMENT naming the header if malformed."""
    if grpc_web:
        raw = headers.get("grpc-timeout")
        if raw is None:
            return None
        match = _GRPC_TIMEOUT.match(raw.strip())
        if not match:
            raise CallError(grpc.StatusCode.INVALID_ARGUMENT,
                            f"grpc-timeout: expected up to 8 digits and a unit (H M S m u n), got {quoted(raw)}")
        return int(match.group(1)) * _GRPC_TIMEOUT_UNIT[match.group(2)]
    raw = headers.get("connect-timeout-ms")
    if raw is None:
        return None
    raw = raw.strip()
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 10):
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT,
                        f"connect-timeout-ms: expected a whole number of milliseconds (up to 10 digits), "
                        f"got {quoted(raw)}")
    return int(raw) / 1000


def metadata_of(request):
    """The gRPC metadata forwarded from an HTTP request: its bearer token, its session for the
    balancer that routed it (``fagin-session``, checked against the request's), and the
    client's address for the call's log line."""
    metadata = [("authorization", value) for value in request.headers.getall("authorization", ())]
    metadata += [(SESSION_METADATA, value) for value in request.headers.getall(SESSION_METADATA, ())]
    if request.remote:
        metadata.append((HTTP_PEER_METADATA, request.remote))
    return tuple(metadata)


# ---------------------------------------------------------------------------------------------
# gRPC-Web framing

_DATA, _TRAILERS, _COMPRESSED = 0x00, 0x80, 0x01


def frame(payload: bytes, flags: int = _DATA) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def unframe(body: bytes):
    """The one request message of a gRPC-Web body (unary and server-streaming calls send one).

    Only the first frame's header is read: a body holding more than that one frame is refused
    as it is, however many frames it holds, so that the answer costs the event loop no more
    for a body of millions of empty frames than for one."""
    if not body:
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT, "request body: expected one message, got none")
    if len(body) < 5:
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT, "request body: a gRPC-Web frame header is cut short")
    flags, length = struct.unpack_from(">BI", body, 0)
    if flags & _COMPRESSED:
        raise CallError(grpc.StatusCode.UNIMPLEMENTED,
                        "request body: compressed frames are not accepted (grpc-accept-encoding: identity)")
    if flags & _TRAILERS:
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT, "request body: a request carries no trailers")
    if 5 + length > len(body):
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT,
                        f"request body: a frame announces {length} bytes, {len(body) - 5} follow")
    if 5 + length < len(body):
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT,
                        f"request body: expected one message, got {len(body) - 5 - length} bytes after it")
    return body[5:]


def percent_encode(message: str) -> str:
    """A grpc-message value (the gRPC spec: bytes outside printable ASCII, and %, as %XX)."""
    out = []
    for byte in message.encode("utf-8"):
        out.append(chr(byte) if 0x20 <= byte <= 0x7E and byte != 0x25 else f"%{byte:02X}")
    return "".join(out)


def _metadata_pairs(metadata):
    """(key, text value) of metadata for HTTP headers (binary values base64, as gRPC-Web has them)."""
    for key, value in metadata or ():
        if isinstance(value, bytes):
            value = base64.b64encode(value).decode("ascii")
        yield key, value


def status_lines(code: grpc.StatusCode, message: str, metadata=()) -> dict:
    """The gRPC status as headers (gRPC-Web trailers, or a trailers-only response's headers)."""
    lines = {"grpc-status": str(code.value[0]), "grpc-message": percent_encode(message)}
    for key, value in _metadata_pairs(metadata):
        lines[key] = value
    return lines


def trailer_frame(lines: dict) -> bytes:
    return frame("".join(f"{k}: {v}\r\n" for k, v in lines.items()).encode("latin-1", "replace"), _TRAILERS)


# ---------------------------------------------------------------------------------------------
# TLS

def http_ssl_context(config):
    """The HTTP port's TLS context, from the gRPC port's files (None without TLS); with
    --tls-client-ca, clients must present a certificate that CA signed, as on the gRPC port."""
    if not config.tls_cert:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(config.tls_cert, config.tls_key)
        if config.tls_client_ca:
            context.load_verify_locations(cafile=config.tls_client_ca)
            context.verify_mode = ssl.CERT_REQUIRED
    except (OSError, ssl.SSLError) as e:
        raise ValueError(f"--tls-cert/--tls-key/--tls-client-ca: unusable for the HTTP port: {e}") from None
    return context


# ---------------------------------------------------------------------------------------------
# The rooms' component data

#: A data file's name: a plain JSON file name, nothing that could leave the room's folder.
DATA_NAME = re.compile(r"[a-z0-9_]+\.json")


def component_data_path(game, name):
    """The path of `name` in served game `game`'s ``data/`` folder, or None: only a registered
    game's id and a plain ``*.json`` name that is there, so no other file can be reached."""
    if game not in GAMES or not DATA_NAME.fullmatch(name):
        return None
    package = importlib.import_module(f"fagin.engines.{game}")
    path = data_path(package.__file__, name)
    return str(path) if path.is_file() else None


async def component_data(request):
    path = component_data_path(request.match_info["game"], request.match_info["name"])
    if path is None:
        raise web.HTTPNotFound()
    return web.FileResponse(path, headers={"Content-Type": "application/json"})


# ---------------------------------------------------------------------------------------------
# Large JSON bodies

_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
#: The bare words JSON has, and those Python's json module (which protobuf's parser uses) also reads.
_WORDS = (("true", True), ("false", False), ("null", None), ("NaN", math.nan), ("Infinity", math.inf),
          ("-Infinity", -math.inf))


def _json_path(path):
    """A field's path as the client wrote it (``state.kuhnPoker.actions[3]``) from the linked
    (parent, key) pairs the parser keeps, which cost nothing unless an error names one."""
    names = []
    while path is not None:
        path, name = path
        names.append(name)
    text = ""
    for name in reversed(names):
        if not isinstance(name, int) and not _PLAIN_KEY.fullmatch(name):
            name = quoted(name)
        text += f"[{name}]" if isinstance(name, int) else (f".{name}" if text else name)
    return text


#: A JSON key shown in an error as it is; any other is quoted (``logs.quoted``).
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class BoundedJson:
    """JSON text to Python values, as ``json.loads`` reads it, refusing (CallError,
    INVALID_ARGUMENT naming the field) a list longer than MAX_JSON_LIST, more than
    MAX_JSON_VALUES values in all, nesting deeper than MAX_JSON_DEPTH and a key given twice.

    It stops where a bound is passed, before it has built the rest; and being Python, not C,
    it lets the event loop's thread run every few milliseconds (the interpreter's switch
    interval), where ``json.loads`` would hold it for the whole of a large body.
    """

    def __init__(self, text):
        self.text = text
        self.values_left = MAX_JSON_VALUES

    def parse(self):
        value, end = self._value(_SPACE.match(self.text, 0).end(), None, 0)
        end = _SPACE.match(self.text, end).end()
        if end != len(self.text):
            self._refuse(None, f"not JSON: extra data at character {end}")
        return value

    @staticmethod
    def _refuse(path, what):
        where = _json_path(path)
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT, f"request body: {where + ': ' if where else ''}{what}")

    def _string(self, at, path):
        try:
            return json.decoder.scanstring(self.text, at + 1, True)
        except json.JSONDecodeError as e:
            self._refuse(path, f"not JSON: {e}")

    def _value(self, at, path, depth):
        text = self.text
        self.values_left -= 1
        if self.values_left < 0:
            self._refuse(path, f"the request holds more than {MAX_JSON_VALUES} values, more than any "
                               f"request of a served game can")
        char = text[at:at + 1]
        if char == '"':
            return self._string(at, path)
        if char == "{" or char == "[":
            if depth >= MAX_JSON_DEPTH:
                self._refuse(path, f"nested more than {MAX_JSON_DEPTH} levels deep")
            return (self._object if char == "{" else self._array)(at + 1, path, depth + 1)
        number = _NUMBER.match(text, at)
        if number:
            whole, fraction, exponent = number.groups()
            try:
                return (float(number.group()) if fraction or exponent else int(whole)), number.end()
            except ValueError as e:         # more digits than Python converts
                self._refuse(path, str(e))
        for word, value in _WORDS:
            if text.startswith(word, at):
                return value, at + len(word)
        self._refuse(path, f"not JSON: expected a value at character {at}")

    def _object(self, at, path, depth):
        text, space = self.text, _SPACE.match
        result = {}
        at = space(text, at).end()
        if text[at:at + 1] == "}":
            return result, at + 1
        while True:
            if text[at:at + 1] != '"':
                self._refuse(path, f"not JSON: expected a quoted key at character {at}")
            key, at = self._string(at, path)
            if key in result:
                self._refuse((path, key), "given twice")
            at = space(text, at).end()
            if text[at:at + 1] != ":":
                self._refuse((path, key), f"not JSON: expected ':' at character {at}")
            result[key], at = self._value(space(text, at + 1).end(), (path, key), depth)
            at, more = self._after_item(at, path, "}")
            if not more:
                return result, at

    def _array(self, at, path, depth):
        text, space = self.text, _SPACE.match
        result = []
        at = space(text, at).end()
        if text[at:at + 1] == "]":
            return result, at + 1
        while True:
            if len(result) == MAX_JSON_LIST:
                self._refuse(path, f"more than {MAX_JSON_LIST} elements, more than a list of any "
                                   f"served game holds")
            item, at = self._value(at, (path, len(result)), depth)
            result.append(item)
            at, more = self._after_item(at, path, "]")
            if not more:
                return result, at

    def _after_item(self, at, path, close):
        """After an object's or array's item at `at`: (past the comma and the space after it,
        True) if another item follows, (past `close`, False) if the container ends there."""
        text, space = self.text, _SPACE.match
        at = space(text, at).end()
        char = text[at:at + 1]
        if char == close:
            return at + 1, False
        if char != ",":
            self._refuse(path, f"not JSON: expected ',' or '{close}' at character {at}")
        return space(text, at + 1).end(), True


# ---------------------------------------------------------------------------------------------
# Connections

class TroubleLog:
    """Warnings of a kind logged at most once per `interval` seconds, each line saying how
    many more of its kind the interval before it saw: a flood of failed accepts is a line a
    minute, not a traceback each."""

    def __init__(self, interval=TROUBLE_LOG_INTERVAL_S, clock=time.monotonic):
        self.interval = interval
        self.clock = clock
        self.logged_at = {}
        self.unlogged = {}

    def warning(self, kind, message, *args):
        now = self.clock()
        last = self.logged_at.get(kind)
        if last is not None and now - last < self.interval:
            self.unlogged[kind] = self.unlogged.get(kind, 0) + 1
            return
        self.logged_at[kind] = now
        more = self.unlogged.pop(kind, 0)
        if more:
            message += f" ({more} more since the last such line)"
        log.warning(message, *args)


def connection_limit(setting):
    """--http-max-connections, lowered to leave FD_RESERVE (or a quarter of the limit)
    descriptors of the process's limit to everything else."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return setting
    return max(1, min(setting, soft - max(FD_RESERVE, soft // 4)))


#: What a connection over the limit is told before it is closed (plain HTTP only: a TLS
#: client would read it as a broken handshake).
_REFUSED_BODY = b'{"code":"unavailable","message":"too many connections to the HTTP port"}'
REFUSED_CONNECTION = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                      b"Retry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
                      % (len(_REFUSED_BODY), _REFUSED_BODY))


def listening_sockets(host, port, backlog):
    """Non-blocking listening sockets for `host` (each of its addresses) and `port` (0: a free
    port, the same for every address)."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    sockets = []
    try:
        for family, kind, proto, _name, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if port == 0 and len(sockets) > 1:
                address = (address[0], sockets[0].getsockname()[1], *address[2:])
            sock.bind(address)
            sock.listen(backlog)
            sock.setblocking(False)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class HttpListener:
    """The HTTP port's listening sockets, accepting on the event loop by themselves rather
    than through asyncio's server, so that:

    - each connection is counted when it is accepted, and one over the limit is answered 503
      and closed at once, before it costs more than a moment's descriptor;
    - running out of descriptors (or memory) pauses accepting for ACCEPT_PAUSE_S with one
      rate-limited log line (asyncio's own accept loop logs a traceback for every failed
      accept, and retries a hundred times a wake-up).

    Accepted sockets go to aiohttp through ``loop.connect_accepted_socket``."""

    def __init__(self, sockets, server, ssl_context, limit, handshake_timeout, backlog=128):
        self.loop = asyncio.get_running_loop()
        self.sockets = sockets
        self.server = server            # aiohttp's protocol factory; its `connections` are the open ones
        self.ssl_context = ssl_context
        self.limit = limit
        self.handshake_timeout = handshake_timeout
        self.backlog = backlog
        self.connecting = set()         # accepted, not yet handed to aiohttp (a TLS handshake)
        self.resume_handle = None
        self.trouble = TroubleLog()
        for sock in sockets:
            self.loop.add_reader(sock.fileno(), self._accept, sock)

    @property
    def open_connections(self):
        return len(self.server.connections) + len(self.connecting)

    def _accept(self, sock):
        for _ in range(self.backlog):
            try:
                conn, _address = sock.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError as e:
                if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self.trouble.warning("accept", "HTTP port: cannot accept connections (%s); accepting paused "
                                         "for %g s at a time, the gRPC port goes on (raise the limit, "
                                         "ulimit -n, or lower --http-max-connections)",
                                         e.strerror, ACCEPT_PAUSE_S)
                else:
                    self.trouble.warning("accept-" + str(e.errno), "HTTP port: accept failed (%s); accepting "
                                         "paused for %g s", e.strerror, ACCEPT_PAUSE_S)
                self._pause()
                return
            if self.open_connections >= self.limit:
                self._refuse(conn)
                continue
            conn.setblocking(False)
            tls = {"ssl": self.ssl_context, "ssl_handshake_timeout": self.handshake_timeout} \
                if self.ssl_context else {}
            task = self.loop.create_task(self.loop.connect_accepted_socket(self.server, conn, **tls))
            self.connecting.add(task)
            task.add_done_callback(self._connected)

    def _connected(self, task):
        self.connecting.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # A failed TLS handshake, a client gone at once: asyncio has closed the socket.
            log.debug("HTTP connection not set up: %s", task.exception())

    def _refuse(self, conn):
        try:
            if self.ssl_context is None:
                conn.setblocking(False)
                conn.send(REFUSED_CONNECTION)
        except OSError:
            pass
        finally:
            conn.close()
        self.trouble.warning("limit", "HTTP port: connections refused, %d open is the limit "
                             "(--http-max-connections, within the descriptor limit)", self.limit)

    def _pause(self):
        if self.resume_handle is None:
            for sock in self.sockets:
                self.loop.remove_reader(sock.fileno())
            self.resume_handle = self.loop.call_later(ACCEPT_PAUSE_S, self._resume)

    def _resume(self):
        self.resume_handle = None
        for sock in self.sockets:
            self.loop.add_reader(sock.fileno(), self._accept, sock)

    def close(self):
        """Stops accepting (the connections open are the runner's to close)."""
        if self.resume_handle is not None:
            self.resume_handle.cancel()
            self.resume_handle = None
        else:
            for sock in self.sockets:
                self.loop.remove_reader(sock.fileno())
        for sock in self.sockets:
            sock.close()
        for task in list(self.connecting):
            task.cancel()


# ---------------------------------------------------------------------------------------------
# The gateway

class HttpGateway:
    """The HTTP port of one server.  ``bind(grpc_server)`` before the gRPC server starts (it
    adds the Unix socket the gateway forwards to); ``start()`` after; ``stop()`` beside the gRPC server's stop."""

    def __init__(self, config, tokens=None):
        self.config = config
        # The gRPC port's tokens (security.TokenSource), checked here too before a body is read.
        if tokens is None and (config.auth_token or config.auth_token_file):
            tokens = security.TokenSource(config.auth_token, config.auth_token_file)
        self.tokens = tokens
        self.methods = method_table()
        self.ssl_context = http_ssl_context(config)
        self.origins = parse_origins(config.http_cors_origins)
        if config.http_static_dir and not os.path.isfile(os.path.join(config.http_static_dir, "index.html")):
            raise ValueError(f"--http-static-dir: no index.html in {config.http_static_dir!r}")
        self.socket_dir = None
        self.channel = None
        self.runner = None
        self.listener = None
        self.parsers = None
        self.reading_bytes = 0        # held by the bodies being read (BODIES_READ_AT_ONCE)
        self.port = None
        self._callables = {}

    @property
    def scheme(self):
        return "https" if self.ssl_context else "http"

    def bind(self, grpc_server):
        """Adds the gateway's Unix socket to `grpc_server` (before it starts).

        Local credentials: grpc counts the connection as secure, which it is (a socket in a
        directory only this user can open, mode 0700 from mkdtemp)."""
        self.socket_dir = tempfile.mkdtemp(prefix="fagin-http-")
        address = f"unix:{os.path.join(self.socket_dir, 'grpc.sock')}"
        grpc_server.add_secure_port(address, grpc.local_server_credentials(grpc.LocalConnectionType.UDS))
        self._address = address

    async def start(self):
        """Opens the channel to the gRPC server and serves the HTTP port; returns the port."""
        self.channel = grpc.aio.secure_channel(
            self._address, grpc.local_channel_credentials(grpc.LocalConnectionType.UDS),
            # The gRPC server applies its own limits; the channel adds none.
            options=[("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)])
        app = web.Application(client_max_size=BODY_FACTOR * self.config.max_message_bytes + 1024)
        route = app.router.add_post("/{service}/{method}", self.handle)
        if self.origins:
            options = aiohttp_cors.ResourceOptions(
                allow_credentials=False, expose_headers=CORS_EXPOSE_HEADERS,
                allow_headers=CORS_ALLOW_HEADERS, allow_methods=["POST"], max_age=CORS_MAX_AGE)
            cors = aiohttp_cors.setup(app, defaults={origin: options for origin in self.origins})
            cors.add(route)
        if self.config.http_static_dir:
            index = os.path.join(self.config.http_static_dir, "index.html")

            async def root(request):
                return web.FileResponse(index)

            async def post_only(request):
                raise web.HTTPMethodNotAllowed(request.method, ["POST"])
            app.router.add_get("/", root)
            # A GET of a method's path is a wrong method (405), not a missing file of the
            # static directory, which would otherwise answer it (404).
            services = "|".join(re.escape(service.full_name) for service in SERVICES)
            app.router.add_get(f"/{{service:{services}}}/{{method}}", post_only)
            # The rooms' component data (engines/<game>/data/*.json: cards, boards), which the
            # page draws the table from: the same files the engines load, never a copy.
            app.router.add_get("/data/{game}/{name}", component_data)
            app.router.add_static("/", self.config.http_static_dir)
        # handler_cancellation: a client that hangs up cancels its call, and with it the search.
        # The shutdown timeout is only a backstop: the gRPC server's stop ends the calls in
        # `grace`, and each handler then answers at once.
        # keepalive_timeout: aiohttp closes a connection that has not brought a whole request
        # head this long after it opened or after its last answer, idle or trickling alike.
        self.runner = web.AppRunner(app, access_log=None, handler_cancellation=True,
                                    shutdown_timeout=self.config.grace_seconds + 5,
                                    keepalive_timeout=self.config.http_idle_timeout, lingering_time=LINGER_S)
        await self.runner.setup()
        host = self.config.host
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        try:
            sockets = listening_sockets(host, self.config.http_port, backlog=128)
        except OSError as e:
            await self.runner.cleanup()
            await self.channel.close()
            raise OSError(f"--http-port: cannot listen on {host}:{self.config.http_port}: {e.strerror}") from None
        limit = connection_limit(self.config.http_max_connections)
        if limit < self.config.http_max_connections:
            log.info("HTTP port: at most %d connections (--http-max-connections %d lowered to leave "
                     "descriptors for the gRPC port: the process may open %d)", limit,
                     self.config.http_max_connections, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        self.parsers = ThreadPoolExecutor(max_workers=DECODE_THREADS, thread_name_prefix="fagin-http-parse")
        self.listener = HttpListener(sockets, self.runner.server, self.ssl_context, limit,
                                     handshake_timeout=self.config.http_idle_timeout)
        self.port = sockets[0].getsockname()[1]
        return self.port

    async def stop(self):
        """Stops listening, waits for the requests in flight (their calls end with the gRPC
        server's stop, which runs beside this), then closes the channel."""
        try:
            if self.listener is not None:
                self.listener.close()
            if self.runner is not None:
                await self.runner.cleanup()
            if self.channel is not None:
                await self.channel.close()
        finally:
            if self.parsers is not None:
                self.parsers.shutdown(wait=False, cancel_futures=True)
            if self.socket_dir:
                shutil.rmtree(self.socket_dir, ignore_errors=True)

    # --------------------------------------------------------------- requests

    def _callable(self, method: Method):
        multi = self._callables.get(method.path)
        if multi is None:
            # No serializers: the request's bytes go through as they are, and the server's
            # codec reads them exactly as it reads a gRPC client's.
            make = self.channel.unary_stream if method.server_streaming else self.channel.unary_unary
            multi = self._callables[method.path] = make(method.path)
        return multi

    async def handle(self, request: web.Request):
        method = self.methods.get(request.path)
        media = request.content_type.lower()
        if media in GRPC_WEB_TYPES:
            return await self._grpc_web(request, method, GRPC_WEB_TYPES[media])
        try:
            if media not in (JSON_TYPE, PROTO_TYPE):
                raise CallError(grpc.StatusCode.UNIMPLEMENTED,
                                f"content-type: {quoted(media) if media else 'none'} is not served; send application/json "
                                f"(proto3 JSON), application/proto, or gRPC-Web (application/grpc-web+proto)",
                                http_status=415, headers={"Accept-Post": f"{JSON_TYPE}, {PROTO_TYPE}"})
            return await self._connect_unary(request, method, media == JSON_TYPE)
        except CallError as e:
            response = connect_error(e.code, e.message, http_status=e.http_status, headers=e.headers)
            if e.close:
                response.force_close()
            return response

    def _method(self, request, method):
        if method is None:
            known = ", ".join(m.name for m in self.methods.values() if m.path.startswith("/fagin.v1.Fagin/"))
            raise CallError(grpc.StatusCode.UNIMPLEMENTED,
                            f"method: no method {quoted(request.path)}; fagin.v1.Fagin has {known}",
                            http_status=404)
        return method

    def _check_token(self, request, method):
        """UNAUTHENTICATED at once, from the headers, for a call that needs a token and has no
        accepted one: the body is never read (the gRPC server checks the token again)."""
        if self.tokens is None or method.path.startswith(security.OPEN_METHODS):
            return
        given = [("authorization", value) for value in request.headers.getall("authorization", ())]
        problem = security.token_problem(given, self.tokens.current())
        if problem is not None:
            raise CallError(grpc.StatusCode.UNAUTHENTICATED, problem)

    @property
    def body_limit(self):
        return BODY_FACTOR * self.config.max_message_bytes + 1024

    def _too_large(self, limit):
        why = f"{BODY_FACTOR}x --max-message-bytes" if limit == self.body_limit else "a method open without a token"
        return CallError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"request body: more than {limit} bytes ({why})",
                         close=True)

    async def _body(self, request, method):
        """The request's body: refused at once if its Content-Length is over the limit (for a
        method open without a token, OPEN_BODY_BYTES), cut off when it grows over it (a chunked
        body), refused if it has not all come within --http-body-timeout seconds of the
        request's head, and refused for now (retry) when the bodies being read would together
        hold more than BODIES_READ_AT_ONCE bodies' limit.  The first SMALL_BODY_BYTES of each
        body are not counted against that: clients filling it with large bodies cannot get
        the small calls of others refused.

        A refused body's chunks are dropped before the refusal is raised: nothing that outlives
        the request (an exception's traceback, a reference cycle awaiting the collector) holds them."""
        limit = OPEN_BODY_BYTES if method.path.startswith(security.OPEN_METHODS) else self.body_limit
        if request.content_length is not None and request.content_length > limit:
            raise self._too_large(limit)
        all_bodies = BODIES_READ_AT_ONCE * self.body_limit
        seconds = self.config.http_body_timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        chunks = []
        size = 0
        counted = 0           # of `size`, the bytes counted in self.reading_bytes
        try:
            while True:
                # A deadline for each read, not one wait_for around the whole loop: an error
                # raised inside a wait_for task forms a cycle with that task that would keep
                # this frame, and its chunks, alive until the collector's next full pass.
                try:
                    chunk = await asyncio.wait_for(request.content.readany(), max(0.0, deadline - loop.time()))
                except asyncio.TimeoutError:
                    raise CallError(grpc.StatusCode.DEADLINE_EXCEEDED,
                                    f"request body: not all received within {seconds:g} s "
                                    f"(--http-body-timeout; {size} bytes came)", http_status=408, close=True) from None
                if not chunk:
                    break
                if size + len(chunk) > limit:
                    raise self._too_large(limit)
                size += len(chunk)
                beyond_small = max(0, size - SMALL_BODY_BYTES)
                if beyond_small > counted:
                    if self.reading_bytes + beyond_small - counted > all_bodies:
                        raise CallError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                        f"request body: the HTTP port is reading {self.reading_bytes} bytes of "
                                        f"bodies already, its most at once ({BODIES_READ_AT_ONCE} bodies' limit); "
                                        f"retry", headers={"Retry-After": "1"}, close=True)
                    self.reading_bytes += beyond_small - counted
                    counted = beyond_small
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            self.reading_bytes -= counted
            chunks.clear()

    async def _off_loop(self, function, *args):
        return await asyncio.get_running_loop().run_in_executor(self.parsers, function, *args)

    async def _connect_unary(self, request, method, as_json):
        method = self._method(request, method)
        if method.client_streaming or method.server_streaming:
            raise CallError(grpc.StatusCode.UNIMPLEMENTED,
                            f"method: {method.name} is a streaming call; the JSON form serves unary calls "
                            f"only: call it with gRPC-Web (content-type application/grpc-web+proto) or gRPC",
                            http_status=415)
        self._check_token(request, method)
        timeout = timeout_of(request.headers, grpc_web=False)
        body = await self._body(request, method)
        if not as_json:
            payload = body
        elif len(body) <= JSON_INLINE_BYTES:
            payload = json_payload(body, method.request_class)
        else:
            payload = await self._off_loop(json_payload, body, method.request_class)
        call = self._callable(method)(payload, timeout=timeout, metadata=metadata_of(request))
        try:
            answer = await call
            trailing = await call.trailing_metadata()
        except grpc.aio.AioRpcError as e:
            return connect_error(e.code(), e.details() or "", metadata=e.trailing_metadata())
        finally:
            call.cancel()         # the client hung up (the handler is cancelled): its search stops
        headers = {f"trailer-{k}": v for k, v in _metadata_pairs(trailing)}
        if as_json:
            text = json.dumps(message_dict(method.response_class.FromString(answer)),
                              separators=(",", ":"), ensure_ascii=False)
            return web.Response(body=text.encode("utf-8"), content_type=JSON_TYPE, charset="utf-8",
                                headers=headers)
        return web.Response(body=answer, content_type=PROTO_TYPE, headers=headers)

    async def _grpc_web(self, request, method, text):
        content_type = "application/grpc-web-text+proto" if text else "application/grpc-web+proto"
        encode = base64.b64encode if text else (lambda b: b)

        def trailers_only(code, message, metadata=()):
            # The status in the headers and no body: what gRPC-Web answers a call that fails
            # before any message.
            return web.Response(status=200, content_type=content_type,
                                headers=status_lines(code, message, metadata))
        try:
            method = self._method(request, method)
            if method.client_streaming:
                raise CallError(grpc.StatusCode.UNIMPLEMENTED,
                                f"method: {method.name} streams requests from the client, which gRPC-Web "
                                f"cannot carry; call it over gRPC, or call Recommend once a position")
            self._check_token(request, method)
            timeout = timeout_of(request.headers, grpc_web=True)
            body = await self._body(request, method)
            if text:
                body = base64_body(body) if len(body) <= JSON_INLINE_BYTES else \
                    await self._off_loop(base64_body, body)
            payload = unframe(body)
        except CallError as e:
            response = trailers_only(e.code, e.message)
            if e.close:
                response.force_close()
            return response
        call = self._callable(method)(payload, timeout=timeout, metadata=metadata_of(request))
        try:
            if method.server_streaming:
                replies = call.__aiter__()
                try:
                    first = [await replies.__anext__()]
                except StopAsyncIteration:
                    first, replies = [], None
            else:
                first, replies = [await call], None
        except grpc.aio.AioRpcError as e:
            return trailers_only(e.code(), e.details() or "", e.trailing_metadata())
        response = web.StreamResponse(status=200, headers={"Content-Type": content_type})
        try:
            await response.prepare(request)
            for message in first:
                await response.write(encode(frame(message)))
            try:
                if replies is not None:
                    async for message in replies:
                        await response.write(encode(frame(message)))
                lines = status_lines(grpc.StatusCode.OK, "", await call.trailing_metadata())
            except grpc.aio.AioRpcError as e:
                lines = status_lines(e.code(), e.details() or "", e.trailing_metadata())
            await response.write(encode(trailer_frame(lines)))
            await response.write_eof()
        finally:
            call.cancel()         # the client went away mid-stream: its search stops
        return response


def message_dict(message):
    """A response as proto3 JSON, with every field present even at its default value: a
    client reading plain JSON (curl, a page's fetch) then finds seat 0 or action id 0 as 0,
    not as a missing key.  Fields with presence (oneofs, optional, messages) stay absent when unset."""
    try:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    except TypeError:       # protobuf before 5.26 names the option differently
        return json_format.MessageToDict(message, including_default_value_fields=True)


def base64_body(body: bytes) -> bytes:
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT,
                        "request body: not base64 (content-type grpc-web-text)") from None


def json_request(body: bytes, request_class):
    """The request message from a proto3 JSON body (an empty body is the empty message).

    A body over JSON_INLINE_BYTES is read by BoundedJson, which refuses a list or a request
    larger than any game's could be before building it (call this off the event loop then)."""
    message = request_class()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT,
                        f"request body: not UTF-8 (byte {e.start})") from None
    if text.strip():
        try:
            if len(body) <= JSON_INLINE_BYTES:
                json_format.Parse(text, message)
            else:
                json_format.ParseDict(BoundedJson(text).parse(), message)
        except CallError:
            raise
        except json_format.ParseError as e:
            # protobuf's message names the field: 'Failed to parse players field: ...', and
            # quotes what the client wrote (an unknown key): a long quotation is cut short.
            raise CallError(grpc.StatusCode.INVALID_ARGUMENT, f"request body: {_cut_quotations(str(e))}") from None
        except RecursionError:
            raise CallError(grpc.StatusCode.INVALID_ARGUMENT, "request body: nested too deeply") from None
        except Exception as e:      # what json_format.Parse would have wrapped in a ParseError
            raise CallError(grpc.StatusCode.INVALID_ARGUMENT, f"request body: {type(e).__name__}: {e}") from None
    return message


_QUOTATION = re.compile(r'"([^"]*)("|$)')


def _cut_quotations(message):
    """`message` with each double-quoted span longer than QUOTED_CHARS as ``logs.quoted`` shows it."""
    return _QUOTATION.sub(lambda match: match.group() if len(match.group(1)) <= QUOTED_CHARS
                          else quoted(match.group(1)), message)


def json_payload(body: bytes, request_class) -> bytes:
    """The bytes of the request message a JSON body holds (``json_request``)."""
    return json_request(body, request_class).SerializeToString()


def connect_error(code: grpc.StatusCode, message: str, metadata=(), http_status=None, headers=None):
    """Connect's unary error: a JSON body {"code", "message"}, the HTTP status Connect maps the
    code to, and the call's trailing metadata as ``trailer-*`` headers (a refusal for load
    also as ``Retry-After``, which HTTP clients and proxies understand)."""
    out = dict(headers or {})
    for key, value in _metadata_pairs(metadata):
        out[f"trailer-{key}"] = value
        if key == "grpc-retry-pushback-ms" and value.isdigit():
            out["Retry-After"] = str(max(1, math.ceil(int(value) / 1000)))
    body = {"code": connect_code(code), "message": message}
    return web.Response(status=http_status or CONNECT_HTTP_STATUS.get(code, 500),
                        body=json.dumps(body, ensure_ascii=False).encode("utf-8"),
                        content_type=JSON_TYPE, charset="utf-8", headers=out)


_ORIGIN = re.compile(r"^https?://[^/\s,]+$")


def parse_origins(text: str):
    """The origins of --http-cors-origins: a comma-separated list of scheme://host[:port], or *."""
    origins = [o.strip().rstrip("/") for o in (text or "").split(",") if o.strip()]
    for origin in origins:
        if origin != "*" and not _ORIGIN.match(origin):
            raise ValueError(f"--http-cors-origins: {origin!r} is not an origin "
                             f"(scheme://host[:port], e.g. https://play.example.com, or *)")
    return origins
