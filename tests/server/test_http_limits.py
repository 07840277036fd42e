"""The HTTP port against clients that send too much, too slowly or too often: the token and the
size are checked before a body is read, large JSON is parsed off the event loop within the
games' bounds, connections time out and are limited, and running out of descriptors is a log
line, not a flood; meanwhile the gRPC port and health go on answering."""
import asyncio
import errno
import gc
import json
import logging
import os
import resource
import socket
import subprocess
import sys
import threading
import time
import weakref

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from fagin.engines import new_game
from fagin.server import gateway
from fagin.server.codec import encode_state
from fagin.v1 import fagin_pb2 as pb

from .test_http import JSON, _serve, call, request, web  # noqa: F401 (web: a fixture)
from .test_metrics import free_port
from .test_security import TOKEN


def _head(path, length, headers=()):
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {length}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _answer(sock, seconds, whole=False):
    """What the server sends on `sock` until it closes it or `seconds` pass (with `whole`: or
    until one whole response has come): (bytes, closed)."""
    sock.settimeout(0.05)
    data, end = b"", time.monotonic() + seconds
    while time.monotonic() < end:
        if whole and _complete(data):
            return data, False
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def _complete(data):
    head, found, body = data.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return True


def _status_and_json(data):
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), head.decode("latin-1"), json.loads(body) if body else None


@pytest.fixture(scope="module")
def locked():
    # The default size limit, 4 MB (16 MB for an HTTP body), as the operator's server had.
    srv = _serve(auth_token=TOKEN, max_message_bytes=4 << 20)
    yield srv
    srv.stop()


# --- before the body ---------------------------------------------------------------------------

def test_an_unauthenticated_request_is_refused_before_its_body_is_read(locked):
    port = locked.server.http.port
    # A 16 MB body announced and never sent: the answer cannot wait for it.
    for headers in ((f"Content-Type: application/json",),
                    ("Content-Type: application/json", "Authorization: Bearer not-the-token-at-all")):
        with socket.create_connection(("127.0.0.1", port)) as sock:
            start = time.monotonic()
            sock.sendall(_head("/fagin.v1.Fagin/Recommend", 16_000_000, headers))
            data, _ = _answer(sock, 5, whole=True)
            status, _, err = _status_and_json(data)
            assert status == 401 and err["code"] == "unauthenticated", data
            assert time.monotonic() - start < 5         # not after the 16 MB announced
    # gRPC-Web alike: the status in the headers (trailers-only), at once.
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(_head("/fagin.v1.Fagin/Recommend", 16_000_000, ("Content-Type: application/grpc-web+proto",)))
        data, _ = _answer(sock, 5)
        assert b"grpc-status: 16" in data.lower(), data
    # Health needs no token, and a call with the token goes on to read its body as before.
    status, _, body = request(locked, "/grpc.health.v1.Health/Check", b"{}", JSON)
    assert status == 200 and json.loads(body) == {"status": "SERVING"}
    status, answer = call(locked, "ListGames", {}, {"Authorization": f"Bearer {TOKEN}"})
    assert status == 200 and answer["games"]


def test_an_oversized_body_is_refused_at_once_or_as_it_grows(web):
    limit = web.server.http.body_limit
    with socket.create_connection(("127.0.0.1", web.server.http.port)) as sock:
        start = time.monotonic()
        sock.sendall(_head("/fagin.v1.Fagin/Recommend", limit + 1, ("Content-Type: application/json",)))
        data, _ = _answer(sock, 5, whole=True)
        status, head, err = _status_and_json(data)
        assert status == 429 and err["code"] == "resource_exhausted" and "--max-message-bytes" in err["message"]
        assert time.monotonic() - start < 5 and "Connection: close" in head
    # Chunked (no Content-Length): cut off once it passes the limit, not read to its end.
    with socket.create_connection(("127.0.0.1", web.server.http.port)) as sock:
        sock.sendall(b"POST /fagin.v1.Fagin/Recommend HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b" " * 65536
        sent = 0
        sock.settimeout(5)
        try:
            while sent <= limit + len(chunk):
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except OSError:       # the server may close before the last chunks
            pass
        data, _ = _answer(sock, 5)
        assert _status_and_json(data)[0] == 429, data


def test_bodies_read_at_once_hold_a_bounded_memory_and_small_bodies_are_still_served():
    # A 1 MB body limit: the stalled bodies below fill the port's bound within a second.
    srv = _serve(http_body_timeout=4, max_message_bytes=1 << 18)
    stalled = []
    try:
        port, limit, small = srv.server.http.port, srv.server.http.body_limit, gateway.SMALL_BODY_BYTES
        # Clients that send all but the last byte of the largest body and wait.
        for _ in range(gateway.BODIES_READ_AT_ONCE):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(_head("/fagin.v1.Fagin/Recommend", limit, ("Content-Type: application/json",))
                         + b" " * (limit - 1))
            stalled.append(sock)
        full = gateway.BODIES_READ_AT_ONCE * (limit - 1 - small)
        deadline = time.monotonic() + 3
        while srv.server.http.reading_bytes < full and time.monotonic() < deadline:
            time.sleep(0.02)
        assert srv.server.http.reading_bytes == full
        # Meanwhile a large body that would take the memory past the bound is refused, to retry...
        status, headers, body = request(srv, "/fagin.v1.Fagin/Recommend", b" " * (8 * small) + b"{}", JSON)
        assert status == 429 and headers["Retry-After"] == "1", body
        assert json.loads(body)["message"].startswith("request body: the HTTP port is reading"), body
        # ...while small bodies, with or without a token, are served.
        assert call(srv, "ListGames", b" " * (small - 10) + b"{}")[0] == 200
        status, _, body = request(srv, "/grpc.health.v1.Health/Check", b"{}", JSON)
        assert status == 200 and json.loads(body) == {"status": "SERVING"}
        # The stalled bodies time out, and what they held is free again.
        for sock in stalled:
            data, closed = _answer(sock, 8)
            assert data.startswith(b"HTTP/1.1 408 ") and closed, data[:200]
        assert srv.server.http.reading_bytes == 0
        status, _, body = request(srv, "/fagin.v1.Fagin/ListGames", b" " * (8 * small) + b"{}", JSON)
        assert status == 200, body
    finally:
        for sock in stalled:
            sock.close()
        srv.stop()


def test_a_body_of_a_method_open_without_a_token_is_held_tiny(locked):
    start = time.monotonic()
    status, _, body = request(locked, "/grpc.health.v1.Health/Check", b" " * (gateway.OPEN_BODY_BYTES + 1) + b"{}",
                              JSON)
    assert status == 429 and "a method open without a token" in json.loads(body)["message"], body
    assert time.monotonic() - start < 5


# --- large JSON --------------------------------------------------------------------------------

def _kuhn(actions):
    return json.dumps({"state": {"kuhnPoker": {"cards": [2, 0], "actions": actions}}}, separators=(",", ":"))


def test_a_json_list_longer_than_any_game_holds_is_refused_naming_the_field(web):
    start = time.monotonic()
    status, err = call(web, "Recommend", _kuhn([1] * 400_000))     # 800 KB, within the size limit
    assert status == 400 and err["code"] == "invalid_argument"
    assert err["message"] == (f"request body: state.kuhnPoker.actions: more than {gateway.MAX_JSON_LIST} "
                              f"elements, more than a list of any served game holds"), err
    assert time.monotonic() - start < 5
    # Within the gateway's bound, a list still meets the game's own, as over gRPC.
    status, err = call(web, "Recommend", _kuhn([1] * 200) + " " * gateway.JSON_INLINE_BYTES)
    assert status == 400 and err["message"].startswith("state.kuhn_poker.actions"), err


@pytest.mark.parametrize("text, message", [
    ('{"a":' + "[" * 40 + "]" * 40 + "}", f"request body: a[0][0]"),
    ('{"state":{"kuhnPoker":{"cards":[1],"cards":[2]}}}', "request body: state.kuhnPoker.cards: given twice"),
    ('{"s":' + json.dumps([[[0] * 5] * 250] * 100) + "}",
     f"request body: s[87][80][1]: the request holds more than {gateway.MAX_JSON_VALUES} values"),
    ('{"seat": 1,}', "request body: not JSON: expected a quoted key at character 11"),
])
def test_large_json_bodies_meet_the_bounds(text, message):
    body = (text + " " * gateway.JSON_INLINE_BYTES).encode()
    with pytest.raises(gateway.CallError) as refused:
        gateway.json_request(body, pb.RecommendRequest)
    assert refused.value.code is grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.message.startswith(message), refused.value.message


def test_large_json_bodies_read_as_small_ones():
    # The bounded parser reads what json_format.Parse reads: a London state, padded past the
    # size above which the bounded parser runs, parses to the same message.
    state = encode_state(new_game("london", players=4, seed=3))
    text = json_format.MessageToJson(pb.RecommendRequest(state=state, seat=1, session="s\u00e9ance \\\"1\""))
    text = text.replace('"seat": 1', '"seat": 1.0e0')    # a float form of an integer, as JSON allows
    padded = (text + "\n" * gateway.JSON_INLINE_BYTES).encode()
    assert len(padded) > gateway.JSON_INLINE_BYTES
    assert gateway.json_request(padded, pb.RecommendRequest) == json_format.Parse(text, pb.RecommendRequest())


def _health_stalls(port, until, worst):
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
        while not until.is_set():
            start = time.monotonic()
            try:
                stub.Check(health_pb2.HealthCheckRequest(), timeout=2)
            except grpc.RpcError:
                pass
            worst.append(time.monotonic() - start)
            time.sleep(0.02)


def test_grpc_health_answers_while_http_clients_send_large_bodies(locked):
    authorized = {**JSON, "Authorization": f"Bearer {TOKEN}"}
    many_values = ('{"state":{"london":{"players":[' + ",".join(['{"hand":[' + ",".join(["1"] * 250) + "]}"] * 30_000)
                   + "]}}}").encode()
    bodies = [(_kuhn([1] * 1_900_000).encode(), JSON),          # refused by its token
              (_kuhn([1] * 1_900_000).encode(), authorized),    # by its list's length
              (many_values[:16_000_000], authorized)]           # by its count of values, or as not JSON
    until, worst = threading.Event(), []
    prober = threading.Thread(target=_health_stalls, args=(locked.port, until, worst))
    prober.start()
    try:
        time.sleep(0.2)
        for body, headers in bodies:
            status, _, _ = request(locked, "/fagin.v1.Fagin/Recommend", body, headers)
            assert status in (400, 401), status
        time.sleep(0.1)
    finally:
        until.set()
        prober.join(30)
    # Health answers throughout, never held for seconds (server, senders and prober share
    # this process and a loaded machine's cores: the bound is loose).
    assert len(worst) > 5 and max(worst) < 2, sorted(worst)[-5:]


# --- connections -------------------------------------------------------------------------------

def test_idle_and_slow_connections_are_closed():
    srv = _serve(http_idle_timeout=0.5, http_body_timeout=0.5)
    try:
        port = srv.server.http.port
        with socket.create_connection(("127.0.0.1", port)) as idle:
            start = time.monotonic()
            data, closed = _answer(idle, 5)
            assert closed and data == b"" and time.monotonic() - start < 3
        # A request head sent a byte at a time is closed like an idle connection.
        with socket.create_connection(("127.0.0.1", port)) as slow:
            start = time.monotonic()
            slow.settimeout(0.1)
            closed = False
            for byte in b"POST /grpc.health.v1.Health/Check HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100:
                try:
                    slow.sendall(bytes([byte]))
                    if slow.recv(1024) == b"":
                        closed = True
                        break
                except socket.timeout:
                    continue
                except OSError:
                    closed = True
                    break
            assert closed and time.monotonic() - start < 3
        # A body trickling in is cut off at the body timeout: 408, and the connection closed.
        with socket.create_connection(("127.0.0.1", port)) as trickle:
            trickle.sendall(_head("/grpc.health.v1.Health/Check", 1000, ("Content-Type: application/json",)))
            start, data = time.monotonic(), b""
            trickle.settimeout(0.1)
            while time.monotonic() - start < 5 and b"\r\n\r\n" not in data:
                try:
                    trickle.sendall(b" ")
                    data += trickle.recv(65536)
                except socket.timeout:
                    continue
            status, head, err = _status_and_json(data)
            assert status == 408 and err["code"] == "deadline_exceeded" and "--http-body-timeout" in err["message"]
            assert time.monotonic() - start < 3 and "Connection: close" in head
        # A connection in use stays open between its requests within the idle timeout.
        status, _, _ = request(srv, "/grpc.health.v1.Health/Check", b"{}", JSON)
        assert status == 200
    finally:
        srv.stop()


def _wait_for_open_connections(srv, wanted, seconds=10):
    deadline = time.monotonic() + seconds
    while not wanted(srv.server.http.listener.open_connections):
        assert time.monotonic() < deadline, srv.server.http.listener.open_connections
        time.sleep(0.02)


def test_connections_over_the_limit_are_refused():
    srv = _serve(http_max_connections=3)
    held = []
    try:
        port = srv.server.http.port
        for _ in range(3):
            held.append(socket.create_connection(("127.0.0.1", port)))
        _wait_for_open_connections(srv, lambda n: n == 3)
        with socket.create_connection(("127.0.0.1", port)) as extra:
            data, closed = _answer(extra, 5)
            assert closed and data.startswith(b"HTTP/1.1 503 "), data
            assert _status_and_json(data)[2]["code"] == "unavailable"
        # The connections within the limit are served; once one closes, a new one is taken.
        held[0].sendall(_head("/grpc.health.v1.Health/Check", 2, ("Content-Type: application/json",)) + b"{}")
        data, _ = _answer(held[0], 5, whole=True)
        assert data.startswith(b"HTTP/1.1 200 "), data
        held.pop(0).close()
        _wait_for_open_connections(srv, lambda n: n < 3)
        status, _, body = request(srv, "/grpc.health.v1.Health/Check", b"{}", JSON)
        assert status == 200 and json.loads(body) == {"status": "SERVING"}
    finally:
        for sock in held:
            sock.close()
        srv.stop()


def test_the_connection_limit_leaves_descriptors_to_the_grpc_port(monkeypatch):
    soft = 1024
    monkeypatch.setattr(resource, "getrlimit", lambda which: (soft, soft))
    assert gateway.connection_limit(100_000) == soft - soft // 4
    assert gateway.connection_limit(10) == 10


class _OutOfDescriptors:
    """A listening socket whose accept fails as in a process at its descriptor limit."""

    def __init__(self, sock):
        self.sock = sock
        self.accepts = 0

    def fileno(self):
        return self.sock.fileno()

    def accept(self):
        self.accepts += 1
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    def close(self):
        self.sock.close()


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append((record.name, record.getMessage(), record.exc_info))


def test_running_out_of_descriptors_is_one_log_line_and_the_ports_go_on():
    srv = _serve()
    lines = _Lines()
    for name in ("fagin.server.gateway", "asyncio"):
        logging.getLogger(name).addHandler(lines)
    try:
        listener = srv.server.http.listener
        real = listener.sockets[0]
        failing = _OutOfDescriptors(real)

        def listen_with(sock):
            async def swap():
                listener.sockets = [sock]
                if listener.resume_handle is None:      # else its resume registers `sock`
                    listener.loop.remove_reader(real.fileno())
                    listener.loop.add_reader(real.fileno(), listener._accept, sock)
            asyncio.run_coroutine_threadsafe(swap(), srv.loop).result(10)

        listen_with(failing)
        # Connections wait in the listen queue while accepting fails.
        waiting = [socket.create_connection(("127.0.0.1", srv.server.http.port)) for _ in range(20)]
        time.sleep(2.5)
        # The gRPC port answers throughout.
        with grpc.insecure_channel(srv.target) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        listen_with(real)
        # Paused after each failure, it tried about once a second, not a hundred times a wake-up.
        assert 2 <= failing.accepts <= 5, failing.accepts
        trouble = [line for line in lines.lines if "accept" in line[1]]
        assert len(trouble) == 1 and trouble[0][2] is None, lines.lines
        assert "Too many open files" in trouble[0][1] and "--http-max-connections" in trouble[0][1]
        # Once descriptors are back, the connections that waited are served.
        waiting[0].sendall(_head("/grpc.health.v1.Health/Check", 2, ("Content-Type: application/json",)) + b"{}")
        data, _ = _answer(waiting[0], 5, whole=True)
        assert data.startswith(b"HTTP/1.1 200 "), data
        for sock in waiting:
            sock.close()
    finally:
        for name in ("fagin.server.gateway", "asyncio"):
            logging.getLogger(name).removeHandler(lines)
        srv.stop()


def _serve_with_descriptors(nofile, tries=3):
    """A server whose process may open `nofile` descriptors, on a free HTTP port: (the process,
    its HTTP port, its gRPC port).  The port is free when chosen, but another test's server
    may take it before this one binds it; then it is tried again on another."""
    for _ in range(tries):
        http_port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "fagin.server", "--port", "0", "--workers", "1", "--http-port", str(http_port),
             "--log-level", "WARNING"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile)))
        first = proc.stdout.readline()
        if first.startswith("fagin listening on "):
            proc.stdout.readline()
            return proc, http_port, int(first.rsplit(":", 1)[1])
        _, err = proc.communicate(timeout=30)
        if "in use" not in err:
            raise AssertionError(f"the server did not start: {first!r}\n{err[-3000:]}")
    raise AssertionError(f"no free HTTP port in {tries} tries")


def test_many_idle_http_connections_at_a_low_descriptor_limit():
    # The operator's case, scaled down: more idle HTTP connections than the process may open
    # descriptors. The HTTP port stops short of the limit, the gRPC port still takes a new
    # client, and the log holds a line, not a traceback an accept.
    nofile = 128
    proc, http_port, grpc_port = _serve_with_descriptors(nofile)
    held = []
    try:
        refused = 0
        for _ in range(nofile + 30):
            sock = socket.create_connection(("127.0.0.1", http_port), timeout=5)
            held.append(sock)
        time.sleep(1)
        for sock in held:
            sock.settimeout(0.01)
            try:
                refused += sock.recv(64).startswith(b"HTTP/1.1 503")
            except (socket.timeout, ConnectionResetError):
                pass
        assert refused >= 30
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        for sock in held:
            sock.close()
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err and len(err.splitlines()) <= 3, err[-3000:]


def test_connection_settings_are_checked():
    from fagin.server.config import ServerConfig
    for bad in ({"http_max_connections": 0}, {"http_idle_timeout": 0}, {"http_body_timeout": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ServerConfig(**bad)


# --- refused bodies ----------------------------------------------------------------------------

class _Chunk(bytearray):
    """A chunk of a body that a weak reference can watch."""


class _Body:
    """A request whose body comes as `chunks`, then never ends."""

    def __init__(self, chunks, path="/fagin.v1.Fagin/Recommend"):
        self.content_length = None
        self.path = path
        self.content = self
        self._chunks = list(chunks)

    async def readany(self):
        if self._chunks:
            return self._chunks.pop(0)
        await asyncio.sleep(3600)

    async def iter_any(self):
        while chunk := await self.readany():
            yield chunk


@pytest.mark.parametrize("refusal", ["too large", "bodies at once", "too slow"])
def test_a_refused_body_is_freed_without_waiting_for_the_collector(refusal):
    from fagin.server.config import ServerConfig
    from tests.serving import TEST_CONFIG
    http = gateway.HttpGateway(ServerConfig(**{**TEST_CONFIG, "http_body_timeout": 0.2}))
    limit, small = http.body_limit, gateway.SMALL_BODY_BYTES
    first = _Chunk(small + 1 if refusal != "too large" else limit - 10)
    if refusal == "bodies at once":
        http.reading_bytes = gateway.BODIES_READ_AT_ONCE * limit
    chunks = [first, _Chunk(100)] if refusal != "too slow" else [first]
    watch = weakref.ref(first)
    request = _Body(chunks)
    del first, chunks

    async def refused():
        try:
            await http._body(request, http.methods[request.path])
        except gateway.CallError as e:
            return e.http_status or gateway.CONNECT_HTTP_STATUS[e.code]

    gc.disable()
    try:
        status = asyncio.run(refused())
        assert status == {"too large": 429, "bodies at once": 429, "too slow": 408}[refusal]
        outlived = watch() is not None
        assert not outlived, "the refused body's chunks outlive the request"
    finally:
        gc.enable()
    assert http.reading_bytes == (gateway.BODIES_READ_AT_ONCE * limit if refusal == "bodies at once" else 0)


class _CountedBody(bytes):
    """A body that counts how often its length is asked: a walk over its frames asks once a frame."""
    asked = 0

    def __len__(self):
        _CountedBody.asked += 1
        return super().__len__()


def test_a_body_of_many_grpc_web_frames_is_refused_without_walking_them():
    body = _CountedBody(b"\x00\x00\x00\x00\x00" * 100_000)
    with pytest.raises(gateway.CallError, match="expected one message, got 499995 bytes after it"):
        gateway.unframe(body)
    assert _CountedBody.asked < 10
    one = gateway.frame(b"\x08\x01")
    assert gateway.unframe(one) == b"\x08\x01"
    for cut, message in ((b"", "got none"), (one[:3], "cut short"), (one[:-1], "announces 2 bytes, 1 follow")):
        with pytest.raises(gateway.CallError, match=message):
            gateway.unframe(cut)


def test_grpc_health_answers_while_a_body_of_empty_frames_is_refused(web):
    body = b"\x00\x00\x00\x00\x00" * (web.server.http.body_limit // 5)
    answers = []
    with grpc.insecure_channel(web.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        health.Check(health_pb2.HealthCheckRequest(), timeout=30)
        sender = threading.Thread(target=lambda: answers.append(request(
            web, "/fagin.v1.Fagin/Recommend", body, {"Content-Type": "application/grpc-web+proto"})))
        sender.start()
        while sender.is_alive():
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=30).status == health_pb2.HealthCheckResponse.SERVING
        sender.join()
    status, headers, _ = answers[0]
    assert status == 200 and headers["grpc-status"] == "3" and "expected one message" in headers["grpc-message"]
