"""The HTTP port (server/gateway.py): JSON (Connect unary) and gRPC-Web calls reach the same
servicer as gRPC, with its errors, tokens, limits, TLS; CORS; the operating guide's curl example."""
import base64
import http.client
import json
import logging
import os
import re
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from fagin.server import gateway
from fagin.server.config import ServerConfig
from fagin.v1 import fagin_pb2 as pb

from ..serving import TEST_CONFIG, RunningServer, line_reader
from .test_metrics import free_port
from .test_security import TOKEN, Pki

ROOT = Path(__file__).resolve().parents[2]
JSON = {"Content-Type": "application/json"}
KUHN = {"kuhnPoker": {"cards": [2, 0], "actions": []}}


def _serve(**settings):
    return RunningServer(ServerConfig(**{**TEST_CONFIG, "workers": 1, "http_port": free_port(), **settings}))


@pytest.fixture(scope="module")
def web():
    # Searches stop 400 ms before a deadline (test_deadlines): 150 ms left the answer's way
    # back through the gateway no room for a loaded machine's stall.
    srv = _serve(http_cors_origins="https://play.example.com", deadline_margin_ms=400)
    yield srv
    srv.stop()


def request(srv, path, body=b"", headers=None, method="POST", context=None):
    """(status, headers, body) of one HTTP request to `srv`'s HTTP port."""
    port = srv.server.http.port
    conn = (http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=30) if context
            else http.client.HTTPConnection("127.0.0.1", port, timeout=30))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def call(srv, method, message, headers=None, **kw):
    """A JSON call: (HTTP status, the decoded JSON answer)."""
    body = message if isinstance(message, (bytes, str)) else json.dumps(message)
    status, _, data = request(srv, f"/fagin.v1.Fagin/{method}", body, {**JSON, **(headers or {})}, **kw)
    return status, json.loads(data)


def grpc_answer(srv, method, req):
    with grpc.insecure_channel(srv.target) as channel:
        rpc = channel.unary_unary(f"/fagin.v1.Fagin/{method}", request_serializer=lambda m: m.SerializeToString(),
                                  response_deserializer=type(_RESPONSES[method]()).FromString)
        return gateway.message_dict(rpc(req, timeout=30))


_RESPONSES = {"ListGames": pb.ListGamesResponse, "NewGame": pb.NewGameResponse,
              "LegalActions": pb.LegalActionsResponse, "ApplyAction": pb.ApplyActionResponse,
              "ViewState": pb.ViewStateResponse, "Recommend": pb.Recommendation,
              "ViewRecord": pb.ViewRecordResponse}


# --- every unary call, the same answers as over gRPC -------------------------------------------

def test_every_unary_method_answers_json_as_grpc_does(web):
    new_game = {"game": "kids_of_london", "players": 4, "seed": "5"}
    status, game = call(web, "NewGame", new_game)
    assert status == 200 and game["state"]["kidsOfLondon"]
    state = game["state"]
    requests = {
        "ListGames": {},
        "NewGame": new_game,
        "LegalActions": {"state": state},
        "ApplyAction": {"state": state, "actionId": 0, "seed": "3"},
        "ViewState": {"state": state, "seat": 1},
        "Recommend": {"state": state, "search": {"iterations": "300", "seed": "9"}},
        "ViewRecord": {"record": game["record"], "seat": 1},
    }
    assert set(requests) == {m.name for m in gateway.SERVICES[0].methods
                             if not (m.client_streaming or m.server_streaming)}
    for method, message in requests.items():
        status, answer = call(web, method, message)
        assert status == 200, (method, answer)
        # Built from the same JSON: one servicer, one answer (a seeded search with an
        # iteration budget is reproducible; only its time differs).
        expected = grpc_answer(web, method, json_format.ParseDict(message, getattr(pb, method + "Request")()))
        if method == "Recommend":
            for a in (answer, expected):
                a.pop("elapsedMs")
            assert answer == expected and answer["iterations"] == "300"
        else:
            assert answer == expected, method
    assert any(g["id"] == "kuhn_poker" for g in call(web, "ListGames", "")[1]["games"])
    # Fields at their default value are there too (a plain JSON reader needs no defaults).
    status, answer = call(web, "NewGame", {"game": "kuhn_poker", "players": 2, "seed": "7"})
    assert answer["status"]["currentSeat"] == 0 and answer["status"]["terminal"] is False
    assert call(web, "LegalActions", {"state": answer["state"]})[1]["actions"][0]["id"] == 0


def test_binary_protobuf_body(web):
    status, headers, body = request(web, "/fagin.v1.Fagin/NewGame",
                                    pb.NewGameRequest(game="kuhn_poker", players=2, seed=1).SerializeToString(),
                                    {"Content-Type": "application/proto"})
    assert status == 200 and headers["Content-Type"] == "application/proto"
    assert pb.NewGameResponse.FromString(body).state.HasField("kuhn_poker")


# --- errors ------------------------------------------------------------------------------------

def test_bad_input_is_invalid_argument_naming_the_field(web):
    status, err = call(web, "NewGame", {"game": "chess", "players": 2})
    assert status == 400 and err["code"] == "invalid_argument" and err["message"].startswith("game: unknown game")
    status, err = call(web, "ViewState", {"state": KUHN, "seat": 5})
    assert status == 400 and err["message"].startswith("seat: 5 is not a seat")
    # Refused by the JSON parser, which names the field.
    status, err = call(web, "NewGame", {"game": "kuhn_poker", "players": "two"})
    assert status == 400 and err["code"] == "invalid_argument" and "players" in err["message"]
    status, err = call(web, "NewGame", {"gam": "kuhn_poker"})
    assert status == 400 and '"gam"' in err["message"]
    status, err = call(web, "NewGame", "{not json")
    assert status == 400 and err["code"] == "invalid_argument"


def test_unknown_methods_streams_and_content_types(web):
    status, err = call(web, "Resign", {})
    assert status == 404 and err["code"] == "unimplemented" and "Recommend" in err["message"]
    status, err = call(web, "StreamRecommend", {})
    assert status == 415 and err["code"] == "unimplemented" and "gRPC-Web" in err["message"]
    status, headers, body = request(web, "/fagin.v1.Fagin/ListGames", b"{}", {"Content-Type": "text/plain"})
    assert status == 415 and json.loads(body)["code"] == "unimplemented"
    assert "application/json" in headers["Accept-Post"]
    status, headers, _ = request(web, "/fagin.v1.Fagin/ListGames", method="GET")
    assert status == 405


def test_deadlines(web):
    # A deadline too short to search at all, and one shorter than the search asked for.
    status, err = call(web, "Recommend", {"state": KUHN, "search": {"timeMs": "5000"}},
                       {"connect-timeout-ms": "1"})
    assert status == 504 and err["code"] == "deadline_exceeded", err
    status, answer = call(web, "Recommend", {"state": KUHN, "search": {"timeMs": "5000", "iterations": "1000000000"}},
                          {"connect-timeout-ms": "600"})
    assert status == 200 and answer["elapsedMs"] < 600 and any("deadline" in n for n in answer["notes"]), answer
    status, err = call(web, "Recommend", {"state": KUHN}, {"connect-timeout-ms": "soon"})
    assert status == 400 and err["message"].startswith("connect-timeout-ms:")


def test_size_limits_are_the_grpc_ports(web):
    limit = TEST_CONFIG["max_message_bytes"]
    # A message over the limit, as binary: refused by the gRPC server's own limit.
    status, _, body = request(web, "/fagin.v1.Fagin/NewGame", pb.NewGameRequest(game="x" * (limit + 10)).SerializeToString(),
                              {"Content-Type": "application/proto"})
    assert status == 429 and json.loads(body)["code"] == "resource_exhausted"
    # A body beyond BODY_FACTOR times the limit is not even read.
    status, _, body = request(web, "/fagin.v1.Fagin/NewGame", b" " * (gateway.BODY_FACTOR * limit + 2048), JSON)
    err = json.loads(body)
    assert status == 429 and err["code"] == "resource_exhausted" and "--max-message-bytes" in err["message"]


# --- authentication ----------------------------------------------------------------------------

def test_bearer_tokens_as_on_the_grpc_port():
    srv = _serve(auth_token=TOKEN)
    try:
        status, err = call(srv, "ListGames", {})
        assert status == 401 and err["code"] == "unauthenticated" and "Bearer" in err["message"]
        status, err = call(srv, "ListGames", {}, {"Authorization": "Bearer wrong-token-wrong-token"})
        assert status == 401 and err["message"] == "authentication failed: the bearer token is not accepted"
        status, answer = call(srv, "ListGames", {}, {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and answer["games"]
        # Health stays open, as on the gRPC port.
        status, _, body = request(srv, "/grpc.health.v1.Health/Check", b"{}", JSON)
        assert status == 200 and json.loads(body) == {"status": "SERVING"}
        status, headers, _ = request(srv, "/fagin.v1.Fagin/ListGames", frame(b""), GRPC_WEB)
        assert headers["grpc-status"] == str(grpc.StatusCode.UNAUTHENTICATED.value[0])
    finally:
        srv.stop()


def test_auth_off_answers_without_a_token(web):
    assert call(web, "ListGames", {})[0] == 200


# --- CORS --------------------------------------------------------------------------------------

def test_cors_preflight_and_headers(web):
    preflight = {"Origin": "https://play.example.com", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type,authorization,connect-timeout-ms"}
    status, headers, _ = request(web, "/fagin.v1.Fagin/Recommend", method="OPTIONS", headers=preflight)
    assert status == 200 and headers["Access-Control-Allow-Origin"] == "https://play.example.com"
    assert {"content-type", "authorization", "connect-timeout-ms"} <= {
        h.strip().lower() for h in headers["Access-Control-Allow-Headers"].split(",")}
    status, headers, _ = request(web, "/fagin.v1.Fagin/Recommend", method="OPTIONS",
                                 headers={**preflight, "Origin": "https://evil.example.com"})
    assert status == 403 and "Access-Control-Allow-Origin" not in headers
    status, headers, _ = request(web, "/fagin.v1.Fagin/ListGames", b"{}", {**JSON, "Origin": "https://play.example.com"})
    assert status == 200 and headers["Access-Control-Allow-Origin"] == "https://play.example.com"
    assert "grpc-status" in headers["Access-Control-Expose-Headers"]


def test_no_cors_origins_means_no_cross_origin_calls():
    srv = _serve()
    try:
        status, headers, _ = request(srv, "/fagin.v1.Fagin/ListGames", method="OPTIONS", headers={
            "Origin": "https://play.example.com", "Access-Control-Request-Method": "POST"})
        assert status == 405 and "Access-Control-Allow-Origin" not in headers
    finally:
        srv.stop()


def test_bad_cors_origins_are_refused():
    with pytest.raises(ValueError, match="--http-cors-origins: 'play.example.com/x'"):
        gateway.parse_origins("https://a.example, play.example.com/x")
    assert gateway.parse_origins(" https://a.example/ ,*") == ["https://a.example", "*"]


# --- gRPC-Web ----------------------------------------------------------------------------------

GRPC_WEB = {"Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1"}


def frame(message: bytes, flags=0):
    return struct.pack(">BI", flags, len(message)) + message


def unframe(body: bytes):
    """[(flags, payload)] of a gRPC-Web response body."""
    frames, at = [], 0
    while at < len(body):
        flags, length = struct.unpack_from(">BI", body, at)
        frames.append((flags, body[at + 5:at + 5 + length]))
        at += 5 + length
    return frames


def trailers(payload: bytes):
    return dict(line.split(": ", 1) for line in payload.decode().split("\r\n") if line)


def test_grpc_web_unary_binary_and_text(web):
    req = pb.NewGameRequest(game="kuhn_poker", players=2, seed=4).SerializeToString()
    status, headers, body = request(web, "/fagin.v1.Fagin/NewGame", frame(req), GRPC_WEB)
    assert status == 200 and headers["Content-Type"] == "application/grpc-web+proto"
    (f1, message), (f2, trailer) = unframe(body)
    assert f1 == 0 and pb.NewGameResponse.FromString(message).state.HasField("kuhn_poker")
    assert f2 == 0x80 and trailers(trailer)["grpc-status"] == "0"
    # Text mode: the same frames, base64.
    status, headers, body = request(web, "/fagin.v1.Fagin/NewGame", base64.b64encode(frame(req)),
                                    {"Content-Type": "application/grpc-web-text"})
    assert status == 200 and headers["Content-Type"] == "application/grpc-web-text+proto"
    (_, text_message), _ = unframe(base64.b64decode(body))
    assert text_message == message


def test_grpc_web_errors_in_trailers(web):
    req = pb.NewGameRequest(game="chess", players=2).SerializeToString()
    status, headers, body = request(web, "/fagin.v1.Fagin/NewGame", frame(req), GRPC_WEB)
    # Trailers-only: the status in the headers, no body.
    assert status == 200 and headers["grpc-status"] == "3" and body == b""
    assert headers["grpc-message"].startswith("game: unknown game")
    status, headers, _ = request(web, "/fagin.v1.Fagin/BatchRecommend", frame(b""), GRPC_WEB)
    assert headers["grpc-status"] == str(grpc.StatusCode.UNIMPLEMENTED.value[0])
    status, headers, _ = request(web, "/fagin.v1.Fagin/ListGames", frame(b"") + frame(b""), GRPC_WEB)
    assert headers["grpc-status"] == "3" and "one message" in headers["grpc-message"]
    status, headers, _ = request(web, "/fagin.v1.Fagin/Recommend",
                                 frame(pb.RecommendRequest(state={"kuhn_poker": {"cards": [2, 0]}}).SerializeToString()),
                                 {**GRPC_WEB, "grpc-timeout": "1u"})
    assert headers["grpc-status"] == str(grpc.StatusCode.DEADLINE_EXCEEDED.value[0])


def test_grpc_web_server_streaming(web):
    state = call(web, "NewGame", {"game": "kids_of_london", "players": 4, "seed": "2"})[1]["state"]
    req = pb.StreamRecommendRequest(
        request=pb.RecommendRequest(state=json_format.ParseDict(state, pb.GameState()),
                                    search=pb.SearchSettings(time_ms=1000, seed=1)),
        report_interval_ms=50)
    # 1 s of search: reports due during a stall go out as one, and 400 ms could leave none before the final.
    status, headers, body = request(web, "/fagin.v1.Fagin/StreamRecommend", frame(req.SerializeToString()), GRPC_WEB)
    assert status == 200
    frames = unframe(body)
    reports = [pb.RecommendProgress.FromString(p) for f, p in frames if f == 0]
    assert len(reports) >= 2 and reports[-1].final and not any(r.final for r in reports[:-1])
    assert reports[-1].recommendation.iterations >= reports[0].recommendation.iterations > 0
    assert frames[-1][0] == 0x80 and trailers(frames[-1][1])["grpc-status"] == "0"


# --- TLS ---------------------------------------------------------------------------------------

def test_tls_and_client_certificates_on_the_http_port(tmp_path):
    pki = Pki(tmp_path)
    srv = _serve(tls_cert=pki.server_cert, tls_key=pki.server_key, tls_client_ca=pki.ca)
    try:
        context = ssl.create_default_context(cafile=pki.ca)
        with pytest.raises((ssl.SSLError, ConnectionError)):
            call(srv, "ListGames", {}, context=context)           # no client certificate
        context.load_cert_chain(pki.client_cert, pki.client_key)
        status, answer = call(srv, "ListGames", {}, context=context)
        assert status == 200 and answer["games"]
        with pytest.raises((ssl.SSLError, ConnectionError, http.client.HTTPException)):
            request(srv, "/fagin.v1.Fagin/ListGames", b"{}", JSON)  # plaintext to a TLS port
    finally:
        srv.stop()


# --- the static directory, settings ------------------------------------------------------------

def test_static_directory_at_the_root(tmp_path):
    (tmp_path / "index.html").write_text("<title>fagin</title>")
    (tmp_path / "app.js").write_text("// app")
    srv = _serve(http_static_dir=str(tmp_path))
    try:
        assert request(srv, "/", method="GET")[2] == b"<title>fagin</title>"
        assert request(srv, "/app.js", method="GET")[2] == b"// app"
        assert call(srv, "ListGames", {})[0] == 200
    finally:
        srv.stop()
    with pytest.raises(ValueError, match="--http-static-dir: no index.html"):
        gateway.HttpGateway(ServerConfig(http_port=8080, http_static_dir=str(tmp_path / "none")))


def test_a_busy_http_port_stops_the_start(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(OSError, match=f"--http-port: cannot listen on 127.0.0.1:{busy.getsockname()[1]}"):
            _serve(http_port=busy.getsockname()[1])


def test_http_port_setting():
    # On by default (before: 0, off, so `make serve` served no page): the page is one URL away.
    assert ServerConfig().http_port == 8080
    with pytest.raises(ValueError, match=r"http_port=50051.*--http-port 0 for none"):
        ServerConfig(http_port=50051)
    assert ServerConfig(http_port=0).http_port == 0
    with pytest.raises(ValueError, match="http_port=5000"):
        ServerConfig(port=5000, http_port=5000)


# --- the command: docs/operating.md's curl example, SIGTERM ------------------------------------------------

def _curl_examples():
    guide = (ROOT / "docs" / "operating.md").read_text()
    section = guide.split("## Browsers and plain HTTP", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [c for c in block.replace("\\\n", " ").splitlines() if c.startswith("curl ")]


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl on this machine")
def test_readme_curl_examples_and_sigterm():
    http_port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "fagin.server", "--port", "0", "--workers", "1", "--grace-seconds", "1",
         "--http-port", str(http_port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        next_line = line_reader(proc.stdout)
        assert next_line().startswith("fagin listening on 127.0.0.1:")
        assert next_line().strip() == f"fagin http listening on http://127.0.0.1:{http_port}"
        assert next_line().startswith(f"the browser page: open http://127.0.0.1:{http_port}/ ")
        examples = _curl_examples()
        assert len(examples) == 2
        answers = []
        for example in examples:
            example = example.replace("localhost:8080", f"127.0.0.1:{http_port}")
            done = subprocess.run(["bash", "-c", example + " --fail-with-body"], capture_output=True,
                                  text=True, timeout=60)
            assert done.returncode == 0, (example, done.stdout, done.stderr)
            answers.append(json.loads(done.stdout))
        assert answers[0]["state"]["kuhnPoker"]["cards"]
        assert answers[1]["action"]["label"] and answers[1]["iterations"] == "2000"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        with pytest.raises(ConnectionRefusedError):
            http.client.HTTPConnection("127.0.0.1", http_port, timeout=5).connect()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


class _LogWatch(logging.Handler):
    """Sets an event when the server logs a line that starts with `prefix`."""

    def __init__(self, prefix):
        super().__init__(logging.DEBUG)
        self.prefix = prefix
        self.started = threading.Event()
        self.lines = []

    def emit(self, record):
        if record.getMessage().startswith(self.prefix):
            self.lines.append(record.getMessage())
            self.started.set()


def test_the_call_log_names_the_http_client(web):
    logger = logging.getLogger("fagin.server")
    watch, level = _LogWatch("ViewState "), logger.level
    logger.addHandler(watch)
    logger.setLevel(logging.INFO)
    try:
        assert call(web, "ViewState", {"state": KUHN, "seat": 0})[0] == 200
        assert watch.started.wait(30)       # written once the call has ended
    finally:
        logger.removeHandler(watch)
        logger.setLevel(level)
    assert watch.lines[0].startswith("ViewState http:127.0.0.1 OK ")


def test_stopping_the_server_drains_an_http_call_in_flight():
    # What SIGTERM runs (Server.stop): the HTTP request under way is answered, not cut.
    logger = logging.getLogger("fagin.server")
    watch, level = _LogWatch("search started"), logger.level
    logger.addHandler(watch)
    logger.setLevel(logging.DEBUG)
    srv = _serve()
    result = {}
    try:
        state = call(srv, "NewGame", {"game": "kids_of_london", "players": 4, "seed": "2"})[1]["state"]

        def long_call():
            # Time or the server's 200,000-iteration cap ends it (an idle machine reaches the cap
            # in under 600 ms): either way it is answered, not cut.
            result["answer"] = call(srv, "Recommend", {"state": state, "search": {"timeMs": "600",
                                                                                    "iterations": "1000000000"}})
        thread = threading.Thread(target=long_call)
        thread.start()
        assert watch.started.wait(30)
    finally:
        # Grace 5 s, far more than the search's 600 ms (1 s left a loaded machine ~0.4 s of stall
        # before the call was cut as if the drain had dropped it).
        srv.stop(grace=5)
        logger.removeHandler(watch)
        logger.setLevel(level)
    thread.join(30)
    status, answer = result["answer"]
    assert status == 200 and int(answer["iterations"]) > 0
    assert answer["stopReason"] in ("STOP_REASON_TIME", "STOP_REASON_ITERATIONS")


# --- metrics, refusals for load, the wire details ----------------------------------------------

def test_http_calls_meet_the_metrics_and_the_admission_limits():
    from .test_metrics import Scrape
    srv = _serve(metrics_port=free_port(), max_streams=1)
    try:
        assert call(srv, "ListGames", {})[0] == 200
        state = call(srv, "NewGame", {"game": "kids_of_london", "players": 4, "seed": "2"})[1]["state"]
        req = pb.StreamRecommendRequest(request=pb.RecommendRequest(
            state=json_format.ParseDict(state, pb.GameState()), search=pb.SearchSettings(time_ms=20_000)),
            report_interval_ms=50)
        with grpc.insecure_channel(srv.target) as channel:
            held = channel.unary_stream("/fagin.v1.Fagin/StreamRecommend",
                                        request_serializer=pb.StreamRecommendRequest.SerializeToString,
                                        response_deserializer=pb.RecommendProgress.FromString)(req, timeout=30)
            next(held)                  # the one stream allowed is open
            status, headers, body = request(srv, "/fagin.v1.Fagin/StreamRecommend",
                                            frame(req.SerializeToString()), GRPC_WEB)
            held.cancel()
        assert headers["grpc-status"] == str(grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]) and body == b""
        assert int(headers["grpc-retry-pushback-ms"]) >= 0
        m = Scrape(srv.server.metrics.port)
        assert m.call("grpc_server_handled_total", "ListGames", grpc_code="OK") == 1
        assert m.call("grpc_server_handled_total", "StreamRecommend", kind="server_stream",
                      grpc_code="RESOURCE_EXHAUSTED") == 1
    finally:
        srv.stop()


def test_connect_errors_carry_the_retry_hint():
    response = gateway.connect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, "queue full",
                                     metadata=(("grpc-retry-pushback-ms", "1500"),))
    assert response.status == 429 and json.loads(response.body) == {"code": "resource_exhausted",
                                                                     "message": "queue full"}
    assert response.headers["Retry-After"] == "2"
    assert response.headers["trailer-grpc-retry-pushback-ms"] == "1500"
    assert gateway.connect_code(grpc.StatusCode.CANCELLED) == "canceled"
    assert {gateway.CONNECT_HTTP_STATUS[c] for c in (grpc.StatusCode.UNAUTHENTICATED,
                                                     grpc.StatusCode.DEADLINE_EXCEEDED)} == {401, 504}


def test_grpc_message_is_percent_encoded():
    assert gateway.percent_encode("seat: 5% é\n") == "seat: 5%25 %C3%A9%0A"
