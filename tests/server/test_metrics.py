"""Observability: Prometheus metrics over HTTP and JSON log lines."""
import dataclasses
import io
import json
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from fagin.engines import new_game
from fagin.server import logs
from fagin.server.codec import encode_state
from fagin.server.config import ServerConfig
from fagin.server.rpc import CallLog
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc

from ..serving import TEST_CONFIG, RunningServer

STATE = encode_state(new_game("kids_of_london", players=4, seed=3))
FAGIN = "fagin.v1.Fagin"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def recommend(**search):
    return pb.RecommendRequest(state=STATE, seat=0, search=pb.SearchSettings(**search))


class Scrape:
    """One scrape of /metrics: samples by name and labels."""

    def __init__(self, port):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            assert r.status == 200
            self.content_type = r.headers["Content-Type"]
            text = r.read().decode()
        self.samples = {}
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                self.samples[s.name, tuple(sorted(s.labels.items()))] = s.value

    def __call__(self, name, **labels):
        return self.samples.get((name, tuple(sorted(labels.items()))))

    def call(self, name, method, kind="unary", service=FAGIN, **labels):
        return self(name, grpc_type=kind, grpc_service=service, grpc_method=method, **labels)


def scrape_when(port, ready, seconds=5.0):
    """A scrape where ``ready(scrape)`` holds: the server counts a call once its handler has
    returned, which may be just after the client has its answer."""
    end = time.monotonic() + seconds
    while True:
        m = Scrape(port)
        if ready(m) or time.monotonic() > end:
            return m
        time.sleep(0.02)


@pytest.fixture
def metered():
    srv = RunningServer(ServerConfig(**{**TEST_CONFIG, "metrics_port": free_port(), "max_streams": 1}))
    channel = grpc.insecure_channel(srv.target)
    yield srv, fagin_pb2_grpc.FaginStub(channel)
    channel.close()
    srv.stop()


def test_calls_are_counted_by_method_and_status_and_timed(metered):
    srv, stub = metered
    stub.ListGames(pb.ListGamesRequest(), timeout=10)
    stub.ListGames(pb.ListGamesRequest(), timeout=10)
    with pytest.raises(grpc.RpcError) as e:
        stub.NewGame(pb.NewGameRequest(game="no_such_game", players=2), timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert stub.Recommend(recommend(iterations=300, seed=1), timeout=30).iterations == 300

    m = scrape_when(srv.server.metrics.port, lambda m: m.call("grpc_server_handled_total", "Recommend",
                                                              grpc_code="OK"))
    assert m.content_type.startswith("text/plain")
    assert m.call("grpc_server_started_total", "ListGames") == 2
    assert m.call("grpc_server_handled_total", "ListGames", grpc_code="OK") == 2
    assert m.call("grpc_server_handled_total", "NewGame", grpc_code="INVALID_ARGUMENT") == 1
    assert m.call("grpc_server_handled_total", "NewGame", grpc_code="OK") is None
    assert m.call("grpc_server_handled_total", "Recommend", grpc_code="OK") == 1
    # The latency histogram: one Recommend, in a finite bucket (it took well under 300 s).
    assert m.call("grpc_server_handling_seconds_count", "Recommend") == 1
    assert 0 < m.call("grpc_server_handling_seconds_sum", "Recommend") < 30
    assert m.call("grpc_server_handling_seconds_bucket", "Recommend", le="300.0") == 1
    assert m.call("grpc_server_handling_seconds_bucket", "Recommend", le="0.001") == 0
    assert m.call("grpc_server_handling_seconds_count", "ListGames") == 2
    # Exactly the iterations searched, nothing pending, the configured budget.
    assert m("fagin_search_iterations_total") == 300
    assert m("fagin_search_queue_depth") == 0
    assert m("fagin_stream_searches_queued") == 0
    assert m("fagin_searches_active") == 0
    assert m("fagin_searches_running") == 0
    assert m("fagin_open_streams") == 0
    assert m("fagin_refused_calls_total") == 0
    assert m("fagin_tree_memory_reserved_bytes") == 0
    assert m("fagin_tree_memory_budget_bytes") == srv.server.config.tree_memory_bytes
    assert m("fagin_search_workers") == 2
    assert m("fagin_tree_memory_kept_bytes") >= 0 and m("fagin_tree_memory_kept_chunks") >= 0
    assert m("process_resident_memory_bytes") > 0


def test_gauges_show_an_open_stream_and_a_refused_one(metered):
    srv, stub = metered
    running = stub.StreamRecommend(pb.StreamRecommendRequest(request=recommend(time_ms=4000), report_interval_ms=20),
                                   timeout=30)
    try:
        assert not next(running).final          # the search is under way
        m = Scrape(srv.server.metrics.port)
        assert m("fagin_open_streams") == 1 and m("fagin_open_streams_limit") == 1
        assert m("fagin_searches_active") == 1
        assert m("fagin_tree_memory_reserved_bytes") > 0
        assert m("fagin_search_iterations_total") > 0
        with pytest.raises(grpc.RpcError) as e:
            next(stub.StreamRecommend(pb.StreamRecommendRequest(request=recommend(iterations=10)), timeout=10))
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        m = scrape_when(srv.server.metrics.port, lambda m: m.call(
            "grpc_server_handled_total", "StreamRecommend", "server_stream", grpc_code="RESOURCE_EXHAUSTED"))
        assert m("fagin_refused_calls_total") == 1
        assert m.call("grpc_server_handled_total", "StreamRecommend", "server_stream",
                      grpc_code="RESOURCE_EXHAUSTED") == 1
        assert m.call("grpc_server_started_total", "StreamRecommend", "server_stream") == 2
    finally:
        running.cancel()


def test_a_batch_counts_its_failed_requests_by_status(metered):
    srv, stub = metered
    bad = pb.RecommendRequest(state=STATE, seat=9, search=pb.SearchSettings(iterations=10))
    items = [pb.BatchRecommendRequest(request_id="ok", request=recommend(iterations=50)),
             pb.BatchRecommendRequest(request_id="bad", request=bad)]
    answers = {r.request_id: r for r in stub.BatchRecommend(iter(items), timeout=30)}
    assert answers["bad"].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    m = scrape_when(srv.server.metrics.port, lambda m: m.call("grpc_server_handled_total", "BatchRecommend",
                                                              "bidi_stream", grpc_code="OK"))
    assert m.call("grpc_server_handled_total", "BatchRecommend", "bidi_stream", grpc_code="OK") == 1
    assert m("fagin_batch_request_errors_total", grpc_code="INVALID_ARGUMENT") == 1
    assert m("fagin_search_iterations_total") == 50


def test_searches_run_on_the_event_loop_are_counted(metered, monkeypatch):
    srv, stub = metered
    # Inline up to 20 ms, not 2: the speed is recorded from the first 20-iteration search's wall
    # time (~0.1 ms), which one preemption on a loaded machine made look too slow for the loop.
    scheduler = srv.server.service.scheduler
    monkeypatch.setattr(scheduler, "config", dataclasses.replace(scheduler.config, inline_search_ms=20))
    for seed in range(3):         # the first tells the server how fast the game searches
        assert stub.Recommend(recommend(iterations=20, seed=seed), timeout=30).iterations == 20
    m = scrape_when(srv.server.metrics.port, lambda m: m.call("grpc_server_handled_total", "Recommend",
                                                              grpc_code="OK") == 3)
    assert m("fagin_searches_inline_total") == srv.server.service.scheduler.searches_inline >= 1


def test_health_calls_are_counted_too(metered):
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    srv, _ = metered
    with grpc.insecure_channel(srv.target) as channel:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    m = scrape_when(srv.server.metrics.port, lambda m: m.call("grpc_server_handled_total", "Check",
                                                              service="grpc.health.v1.Health", grpc_code="OK"))
    assert m.call("grpc_server_handled_total", "Check", service="grpc.health.v1.Health", grpc_code="OK") == 1


def test_metrics_are_off_by_default(server):
    assert ServerConfig().metrics_port == 0
    assert server.server.metrics is None and server.server.service is not None


def test_a_metrics_port_that_is_the_grpc_port_is_refused():
    with pytest.raises(ValueError, match="metrics_port=5000"):
        ServerConfig(port=5000, metrics_port=5000)
    with pytest.raises(ValueError, match="log_format='xml'"):
        ServerConfig(log_format="xml")


# ---------------------------------------------------------------- JSON logs

class Lines(logging.Handler):
    """Each record of a logger formatted by the JSON formatter, handed over through a queue."""

    def __init__(self):
        super().__init__()
        self.setFormatter(logs.JsonFormatter())
        self.lines = queue.Queue()

    def emit(self, record):
        self.lines.put(self.format(record))

    def call_line(self, method, timeout=10):
        """The next call line of `method`, parsed (the line is written after the answer has gone)."""
        while True:
            line = json.loads(self.lines.get(timeout=timeout))
            if line.get("method") == method:
                return line


def test_call_log_lines_are_json_objects_with_the_call_fields(metered, caplog):
    srv, stub = metered
    caplog.set_level(logging.INFO, logger="fagin.server")
    lines = Lines()
    logging.getLogger("fagin.server").addHandler(lines)
    try:
        stub.Recommend(recommend(iterations=200, seed=2), timeout=30)
        ok = lines.call_line("Recommend")
        with pytest.raises(grpc.RpcError):
            stub.NewGame(pb.NewGameRequest(game="no_such_game", players=2), timeout=10)
        bad = lines.call_line("NewGame")
    finally:
        logging.getLogger("fagin.server").removeHandler(lines)
    assert ok["level"] == "INFO" and ok["logger"] == "fagin.server"
    assert ok["code"] == "OK" and ok["game"] == "kids_of_london" and ok["iterations"] == 200
    assert isinstance(ok["ms"], float) and ok["ms"] > 0 and ok["peer"].startswith("ipv")
    assert ok["time"].endswith("+00:00") and "Recommend" in ok["message"]
    # A client's name, quoted as every client string a log line shows.
    assert bad["code"] == "INVALID_ARGUMENT" and bad["game"] == "'no_such_game'"


def test_json_lines_carry_exceptions_and_configure_sets_the_format():
    stream = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = logs.configure("INFO", "json", stream)
    try:
        logging.getLogger("fagin.test").info("plain %s", "line")
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            logging.getLogger("fagin.test").exception("failed")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    plain, failed = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert plain["message"] == "plain line" and plain["level"] == "INFO" and "exc" not in plain
    assert failed["level"] == "ERROR" and "RuntimeError: boom" in failed["exc"]
    with pytest.raises(ValueError, match="log_format"):
        logs.configure("INFO", "xml")


def test_the_text_format_is_unchanged(caplog):
    caplog.set_level(logging.INFO, logger="fagin.server")

    class Context:
        def peer(self):
            return "ipv4:127.0.0.1:1"

        def add_done_callback(self, callback):
            self.callback = callback

    context = Context()
    call = CallLog("ListGames", context)
    context.callback(context)
    assert caplog.records[-1].getMessage().startswith("ListGames ipv4:127.0.0.1:1 OK ")
    assert logging.Formatter(logs.TEXT_FORMAT).format(caplog.records[-1]).split(" ", 3)[2] == "INFO"
    assert call.code == grpc.StatusCode.OK


def test_serve_with_json_logs_and_metrics(tmp_path):
    # The command as an operator runs it: every stderr line is a JSON object,
    # /metrics answers, and SIGTERM stops it.
    metrics_port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", "0", "--workers", "1", "--grace-seconds", "1",
         "--metrics-port", str(metrics_port), "--log-format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        listening = proc.stdout.readline()
        assert listening.startswith("fagin listening on 127.0.0.1:"), proc.stderr.read()
        target = listening.split()[-1]
        with grpc.insecure_channel(target) as channel:
            fagin_pb2_grpc.FaginStub(channel).ListGames(pb.ListGamesRequest(), timeout=10)
        m = Scrape(metrics_port)
        assert m.call("grpc_server_handled_total", "ListGames", grpc_code="OK") == 1
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    lines = [json.loads(line) for line in err.splitlines()]
    assert proc.returncode == 0
    assert any(line["message"].startswith("metrics at http://127.0.0.1:") for line in lines)
    call = next(line for line in lines if line.get("method") == "ListGames")
    assert call["code"] == "OK" and call["logger"] == "fagin.server"
    assert lines[-1]["message"] == "fagin stopped"
