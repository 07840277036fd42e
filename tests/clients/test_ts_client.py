"""The TypeScript client (clients/ts, @fagin/client) from Node against a live server's HTTP
port: its typed calls give the Python client's answers over both transports, the stream ends
with Recommend's answer, a refusal is a ConnectError with the server's code and field-naming
message, the JSON client speaks the server's JSON, a token goes where it may and nowhere
else; and the Node example (clients/node) type-checks against the client's types.

The client is built by ``make ts-client`` (which ``make test`` runs first): its dist/ and
clients/node's node_modules must exist."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf import json_format

from fagin.clients import FaginClient
from fagin.server.config import ServerConfig

from ..server.test_metrics import free_port
from ..serving import TEST_CONFIG, RunningServer

ROOT = Path(__file__).resolve().parents[2]
TS_CLIENT = ROOT / "clients" / "ts"
NODE_EXAMPLE = ROOT / "clients" / "node"
TOKEN = "ts-client-token-0123456789abcdef"

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on this machine")


def built():
    """clients/ts's build, or a failure that says how to make it."""
    entry = TS_CLIENT / "dist" / "index.js"
    if not entry.exists() or not (NODE_EXAMPLE / "node_modules" / "@fagin" / "client").exists():
        pytest.fail("the TypeScript client is not built: run `make ts-client` (make test does)")
    return entry


def run_node(script, *args, timeout=60, **env):
    """Runs an ES module's text in Node with `args`; its stdout's JSON, or the failure."""
    done = subprocess.run(["node", "--input-type=module", "-e", script, "--", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **env}, cwd=TS_CLIENT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def server():
    srv = RunningServer(ServerConfig(**{**TEST_CONFIG, "workers": 1, "http_port": free_port()}))
    srv.url = f"http://127.0.0.1:{srv.server.http.port}"
    yield srv
    srv.stop()


#: Every call a Node program makes through the typed client, reported as JSON.
CALLS = """
import * as fagin from %(entry)s;
const [baseUrl, transport, binary] = process.argv.slice(1);
const client = fagin.createFaginClient(baseUrl, { transport, binary: binary === "binary" });
const out = {};
out.games = (await client.listGames({})).games.map((g) => g.id);
const game = await client.newGame({ game: "leduc_poker", players: 2, seed: 5n });
out.state = fagin.toJson(fagin.GameStateSchema, game.state);
const search = { iterations: 3000n, seed: 9n };
const rec = await client.recommend({ state: game.state, seat: game.status.currentSeat, search });
out.rec = { seat: rec.seat, action: rec.action.id, iterations: typeof rec.iterations + " " + rec.iterations,
            stop: fagin.StopReason[rec.stopReason], visits: rec.actions.map((s) => [s.action.id, Number(s.visits)]) };
try {
  await client.recommend({ state: game.state, seat: 7, search });
  out.error = "answered";
} catch (e) {
  out.error = { connect: e instanceof fagin.ConnectError, code: fagin.Code[e.code], wire: fagin.codeToString(e.code),
                message: e.rawMessage, unsent: e instanceof fagin.InvalidRequestJsonError };
}
out.finals = [];
for await (const p of client.streamRecommend({ request: { state: game.state, seat: 0, search }, reportIntervalMs: 10 })) {
  out.finals.push(p.final);
  if (p.final) out.streamed = { action: p.recommendation.action.id, visits: p.recommendation.actions.map((s) => Number(s.visits)) };
}
console.log(JSON.stringify(out));
"""


@needs_node
@pytest.mark.parametrize("transport,form", [("connect", "json"), ("connect", "binary"), ("grpc-web", "binary")])
def test_typed_calls_give_the_python_clients_answers(server, transport, form):
    out = run_node(CALLS % {"entry": json.dumps(str(built()))}, server.url, transport, form)
    with FaginClient(server.target, timeout=30) as python:
        assert out["games"] == [g.id for g in python.list_games()]
        new = python.new_game("leduc_poker", players=2, seed=5)
        rec = python.recommend(new.state, seat=new.status.current_seat, iterations=3000, seed=9)
    assert out["state"] == json_format.MessageToDict(new.state)
    # int64 as bigint: exact, not a string or a double.
    assert out["rec"] == {"seat": rec.seat, "action": rec.action.id, "iterations": "bigint 3000", "stop": "ITERATIONS",
                          "visits": [[s.action.id, s.visits] for s in rec.actions]}
    # The server's refusal, as Connect-ES reports it: the code, and the message naming the field.
    error = out["error"]
    assert error["connect"] and not error["unsent"]
    assert (error["code"], error["wire"]) == ("InvalidArgument", "invalid_argument")
    assert error["message"].startswith("seat: "), error
    # StreamRecommend (gRPC-Web under either choice): exactly one final report, last, whose
    # answer is Recommend's.
    assert out["finals"][-1] is True and out["finals"].count(True) == 1
    assert out["streamed"] == {"action": rec.action.id, "visits": [s.visits for s in rec.actions]}


JSON_CALLS = """
import * as fagin from %(entry)s;
const client = fagin.createFaginJsonClient(process.argv[1]);
const out = {};
const game = await client.newGame({ game: "kuhn_poker", players: 2, seed: "3" });
out.game = game;
out.rec = await client.recommend({ state: { kuhnPoker: { cards: [2, 0] } }, seat: 0, search: { iterations: "2000", seed: "1" } });
for (const [name, request] of [["unknown", { state: { kuhnPoker: { cards: [2, 0], hand: 1 } } }],
                               ["server", { state: { kuhnPoker: { cards: [2, 2] } }, seat: 0 }]]) {
  try {
    await client.recommend(request);
    out[name] = "answered";
  } catch (e) {
    out[name] = { code: fagin.Code[e.code], message: e.rawMessage, unsent: e instanceof fagin.InvalidRequestJsonError };
  }
}
console.log(JSON.stringify(out));
"""


@needs_node
def test_the_json_client_speaks_the_servers_json(server):
    out = run_node(JSON_CALLS % {"entry": json.dumps(str(built()))}, server.url)
    # The answers are the JSON the server's own JSON form gives (every field present).
    import urllib.request

    def post(method, body):
        request = urllib.request.Request(f"{server.url}/fagin.v1.Fagin/{method}", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())
    assert out["game"] == post("NewGame", {"game": "kuhn_poker", "players": 2, "seed": "3"})
    direct = post("Recommend", {"state": {"kuhnPoker": {"cards": [2, 0]}}, "seat": 0,
                                "search": {"iterations": "2000", "seed": "1"}})
    for answer in (out["rec"], direct):
        answer.pop("elapsedMs")
    assert out["rec"] == direct and out["rec"]["iterations"] == "2000"
    # A field the proto does not have is refused before anything is sent, naming it.
    assert out["unknown"]["unsent"] and out["unknown"]["code"] == "InvalidArgument"
    assert 'key "hand" is unknown' in out["unknown"]["message"] and "KuhnPokerState" in out["unknown"]["message"]
    # A well-formed request the server refuses: its message, with the field's path.
    assert out["server"] == {"code": "InvalidArgument", "unsent": False,
                             "message": out["server"]["message"]} and out["server"]["message"].startswith("state.kuhn_poker.cards")


TOKEN_CALLS = """
import * as fagin from %(entry)s;
const [baseUrl, token] = process.argv.slice(1);
const out = {};
async function attempt(name, make) {
  try {
    out[name] = (await make().listGames({})).games.length;
  } catch (e) {
    out[name] = e instanceof fagin.ConnectError ? fagin.Code[e.code] + ": " + e.rawMessage : "Error: " + e.message;
  }
}
await attempt("none", () => fagin.createFaginClient(baseUrl));
await attempt("given", () => fagin.createFaginClient(baseUrl, { token }));
await attempt("function", () => fagin.createFaginClient(baseUrl, { token: () => token, transport: "grpc-web" }));
await attempt("remote", () => fagin.createFaginClient("http://fagin.invalid:8080", { token }));
await attempt("unreachable", () => fagin.createFaginClient("http://127.0.0.1:9"));
console.log(JSON.stringify(out));
"""


@needs_node
def test_a_token_is_sent_where_it_may_go_and_nowhere_else():
    srv = RunningServer(ServerConfig(**{**TEST_CONFIG, "workers": 1, "http_port": free_port(), "auth_token": TOKEN}))
    try:
        out = run_node(TOKEN_CALLS % {"entry": json.dumps(str(built()))}, f"http://127.0.0.1:{srv.server.http.port}", TOKEN)
    finally:
        srv.stop()
    assert out["none"].startswith("Unauthenticated: authentication required"), out
    assert out["given"] == out["function"] and out["given"] > 0, out
    # Plain HTTP off this machine: refused before any call, naming the option.
    assert out["remote"].startswith("Error: token: a token is sent only over https: or to a loopback address"), out
    # Nothing listening: Unavailable (retryable, as gRPC says), not Unknown.
    assert out["unreachable"].startswith("Unavailable: the server cannot be reached"), out


@needs_node
@pytest.mark.long(5)      # tsc, and four runs of Node (about 5 s of CPU on 2 cores)
def test_the_node_example_type_checks_and_prints_the_python_clients_answer(server):
    built()
    checked = subprocess.run(["node", str(NODE_EXAMPLE / "node_modules" / "typescript" / "bin" / "tsc"), "-p", "."],
                             cwd=NODE_EXAMPLE, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    def example(*args, **env):
        return subprocess.run(["node", "recommend.js", *args], cwd=NODE_EXAMPLE, capture_output=True, text=True,
                              timeout=60, env={**os.environ, **env})
    done = example(server.url)
    assert done.returncode == 0, done.stderr
    streamed = example("--stream", server.url)
    assert streamed.returncode == 0, streamed.stderr
    with FaginClient(server.target, timeout=30) as python:
        state = python.new_game("kids_of_london", players=4, seed=1).state
        for out, iterations in ((done.stdout, 2000), (streamed.stdout, 20_000)):
            rec = python.recommend(state, seat=0, iterations=iterations, seed=7)
            lines = [line for line in out.splitlines() if not line.startswith("progress: ")]
            assert lines[0] == f"recommended for seat 0: {rec.action.label} (action {rec.action.id})"
            assert lines[1].startswith(f"{rec.iterations} iterations, {rec.nodes} nodes, ")
            assert lines[1].endswith(f"stopped by iterations, algorithm {rec.settings.algorithm}")
            rows = [line.split() for line in lines[3:]]
            assert [(int(r[0]), int(r[-3])) for r in rows] == [(s.action.id, s.visits) for s in rec.actions]
    assert all(line.startswith("progress: ") for line in streamed.stdout.splitlines()[:-len(lines)])
    # Errors: the code's name and the server's message; Unavailable exits 3.
    refused = example("http://127.0.0.1:9")
    assert refused.returncode == 3 and refused.stderr.startswith("fagin: UNAVAILABLE: the server cannot be reached")
    remote = example("http://fagin.invalid:8080", FAGIN_AUTH_TOKEN=TOKEN)
    assert remote.returncode == 2 and "sent only over https: or to a loopback address" in remote.stderr
