"""`fagin batch`: a file of positions through several servers (one killed mid-batch) and on a local Ray."""
import json
import os
import random
import signal
import subprocess
import sys

import pytest
from google.protobuf import json_format

from fagin.clients import batch, cli
from fagin.clients.client import message_to_dict
from fagin.engines.registry import new_game
from fagin.server import codec
from fagin.v1 import fagin_pb2 as pb

# Games whose positions are quick to search at small budgets.
GAMES = (("kids_of_london", 4), ("liars_dice", 2), ("leduc_poker", 2), ("kuhn_poker", 2),
         ("gangs_of_kyoto", 3))


def make_positions(count, seed=0, iterations=200):
    """``count`` input lines (dicts): positions reached by random play, the acting seat, a budget.

    Every fifth line gives only state and seat (the searcher's default budget
    or the batch's --iterations apply).
    """
    rng = random.Random(seed)
    lines = []
    while len(lines) < count:
        game, players = GAMES[len(lines) % len(GAMES)]
        state = new_game(game, players, seed=rng.getrandbits(32))
        for _ in range(rng.randrange(6)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.getrandbits(32)))
            else:
                seat = state.pending_seats()[0]
                state.apply(rng.choice(state.legal_actions(seat)))
        while state.is_chance_node():
            state.apply(state.sample_chance(rng.getrandbits(32)))
        if state.is_terminal():
            continue
        line = {"id": f"p{len(lines)}",
                "state": json_format.MessageToDict(codec.encode_state(state), preserving_proto_field_name=True),
                "seat": state.pending_seats()[0]}
        if len(lines) % 5:
            line["search"] = {"iterations": iterations, "seed": len(lines)}
        lines.append(line)
    return lines


def write_jsonl(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def read_answers(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


class ServerProcess:
    """``python -m fagin.server --port 0`` in a subprocess; its call log goes to a file."""

    def __init__(self, log_path, *flags):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", "0", *flags],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("fagin listening on 127.0.0.1:"), line
        self.target = line.split(" on ")[1].strip()

    def answered(self):
        """Recommend calls this server answered OK (its log lines)."""
        return sum(" Recommend " in line and " OK " in line for line in open(self.log_path))

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.proc.stdout.close()
        self.log.close()


@pytest.fixture
def two_servers(tmp_path):
    servers = []
    try:
        for name in ("a", "b"):
            servers.append(ServerProcess(tmp_path / f"{name}.log", "--workers", "2",
                                         "--default-iterations", "100"))
        yield servers
    finally:
        for s in servers:
            s.close()


def test_a_server_killed_mid_batch_loses_no_position(tmp_path, two_servers):
    a, b = two_servers
    lines = make_positions(60)
    lines[7]["seat"] = 9                           # refused: an error line, and the batch goes on
    lines[8]["search"] = {"iterations": "many"}    # not a RecommendRequest at all
    write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    killed_at = []

    def on_answer(pid, summary):
        if summary.answered == 20:
            os.kill(a.proc.pid, signal.SIGKILL)
            a.proc.wait(10)
            killed_at.append(summary.answered)

    summary = batch.run(str(tmp_path / "in.jsonl"), str(out), servers=[a.target, b.target],
                        concurrency=6, timeout=60, progress=False, on_answer=on_answer)
    assert killed_at == [20] and a.proc.returncode == -signal.SIGKILL
    answers = read_answers(out)
    ids = [x["id"] for x in answers]
    assert sorted(ids) == sorted(line["id"] for line in lines)          # each exactly once
    by_id = {x["id"]: x for x in answers}
    assert by_id["p7"]["error"]["code"] == "INVALID_ARGUMENT" and "seat" in by_id["p7"]["error"]["message"]
    assert by_id["p8"]["error"]["code"] == "INVALID_ARGUMENT" and "line 9" in by_id["p8"]["error"]["message"]
    good = [x for x in answers if x["id"] not in ("p7", "p8")]
    assert all("recommendation" in x for x in good)
    assert int(by_id["p1"]["recommendation"]["iterations"]) == 200
    assert int(by_id["p0"]["recommendation"]["iterations"]) == 100       # state + seat only: the default
    assert summary.answered == 60 and summary.errors == 2 and not summary.unanswered
    # Round robin: both servers took positions before the kill; the survivor every one after it
    # (the 40 lines written after the kill, less the two refused positions at most).
    assert a.answered() >= 1 and b.answered() >= 38


def test_resume_skips_answered_ids_and_drops_a_cut_line(tmp_path, server, capsys):
    lines = make_positions(8, seed=3, iterations=50)
    write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    # A previous run answered p0 and p1, and was killed while writing p2's line.
    out.write_text(json.dumps({"id": "p0", "error": {"code": "X", "message": "kept"}}) + "\n"
                   + json.dumps({"id": "p1", "error": {"code": "X", "message": "kept"}}) + "\n"
                   + '{"id": "p2", "recommendation": {"act')
    code = cli.main(["batch", str(tmp_path / "in.jsonl"), str(out), "--server", server.target,
                     "--iterations", "50"])
    err = capsys.readouterr().err
    assert code == 0 and "6 answered (0 errors)" in err and "2 already in" in err
    answers = read_answers(out)
    assert [x["id"] for x in answers[:2]] == ["p0", "p1"] and answers[0]["error"]["message"] == "kept"
    assert sorted(x["id"] for x in answers) == sorted(line["id"] for line in lines)
    # Everything answered: a second run has nothing to do.
    assert cli.main(["batch", str(tmp_path / "in.jsonl"), str(out), "--server", server.target,
                     "--quiet"]) == 0
    assert len(read_answers(out)) == 8


def test_answers_are_spelled_as_the_http_api_spells_them(tmp_path, server, capsys):
    """proto3 JSON's lowerCamelCase by default, as the HTTP API answers (before: the .proto's
    snake_case, so a client reading both met mean_value here and meanValue there);
    --snake-case asks for the .proto's names."""
    write_jsonl(tmp_path / "in.jsonl", make_positions(1, seed=3, iterations=50))
    camel, snake = tmp_path / "camel.jsonl", tmp_path / "snake.jsonl"
    assert cli.main(["batch", str(tmp_path / "in.jsonl"), str(camel), "--server", server.target, "--quiet"]) == 0
    assert cli.main(["batch", str(tmp_path / "in.jsonl"), str(snake), "--server", server.target, "--quiet",
                     "--snake-case"]) == 0
    camel_rec, snake_rec = read_answers(camel)[0]["recommendation"], read_answers(snake)[0]["recommendation"]
    assert "meanValue" in camel_rec["actions"][0] and "mean_value" not in camel_rec["actions"][0]
    assert "elapsedMs" in camel_rec and "elapsed_ms" not in camel_rec
    assert "mean_value" in snake_rec["actions"][0] and "elapsed_ms" in snake_rec


def test_bad_files_are_reported_before_any_search(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": 1, "seat": 0}\n{"id": 1, "seat": 1}\n')
    assert cli.main(["batch", str(src), str(tmp_path / "out.jsonl")]) == 2
    assert "line 2: id 1 is also on line 1" in capsys.readouterr().err
    src.write_text('{"seat": 0}\n')
    assert cli.main(["batch", str(src), str(tmp_path / "out.jsonl")]) == 2
    assert 'line 1: expected a JSON object with an "id"' in capsys.readouterr().err
    src.write_text('{"id": 1, "seat": 0}\n')
    (tmp_path / "other.jsonl").write_text("not ours\n")
    assert cli.main(["batch", str(src), str(tmp_path / "other.jsonl")]) == 2
    assert "other.jsonl line 1: not an answer of fagin batch" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


def test_no_server_reachable_leaves_positions_for_a_rerun(tmp_path, capsys):
    write_jsonl(tmp_path / "in.jsonl", make_positions(2, iterations=10))
    # A port nothing listens on: every attempt is UNAVAILABLE.
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = cli.main(["batch", str(tmp_path / "in.jsonl"), str(tmp_path / "out.jsonl"),
                     "--server", f"127.0.0.1:{port}", "--retries", "1", "--timeout", "5"])
    assert code == 3 and "2 positions left unanswered" in capsys.readouterr().err
    assert (tmp_path / "out.jsonl").read_text() == ""


def test_several_servers_become_one_round_robin_target():
    assert batch.channel_target(["127.0.0.1:1", "127.0.0.2:2"]) == "ipv4:127.0.0.1:1,127.0.0.2:2"
    assert batch.channel_target(["[::1]:1", "[::1]:2"]) == "ipv6:[::1]:1,[::1]:2"
    assert batch.channel_target(["localhost:5"]) == "localhost:5"          # one target passes as is
    assert batch.channel_target(["dns:///fagin:50051"]) == "dns:///fagin:50051"
    with pytest.raises(batch.BatchError, match="stands alone"):
        batch.channel_target(["dns:///fagin:50051", "127.0.0.1:1"])


# The batch's driver in a process of its own: Ray forks its raylet and workers, and a fork
# in a process whose gRPC threads are busy (this one runs the test server) can leave the
# raylet unstarted ("The current node timed out during startup").
RAY_DRIVER = """
import sys, ray
from fagin.clients import cli
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
try:
    code = cli.main(["batch", *sys.argv[1:]])
finally:
    ray.shutdown()
sys.exit(code)
"""


def test_local_ray_runs_the_search_in_its_workers(tmp_path, client):
    lines = make_positions(12, seed=5, iterations=100)
    lines[3]["seat"] = 9
    write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    done = subprocess.run([sys.executable, "-c", RAY_DRIVER, str(tmp_path / "in.jsonl"), str(out),
                           "--ray", "local", "--iterations", "100", "--ray-chunk", "3"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "12 answered (1 errors)" in done.stderr
    answers = {x["id"]: x for x in read_answers(out)}
    assert sorted(answers) == sorted(line["id"] for line in lines)
    assert answers["p3"]["error"]["code"] == "INVALID_ARGUMENT" and "seat" in answers["p3"]["error"]["message"]
    # The same validation and search as a server: the same seeded answer.
    for line in lines:
        if line["id"] == "p3":
            continue
        request = json_format.ParseDict({k: v for k, v in line.items() if k != "id"}, pb.RecommendRequest())
        request.search.iterations = 100
        served = message_to_dict(client._stub.Recommend(request, timeout=60))
        got = answers[line["id"]]["recommendation"]
        for volatile in ("elapsedMs",):
            served.pop(volatile, None)
            got.pop(volatile, None)
        assert got == served, line["id"]


def test_deployment_examples_name_real_settings_and_health_services():
    import dataclasses
    import re
    from pathlib import Path

    import yaml

    from fagin.server.app import SERVICE_NAME
    from fagin.server.config import ServerConfig

    deploy = Path(__file__).resolve().parents[2] / "deploy"
    settings = {"FAGIN_" + f.name.upper() for f in dataclasses.fields(ServerConfig)}
    docs = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all((deploy / "kubernetes.yaml").read_text())}
    pod = docs["Deployment", "fagin"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert set(env) <= settings, set(env) - settings
    port = container["ports"][0]["containerPort"]
    assert port == int(env["FAGIN_PORT"])
    # Ready: the Fagin service; alive: the server as a whole (""), both set by the server.
    assert container["readinessProbe"]["grpc"] == {"port": port, "service": SERVICE_NAME}
    assert container["livenessProbe"]["grpc"] == {"port": port}
    assert pod["terminationGracePeriodSeconds"] > float(env["FAGIN_GRACE_SECONDS"]) + float(env["FAGIN_DRAIN_SECONDS"])
    dockerfile = (deploy / "Dockerfile").read_text()
    assert set(re.findall(r"\bFAGIN_[A-Z_]+", dockerfile)) <= settings


def test_pushback_and_a_search_cut_by_shutdown_are_asked_again(tmp_path):
    """A server's RESOURCE_EXHAUSTED with grpc-retry-pushback-ms (admission control) and a
    recommendation stopped by its shutdown are not answers: the position is sent again."""
    import asyncio
    import threading

    import grpc

    from fagin.v1 import fagin_pb2_grpc

    calls = []

    class Flaky(fagin_pb2_grpc.FaginServicer):
        async def Recommend(self, request, context):
            calls.append(request.search.seed)
            seen = calls.count(request.search.seed)
            if request.search.seed == 1 and seen == 1:
                context.set_trailing_metadata((("grpc-retry-pushback-ms", "10"),))
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "queue full")
            if request.search.seed == 2 and seen == 1:
                return pb.Recommendation(iterations=3, stop_reason=pb.STOP_REASON_CANCELLED)
            if request.search.seed == 3:      # no hint: a real refusal, written as the answer
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "request too large")
            return pb.Recommendation(iterations=100, stop_reason=pb.STOP_REASON_ITERATIONS)

    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stopping, port = [], []

    async def serve():
        server = grpc.aio.server()
        fagin_pb2_grpc.add_FaginServicer_to_server(Flaky(), server)
        port.append(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        stopping.append(asyncio.Event())
        ready.set()
        # Stopped from its own loop (see tests/serving.py).
        await stopping[0].wait()
        await server.stop(None)

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(10)
    write_jsonl(tmp_path / "in.jsonl", [{"id": i, "seat": 0, "search": {"seed": i}} for i in (1, 2, 3)])
    try:
        summary = batch.run(str(tmp_path / "in.jsonl"), str(tmp_path / "out.jsonl"),
                            servers=[f"127.0.0.1:{port[0]}"], timeout=10, progress=False)
    finally:
        loop.call_soon_threadsafe(stopping[0].set)
        thread.join(10)
        assert not thread.is_alive()
        loop.close()
    answers = {x["id"]: x for x in read_answers(tmp_path / "out.jsonl")}
    assert answers[1]["recommendation"]["iterations"] == "100"
    assert answers[2]["recommendation"]["iterations"] == "100"
    assert answers[3]["error"] == {"code": "RESOURCE_EXHAUSTED", "message": "request too large"}
    assert sorted(calls) == [1, 1, 2, 2, 3] and summary.retries == 2
