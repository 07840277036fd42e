"""A huge request neither stalls other clients (decoding runs off the event loop) nor costs
work in proportion to its size (every list is bounded by what its game can hold)."""
import threading
import time

import grpc
import pytest

from fagin.clients import recommend_request
from fagin.engines.registry import GAMES, new_game
from fagin.server import codec
from fagin.server.config import ServerConfig
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc

from ..serving import TEST_CONFIG, RunningServer
from .helpers import kol_dict, kol_state, with_

BIG_CARDS = 3_900_000          # one byte each, packed: a 3.9 MB state


@pytest.fixture(scope="module")
def big_server():
    srv = RunningServer(ServerConfig(**{**TEST_CONFIG, "max_message_bytes": 4 * 1024 * 1024}))
    yield srv
    srv.stop()


def _big_request():
    return pb.LegalActionsRequest(state=kol_state(with_(kol_dict(players=3), ("seats", 0, "hand"),
                                                        [1] * BIG_CARDS)))


def test_oversize_list_is_refused_naming_the_field_and_the_bound(big_server):
    with grpc.insecure_channel(big_server.target) as channel:
        stub = fagin_pb2_grpc.FaginStub(channel)
        request = _big_request()
        assert request.ByteSize() > 3_800_000
        with pytest.raises(grpc.RpcError) as e:
            stub.LegalActions(request, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith(
        f"state.kids_of_london.seats[0].hand: {BIG_CARDS} items, more than this game can ever hold "
        f"({GAMES['kids_of_london'].max_list})")


def test_large_requests_do_not_stall_other_clients(big_server):
    big = _big_request()
    small_state = codec.encode_state(new_game("kids_of_london", 4, seed=3))
    stop = threading.Event()
    refused = []

    def hostile():
        with grpc.insecure_channel(big_server.target) as channel:
            stub = fagin_pb2_grpc.FaginStub(channel)
            while not stop.is_set():
                try:
                    stub.LegalActions(big, timeout=30)
                except grpc.RpcError as e:
                    refused.append(e.code())

    sender = threading.Thread(target=hostile, daemon=True)
    sender.start()
    latencies = []
    try:
        with grpc.insecure_channel(big_server.target) as channel:
            stub = fagin_pb2_grpc.FaginStub(channel)
            stub.LegalActions(pb.LegalActionsRequest(state=small_state), timeout=30)   # connected
            while len(refused) < 2:      # the hostile stream is under way
                stub.ListGames(pb.ListGamesRequest(), timeout=30)
            for i in range(60):
                start = time.perf_counter()
                if i % 4:
                    stub.LegalActions(pb.LegalActionsRequest(state=small_state), timeout=30)
                else:
                    stub.Recommend(recommend_request(small_state, 0, iterations=20), timeout=30)
                latencies.append(time.perf_counter() - start)
    finally:
        stop.set()
        sender.join(60)
    during = len(refused)
    assert set(refused) == {grpc.StatusCode.INVALID_ARGUMENT}
    assert during >= 4, "the large requests did not overlap the small calls"
    latencies.sort()
    p95 = latencies[int(0.95 * len(latencies)) - 1]
    # Before the fix each large request held the event loop for about a second.
    assert p95 < 0.1, f"small calls' p95 {p95 * 1000:.0f} ms while large requests arrive"
