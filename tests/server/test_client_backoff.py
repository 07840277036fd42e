"""Clients back off by themselves when a server refuses by load:
gRPC's retry policy sends a refused call again after the server's grpc-retry-pushback-ms,
and `fagin loadtest`'s clients wait out a refusal before their next call."""
import asyncio
import json
import threading
import time

import grpc
import pytest

from fagin.clients import FaginClient, cli
from fagin.engines import new_game
from fagin.server import codec
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc

PUSHBACK_MS = 200


class Refusing(fagin_pb2_grpc.FaginServicer):
    """Refuses its first `refuse_first` Recommend calls (or all of them) RESOURCE_EXHAUSTED
    with a hint, answers the rest; answers ListGames and NewGame as the load generator needs."""

    def __init__(self, refuse_first=1, always=False):
        self.calls = []                  # time.monotonic() of each Recommend
        self.refuse_first = refuse_first
        self.always = always

    async def _maybe_refuse(self, context):
        self.calls.append(time.monotonic())
        if self.always or len(self.calls) <= self.refuse_first:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "server busy: queue full",
                                trailing_metadata=(("grpc-retry-pushback-ms", str(PUSHBACK_MS)),))

    async def Recommend(self, request, context):
        await self._maybe_refuse(context)
        return pb.Recommendation(iterations=10, stop_reason=pb.STOP_REASON_ITERATIONS)

    async def ListGames(self, request, context):
        return pb.ListGamesResponse(games=[pb.GameInfo(id="kuhn_poker", name="Kuhn poker",
                                                       min_players=2, max_players=2)])

    async def NewGame(self, request, context):
        state = new_game(request.game, request.players, seed=request.seed)
        return pb.NewGameResponse(state=codec.encode_state(state), status=codec.status_of(state))


@pytest.fixture
def refusing():
    servers = []

    def start(**kw):
        servicer = Refusing(**kw)
        loop = asyncio.new_event_loop()
        ready, stopping, port = threading.Event(), [], []

        async def serve():
            server = grpc.aio.server()
            fagin_pb2_grpc.add_FaginServicer_to_server(servicer, server)
            port.append(server.add_insecure_port("127.0.0.1:0"))
            await server.start()
            stopping.append(asyncio.Event())
            ready.set()
            await stopping[0].wait()       # stopped from its own loop (see tests/serving.py)
            await server.stop(None)

        thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
        thread.start()
        assert ready.wait(10)
        servers.append((loop, stopping, thread))
        return servicer, f"127.0.0.1:{port[0]}"

    yield start
    for loop, stopping, thread in servers:
        loop.call_soon_threadsafe(stopping[0].set)
        thread.join(10)
        loop.close()


def test_the_python_client_retries_a_refusal_after_the_servers_hint(refusing):
    # Before: the first refusal reached the caller as RESOURCE_EXHAUSTED.
    servicer, target = refusing(refuse_first=2)
    state = codec.encode_state(new_game("kuhn_poker", 2, seed=1))
    with FaginClient(target, timeout=10) as client:
        began = time.monotonic()
        rec = client.recommend(state, 0, iterations=10)
    assert rec.iterations == 10
    assert len(servicer.calls) == 3
    gaps = [b - a for a, b in zip(servicer.calls, servicer.calls[1:])]
    assert all(g >= PUSHBACK_MS / 1000 * 0.9 for g in gaps), gaps      # each after the hint
    assert time.monotonic() - began < 5


def test_the_python_client_gives_up_after_a_bounded_number_of_attempts(refusing):
    servicer, target = refusing(always=True)
    state = codec.encode_state(new_game("kuhn_poker", 2, seed=1))
    with FaginClient(target, timeout=10) as client:
        with pytest.raises(grpc.RpcError) as e:
            client.recommend(state, 0, iterations=10)
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert len(servicer.calls) == 5


def test_loadtest_clients_back_off_instead_of_hammering_a_refusing_server(refusing, capsys):
    # 8 clients for 1.5 s against a server that refuses everything with a 200 ms hint. Before:
    # each refusal was followed by the next call at once (thousands of calls).
    servicer, target = refusing(always=True)
    code = cli.main(["--server", target, "loadtest", "--duration", "1.5", "--concurrency", "8",
                     "--games", "kuhn_poker", "--calls", "unary", "--iterations", "10",
                     "--positions", "1", "--max-steps", "0", "--json", "--no-progress", "--drain-s", "10"])
    out, err = capsys.readouterr()
    assert code == 0, err
    r = json.loads(out)
    assert r["errors_by_code"] == {"RESOURCE_EXHAUSTED": r["requests"]}
    assert r["backoffs"] == r["calls"] > 0
    # Each call: 5 attempts 200 ms apart, then a 200-300 ms wait: about 1.1 s a call.
    assert len(servicer.calls) <= 8 * 5 * 3, len(servicer.calls)
    assert r["settings"]["retries"] == 4
