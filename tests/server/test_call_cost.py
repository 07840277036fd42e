"""What a call costs beyond its search (issue 11, item 13): a small Recommend makes one
trip to a search thread, where its answer is built, and none to the decoding threads; a
search stopped by the server's shutdown never answers as if it had run its budget."""
import threading
import time

import grpc
import pytest

from fagin.clients import FaginClient, recommend_request
from fagin.engines.registry import new_game
from fagin.server import codec
from fagin.server.service import INLINE_PREPARE_BYTES
from fagin.v1 import fagin_pb2 as pb

from .helpers import kol_dict, kol_state, with_


class _Counting:
    """Counts the work items an executor is given (and by which thread they run)."""

    def __init__(self, executor):
        self.executor = executor
        self.names = []

    def submit(self, fn, *args, **kwargs):
        def run():
            self.names.append(threading.current_thread().name)
            return fn(*args, **kwargs)
        return self.executor.submit(run)

    def __getattr__(self, name):
        return getattr(self.executor, name)


@pytest.fixture
def counted(server, monkeypatch):
    service = server.server.service
    decoder, searches = _Counting(service.decoder), _Counting(service.executor)
    monkeypatch.setattr(service, "decoder", decoder)
    monkeypatch.setattr(service, "executor", searches)
    return decoder, searches


def test_a_small_recommend_makes_one_trip_to_a_search_thread(client, counted):
    decoder, searches = counted
    state = codec.encode_state(new_game("gangs_of_kyoto", 5, seed=3))     # the largest opening state
    assert state.ByteSize() <= INLINE_PREPARE_BYTES
    rec = client.recommend(state, 0, iterations=100, seed=1)
    assert rec.iterations == 100
    assert decoder.names == [] and len(searches.names) == 1


def test_a_larger_state_is_still_decoded_off_the_loop(client, counted):
    decoder, searches = counted
    # Too long a hand (refused by the decoder), and larger than what is decoded inline.
    big = kol_state(with_(kol_dict(players=3), ("seats", 0, "hand"), [1] * (INLINE_PREPARE_BYTES + 100)))
    with pytest.raises(grpc.RpcError) as e:
        client._stub.Recommend(pb.RecommendRequest(state=big), timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "hand" in e.value.details()
    assert len(decoder.names) == 1 and searches.names == []


def test_a_search_stopped_by_shutdown_is_unavailable_not_an_answer(server):
    service = server.server.service
    state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
    with FaginClient(server.target, timeout=30) as c:
        call = c._stub.Recommend.future(recommend_request(state, 0, time_ms=4000, iterations=10**9),
                                        timeout=30)
        try:
            end = time.monotonic() + 10
            while not service.running and time.monotonic() < end:
                time.sleep(0.005)       # polled: the server offers no event for "a search began"
            assert service.running
            service.cancel_searches()
            with pytest.raises(grpc.RpcError) as e:
                call.result(timeout=10)
        finally:
            service.stopping = False    # the session's server goes on serving other tests
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "shutting down" in e.value.details()


def _cancel_when_running(service):
    end = time.monotonic() + 10
    while not service.running and time.monotonic() < end:
        time.sleep(0.005)       # polled: the server offers no event for "a search began"
    assert service.running
    service.cancel_searches()


def test_a_stream_stopped_by_shutdown_ends_unavailable_not_with_a_final_report(server):
    service = server.server.service
    state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
    with FaginClient(server.target, timeout=30) as c:
        stream = c._stub.StreamRecommend(pb.StreamRecommendRequest(
            request=recommend_request(state, 0, time_ms=4000, iterations=10**9), report_interval_ms=1000),
            timeout=30)
        try:
            _cancel_when_running(service)
            with pytest.raises(grpc.RpcError) as e:
                for report in stream:
                    assert not report.final, "a search stopped by shutdown was answered as final"
        finally:
            service.stopping = False
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE and "shutting down" in e.value.details()


def test_a_batch_request_stopped_by_shutdown_is_answered_unavailable(server):
    service = server.server.service
    state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
    item = pb.BatchRecommendRequest(request_id="long", request=recommend_request(state, 0, time_ms=4000,
                                                                                 iterations=10**9))
    with FaginClient(server.target, timeout=30) as c:
        answers = c._stub.BatchRecommend(iter([item]), timeout=30)
        try:
            _cancel_when_running(service)
            got = list(answers)
        finally:
            service.stopping = False
    assert len(got) == 1 and got[0].WhichOneof("result") == "error", got
    assert got[0].error.code == grpc.StatusCode.UNAVAILABLE.value[0] and "shutting down" in got[0].error.message
