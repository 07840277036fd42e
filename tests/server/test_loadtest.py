"""`fagin loadtest`: a short run against a spawned server, the loopback guard, the budget rule."""
import json
import os

import pytest

from fagin.clients import cli, loadtest
from fagin.clients.client import is_loopback_target
from fagin.v1 import fagin_pb2 as pb


def test_a_short_mixed_run_against_a_spawned_server_reports_consistent_figures(capsys):
    code = cli.main(["loadtest", "--spawn", "--spawn-args=--workers 2 --log-level WARNING",
                     "--duration", "3", "--concurrency", "8", "--connections", "2",
                     "--games", "kids_of_london:3=2,liars_dice:2", "--calls", "unary=2,stream=1,batch=1",
                     "--iterations", "100,300", "--deadline-ms", "20000", "--batch-size", "3",
                     "--positions", "3", "--max-steps", "6", "--seed", "7", "--json", "--no-progress",
                     "--check"])
    out, err = capsys.readouterr()
    assert code == 0, err
    r = json.loads(out)
    assert r["errors"] == 0 and r["errors_by_code"] == {} and r["failed_calls"] == 0
    assert r["below_budget"]["total"] == 0 and r["empty_answers"] == 0
    kinds = r["by_kind"]
    # Every kind was drawn, and the counts add up per kind and overall.
    assert all(kinds[k]["calls"] > 0 for k in ("unary", "stream", "batch")), kinds
    for k in kinds.values():
        assert k["calls"] == k["ok_calls"] + k["failed_calls"] == k["latency_ms"]["count"]
        assert k["requests"] == k["answers"] + k["errors"]
    assert kinds["batch"]["requests"] == 3 * kinds["batch"]["calls"]
    assert kinds["unary"]["requests"] == kinds["unary"]["calls"]
    assert kinds["stream"]["progress_messages"] >= kinds["stream"]["calls"]
    assert r["calls"] == sum(k["calls"] for k in kinds.values()) == r["latency_ms"]["count"]
    assert r["answers"] == sum(k["answers"] for k in kinds.values()) == r["requests"]
    assert sum(r["answers_by_game"].values()) == r["answers"]
    assert set(r["answers_by_game"]) == {"kids_of_london:3", "liars_dice:2"}
    # Every answer ran one of the two budgets in full.
    assert 100 * r["answers"] <= r["iterations"] <= 300 * r["answers"]
    for lat in [r["latency_ms"]] + [k["latency_ms"] for k in kinds.values()]:
        assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"]
    assert r["wall_s"] >= 3
    assert r["calls_per_s"] == pytest.approx(r["calls"] / r["wall_s"])
    assert r["deadline"]["calls_with_deadline"] == r["calls"]
    assert r["deadline"]["late_calls"] == r["deadline"]["late_answers"] == 0
    srv = r["server"]
    assert srv["rss_before"] > 10 * 2**20 and srv["rss_after"] > 10 * 2**20
    assert srv["rss_peak"] >= max(srv["rss_before"], srv["rss_after"])
    assert srv["cpu_s"] > 0 and srv["exit_code"] == 0
    assert r["generator"]["cpu_s"] > 0


def test_the_table_names_each_call_kind(server, capsys):
    code = cli.main(["--server", server.target, "loadtest", "--server-pid", str(os.getpid()),
                     "--count", "6", "--concurrency", "2", "--games", "liars_dice:2",
                     "--calls", "unary,stream", "--iterations", "50", "--positions", "1",
                     "--max-steps", "2", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "calls 6 (" in out and "errors 0" in out
    rows = {line.split()[0] for line in out.splitlines() if line.split()}
    assert {"unary", "stream", "all"} <= rows and "batch" not in rows
    assert f"server pid {os.getpid()}: RSS" in out


def test_failed_calls_are_counted_per_request_by_status(server, capsys):
    # A deadline within the server's margin (150 ms in tests): the server refuses every request of
    # every kind at once (DEADLINE_EXCEEDED; in a batch, each request), and --check says so.
    code = cli.main(["--server", server.target, "loadtest", "--count", "9", "--concurrency", "3",
                     "--games", "kuhn_poker", "--calls", "unary,stream,batch", "--batch-size", "2",
                     "--deadline-ms", "120", "--positions", "1", "--max-steps", "0", "--seed", "3",
                     "--json", "--no-progress", "--check"])
    out, err = capsys.readouterr()
    assert code == 1, err
    r = json.loads(out)
    kinds = r["by_kind"]
    assert r["answers"] == 0 and r["calls"] == 9
    # A batch whose every request failed is still a call that ended OK.
    assert kinds["unary"]["failed_calls"] == kinds["unary"]["calls"] > 0
    assert kinds["stream"]["failed_calls"] == kinds["stream"]["calls"] > 0
    assert r["ok_calls"] == kinds["batch"]["ok_calls"] and kinds["batch"]["calls"] > 0
    assert r["errors_by_code"] == {"DEADLINE_EXCEEDED": r["requests"]} and r["errors"] == r["requests"]
    for k in kinds.values():
        assert k["requests"] == k["errors"] and k["latency_ms"]["count"] == k["ok_calls"]
    assert kinds["batch"]["requests"] == 2 * kinds["batch"]["calls"]
    assert r["deadline"]["calls_with_deadline"] == 9 and r["deadline"]["late_answers"] == 0
    # The server's message, or gRPC's own "Deadline Exceeded" if a loaded machine stalled the
    # refusal past the 120 ms deadline: either names the deadline.
    assert "deadline" in r["error_examples"]["DEADLINE_EXCEEDED"].lower()


@pytest.mark.parametrize("target", ["10.1.2.3:50051", "192.168.0.5:1", "[2001:db8::1]:50051",
                                    "ipv4:8.8.8.8:443", "ipv4:127.0.0.1:1,10.0.0.1:2"])
def test_a_server_elsewhere_is_refused_without_allow_remote(target, capsys):
    assert not is_loopback_target(target)
    code = cli.main(["--server", target, "loadtest", "--duration", "1"])
    _, err = capsys.readouterr()
    assert code == 2 and "--allow-remote" in err and target in err


@pytest.mark.parametrize("target", ["127.0.0.1:50051", "localhost:50051", "[::1]:50051",
                                    "ipv4:127.0.0.2:1", "unix:/tmp/fagin.sock"])
def test_this_machine_is_loopback(target):
    assert is_loopback_target(target)


def rec(iterations, stop, settings_iterations=None, settings_time_ms=None):
    r = pb.Recommendation(iterations=iterations, stop_reason=stop)
    if settings_iterations is not None:
        r.settings.iterations = settings_iterations
    if settings_time_ms is not None:
        r.settings.time_ms = settings_time_ms
    return r


ITS, TIME, CANCELLED = pb.STOP_REASON_ITERATIONS, pb.STOP_REASON_TIME, pb.STOP_REASON_CANCELLED


@pytest.mark.parametrize("answer, iterations, time_ms, reason", [
    (rec(500, ITS, 500), 500, None, None),
    (rec(0, TIME, 500), 500, None, "empty"),
    (rec(0, TIME, None, 200), None, 200, "empty"),
    (rec(500, CANCELLED, 500), 500, None, "not_finished"),
    (rec(310, TIME, 500), 500, None, "short_iterations"),          # the deadline cut it
    (rec(2000, TIME, 2000), None, None, "short_iterations"),       # server default, cut by time
    (rec(1999, ITS, 2000), None, None, "short_iterations"),
    (rec(800, TIME, None, 200), None, 200, None),
    (rec(800, TIME, None, 150), None, 200, "time_lowered"),        # lowered to meet the deadline
    (rec(500, ITS, 500, 150), 500, 200, None),                     # the iterations came first
    (rec(300, TIME, 500, 150), 500, 200, "time_lowered"),
    (rec(300, TIME, 500, 200), 500, 200, None),
])
def test_below_budget_follows_the_documented_rule(answer, iterations, time_ms, reason):
    assert loadtest.below_budget(answer, iterations, time_ms) == reason


def test_below_budget_counts_a_client_minimum():
    assert loadtest.below_budget(rec(40, ITS, 40), 40, None, min_iterations=50) == "below_min_iterations"
    assert loadtest.below_budget(rec(50, ITS, 50), 50, None, min_iterations=50) is None


def test_percentiles_are_nearest_rank():
    values = list(range(1, 101))
    assert [loadtest.percentile(values, p) for p in (50, 90, 99, 100)] == [50, 90, 99, 100]
    assert loadtest.percentile([7.0], 99) == 7.0 and loadtest.percentile([], 50) is None
