"""SIGTERM with searches running: health goes NOT_SERVING, accepted calls drain for the
grace period, then the running searches are cancelled and the process exits promptly."""
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from fagin.clients import recommend_request
from fagin.engines.registry import new_game
from fagin.server import codec
from fagin.v1 import fagin_pb2, fagin_pb2_grpc

# Room for the 300 ms call below to finish inside the grace period on a stalled machine.
GRACE_S = 3.0


def _lines(stream, into):
    for line in stream:
        into.put(line)
    into.put(None)


def _serve(*flags, stderr_lines=True):
    """A server process on a free gRPC port and no HTTP port (the default 8080 would be shared
    by the test workers), with queues of its output lines: (process, stdout, stderr); stderr is
    drained unread, as None, where the test does not read it."""
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", "0", *flags],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = queue.Queue(), (queue.Queue() if stderr_lines else None)
    threading.Thread(target=_lines, args=(proc.stdout, out), daemon=True).start()
    if stderr_lines:
        threading.Thread(target=_lines, args=(proc.stderr, err), daemon=True).start()
    else:
        threading.Thread(target=proc.stderr.read, daemon=True).start()
    return proc, out, err


def _wait_for(lines, pattern, timeout=30):
    """The first line matching `pattern` (the server's log is read as it is written)."""
    end = time.monotonic() + timeout
    while True:
        line = lines.get(timeout=max(0.01, end - time.monotonic()))
        assert line is not None, f"the server ended before logging {pattern!r}"
        m = re.search(pattern, line)
        if m:
            return m


def _end(proc, channel=None):
    """Closes the test's channel, and kills the server if it is still running."""
    if channel is not None:
        channel.close()
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _started(stub, err, state, time_ms=30_000):
    """A Recommend call on `time_ms` alone, once the server has logged its search started."""
    call = stub.Recommend.future(recommend_request(state, 0, time_ms=time_ms, iterations=10**9), timeout=60)
    _wait_for(err, "search started")
    return call


def _streaming(stub, state):
    """A StreamRecommend call of 30 s, once its first report (not the final one) has come."""
    stream = stub.StreamRecommend(fagin_pb2.StreamRecommendRequest(
        request=recommend_request(state, 0, time_ms=30_000, iterations=10**9), report_interval_ms=100),
        timeout=60)
    assert not next(stream).final           # under way
    return stream


def test_sigterm_drains_then_cancels_running_searches_and_exits():
    proc, out, err = _serve("--grace-seconds", str(GRACE_S), "--workers", "2", "--log-level", "DEBUG")
    channel = None
    try:
        port = _wait_for(out, r"fagin listening on [^:]+:(\d+)").group(1)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = fagin_pb2_grpc.FaginStub(channel)
        health = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=""))
        assert next(health).status == health_pb2.HealthCheckResponse.SERVING

        state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
        long = _started(stub, err, state)
        short = _started(stub, err, state, time_ms=300)
        stream = _streaming(stub, state)

        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert next(health).status == health_pb2.HealthCheckResponse.NOT_SERVING
        # Accepted work shorter than the grace period finishes normally.
        assert short.result(timeout=10).iterations > 0
        # Before the fix the process ran on to the end of the 30 s search.
        code = proc.wait(timeout=10)
        exit_s = time.monotonic() - sent
        assert code == 0
        assert exit_s < GRACE_S + 3, f"exited {exit_s:.1f} s after SIGTERM"
        try:
            long.result(timeout=5)
            raise AssertionError("a search cut short by shutdown answered as if it had finished")
        except grpc.RpcError as e:
            assert e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED), e
        # A stream cut short by the shutdown ends the same way: never with a final report
        # (an answer) of a search the server stopped.
        try:
            for report in stream:
                assert not report.final, "a stream cut short by shutdown ended with a final report"
            raise AssertionError("a stream cut short by shutdown ended OK")
        except grpc.RpcError as e:
            assert e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED), e
    finally:
        _end(proc, channel)


# ---------------------------------------------------------------- draining

# Long enough that the checks below leave a loaded machine a second or more of slack
# (health seen NOT_SERVING, calls made during the drain) and still tell a drain from none.
DRAIN_S = 3.0


def test_sigterm_reports_not_serving_and_keeps_serving_for_the_drain_period():
    """A client polls health and calls in a loop, each call on a fresh connection as a load
    balancer's new clients would.  After SIGTERM health is NOT_SERVING at once, every call
    made during the drain is answered, and then the process stops accepting and exits.
    (Before: connections were refused from the first ~20 ms after SIGTERM.)"""
    proc, out, _ = _serve("--grace-seconds", str(GRACE_S), "--drain-seconds", str(DRAIN_S), "--workers", "1",
                          stderr_lines=False)
    try:
        target = "127.0.0.1:" + _wait_for(out, r"fagin listening on [^:]+:(\d+)").group(1)
        state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
        request = recommend_request(state, 0, iterations=50)
        health_request = health_pb2.HealthCheckRequest(service="fagin.v1.Fagin")
        with grpc.insecure_channel(target) as probe:
            health = health_pb2_grpc.HealthStub(probe)
            assert health.Check(health_request, timeout=5).status == health_pb2.HealthCheckResponse.SERVING
            calls = []          # (seconds after SIGTERM, ok)
            not_serving_at = None
            sent = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            while proc.poll() is None and time.monotonic() - sent < DRAIN_S + GRACE_S + 10:
                now = time.monotonic() - sent
                if not_serving_at is None:
                    try:
                        if health.Check(health_request, timeout=1).status == \
                                health_pb2.HealthCheckResponse.NOT_SERVING:
                            not_serving_at = now
                    except grpc.RpcError:
                        pass
                with grpc.insecure_channel(target) as fresh:
                    try:
                        fagin_pb2_grpc.FaginStub(fresh).Recommend(request, timeout=2)
                        calls.append((now, True))
                    except grpc.RpcError:
                        calls.append((now, False))
                time.sleep(0.02)
            exit_s = time.monotonic() - sent
        assert proc.wait(timeout=10) == 0
        assert not_serving_at is not None and not_serving_at < DRAIN_S / 2
        during = [ok for at, ok in calls if at < DRAIN_S - 1.0]
        assert len(during) >= 5 and all(during), calls
        assert not any(ok for at, ok in calls if at > DRAIN_S + GRACE_S + 1), "served after the drain"
        assert DRAIN_S <= exit_s < DRAIN_S + GRACE_S + 3, f"exited {exit_s:.1f} s after SIGTERM"
    finally:
        _end(proc)


# ------------------------------------------------------------------ the log after the grace

@pytest.mark.long(4)
def test_calls_cut_by_the_shutdown_are_logged_as_their_clients_see_them():
    """Calls still running when the grace period ends reach their clients as UNAVAILABLE; their
    log lines said CANCELLED (as if the clients had cancelled), so a log could not tell a
    shutdown from impatient clients.  A call its client cancels is still logged CANCELLED."""
    proc, out, err = _serve("--grace-seconds", "1", "--workers", "2", "--log-level", "DEBUG")
    channel = None
    try:
        port = _wait_for(out, r"fagin listening on [^:]+:(\d+)").group(1)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = fagin_pb2_grpc.FaginStub(channel)
        state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
        cancelled = _started(stub, err, state)
        cancelled.cancel()
        assert _wait_for(err, r"INFO fagin\.server: Recommend \S+ ([A-Z_]+) ").group(1) == "CANCELLED"
        cut = _started(stub, err, state)
        stream = _streaming(stub, state)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        with pytest.raises(grpc.RpcError) as unary:
            cut.result(timeout=5)
        with pytest.raises(grpc.RpcError) as streamed:
            for _ in stream:
                pass
        assert unary.value.code() == streamed.value.code() == grpc.StatusCode.UNAVAILABLE
        remaining = []
        while True:
            line = err.get(timeout=5)
            if line is None:
                break
            remaining.append(line)
        logged = {m.group(1): m.group(2) for m in (re.search(
            r"INFO fagin\.server: (Recommend|StreamRecommend) \S+ ([A-Z_]+) ", line) for line in remaining) if m}
        assert logged == {"Recommend": "UNAVAILABLE", "StreamRecommend": "UNAVAILABLE"}
    finally:
        _end(proc, channel)
