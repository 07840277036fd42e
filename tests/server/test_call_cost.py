"""What a call costs beyond its search: a small Recommend makes at most one
trip to a search thread, where its answer is built, and none to the decoding threads; once
its game's speed is known, a search of at most inline_search_ms runs on the loop with no trip
at all, when no other search runs; a search stopped by the server's shutdown never answers as
if it had run its budget."""
import dataclasses
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
    decoder, searches = _Counting(service.decoder), _Counting(service.scheduler.executor)
    monkeypatch.setattr(service, "decoder", decoder)
    monkeypatch.setattr(service.scheduler, "executor", searches)
    return decoder, searches


def _without_inline(scheduler, monkeypatch):
    monkeypatch.setattr(scheduler, "config", dataclasses.replace(scheduler.config, inline_search_ms=0))


def _inline_up_to(scheduler, monkeypatch, ms):
    """A larger inline cap than the default 2 ms: a game's speed is recorded from the wall time of a
    search, and a loaded machine's preemption of a few ms during a sub-millisecond one (or a machine
    a few times slower) would make a small search look too slow to run on the loop."""
    monkeypatch.setattr(scheduler, "config", dataclasses.replace(scheduler.config, inline_search_ms=ms))


def test_a_small_recommend_makes_one_trip_to_a_search_thread(server, client, counted, monkeypatch):
    decoder, searches = counted
    _without_inline(server.server.service.scheduler, monkeypatch)
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
    scheduler = server.server.service.scheduler
    state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
    with FaginClient(server.target, timeout=30) as c:
        call = c._stub.Recommend.future(recommend_request(state, 0, time_ms=4000, iterations=10**9),
                                        timeout=30)
        try:
            end = time.monotonic() + 10
            while not scheduler.running and time.monotonic() < end:
                time.sleep(0.005)       # polled: the server offers no event for "a search began"
            assert scheduler.running
            scheduler.cancel_searches()
            with pytest.raises(grpc.RpcError) as e:
                call.result(timeout=10)
        finally:
            scheduler.stopping = False    # the session's server goes on serving other tests
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "shutting down" in e.value.details()


def _cancel_when_running(scheduler):
    end = time.monotonic() + 10
    while not scheduler.running and time.monotonic() < end:
        time.sleep(0.005)       # polled: the server offers no event for "a search began"
    assert scheduler.running
    scheduler.cancel_searches()


def test_a_stream_stopped_by_shutdown_ends_unavailable_not_with_a_final_report(server):
    scheduler = server.server.service.scheduler
    state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
    with FaginClient(server.target, timeout=30) as c:
        stream = c._stub.StreamRecommend(pb.StreamRecommendRequest(
            request=recommend_request(state, 0, time_ms=4000, iterations=10**9), report_interval_ms=1000),
            timeout=30)
        try:
            _cancel_when_running(scheduler)
            with pytest.raises(grpc.RpcError) as e:
                for report in stream:
                    assert not report.final, "a search stopped by shutdown was answered as final"
        finally:
            scheduler.stopping = False
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE and "shutting down" in e.value.details()


def test_a_batch_request_stopped_by_shutdown_is_answered_unavailable(server):
    scheduler = server.server.service.scheduler
    state = codec.encode_state(new_game("kids_of_london", 4, seed=1))
    item = pb.BatchRecommendRequest(request_id="long", request=recommend_request(state, 0, time_ms=4000,
                                                                                 iterations=10**9))
    with FaginClient(server.target, timeout=30) as c:
        answers = c._stub.BatchRecommend(iter([item]), timeout=30)
        try:
            _cancel_when_running(scheduler)
            got = list(answers)
        finally:
            scheduler.stopping = False
    assert len(got) == 1 and got[0].WhichOneof("result") == "error", got
    assert got[0].error.code == grpc.StatusCode.UNAVAILABLE.value[0] and "shutting down" in got[0].error.message


def _same_answer(a, b):
    """Recommendations equal but for the time the search took."""
    a, b = pb.Recommendation.FromString(a.SerializeToString()), pb.Recommendation.FromString(
        b.SerializeToString())
    a.elapsed_ms = b.elapsed_ms = 0
    return a == b


def _kol_records(scheduler):
    """The speed records of 4-player Kids of London searches (by algorithm and rollout)."""
    return [key for key in scheduler.iteration_ms if key[:2] == ("kids_of_london", 4)]


def test_a_small_search_runs_on_the_loop_once_its_games_speed_is_known(server, client, counted,
                                                                       monkeypatch):
    decoder, searches = counted
    scheduler = server.server.service.scheduler
    monkeypatch.setattr(scheduler, "iteration_ms", {})
    _inline_up_to(scheduler, monkeypatch, 20)
    state = codec.encode_state(new_game("kids_of_london", 4, seed=3))
    # 20 iterations (~0.1 ms), a 200th of inline_search_ms: inline however slow a busy machine makes them.
    first = client.recommend(state, 0, iterations=20, seed=7)
    assert len(searches.names) == 1          # the game's speed was not known yet
    assert _kol_records(scheduler)
    again = client.recommend(state, 0, iterations=20, seed=7)
    assert len(searches.names) == 1, "a search known to take well under inline_search_ms went to a worker"
    assert again.iterations == 20 and _same_answer(first, again)
    # More threads than one are never run on the loop.
    client.recommend(state, 0, iterations=20, seed=7, threads=2)
    assert len(searches.names) == 3


def test_a_search_is_not_run_on_the_loop_while_another_runs(server, client, counted, monkeypatch):
    decoder, searches = counted
    scheduler = server.server.service.scheduler
    state = codec.encode_state(new_game("kids_of_london", 4, seed=3))
    client.recommend(state, 0, iterations=100, seed=7)       # the game's speed is known
    with FaginClient(server.target, timeout=30) as c:
        # 4.5 s (cancelled below): still running when the small search arrives, even after a stall.
        long = c._stub.Recommend.future(recommend_request(state, 0, time_ms=4500, iterations=10**9), timeout=30)
        end = time.monotonic() + 10
        while not scheduler.running and time.monotonic() < end:
            time.sleep(0.005)       # polled: the server offers no event for "a search began"
        assert scheduler.running
        trips = len(searches.names)
        small = client.recommend(state, 0, iterations=100, seed=7)
        assert len(searches.names) > trips, "a small search ran on the loop beside a running search"
        assert small.iterations == 100
        long.cancel()
        end = time.monotonic() + 10
        while scheduler.running and time.monotonic() < end:
            time.sleep(0.005)       # the next tests need an idle server
        assert not scheduler.running


def test_a_search_slower_than_its_games_record_leaves_the_loop_at_the_cap(server, client, counted,
                                                                          monkeypatch):
    decoder, searches = counted
    scheduler = server.server.service.scheduler
    state = codec.encode_state(new_game("kids_of_london", 4, seed=3))
    client.recommend(state, 0, iterations=20, seed=5)       # the game's speed is known
    # A record far too fast: 30,000 iterations (tens of ms) look like a few microseconds.
    monkeypatch.setattr(scheduler, "iteration_ms", {key: 1e-9 for key in _kol_records(scheduler)})
    trips = len(searches.names)
    capped = client.recommend(state, 0, iterations=30_000, seed=5)
    assert len(searches.names) > trips, "the rest of the search past the inline cap did not go to a worker"
    # The record is corrected at once: the next such search goes straight to the workers.
    assert all(scheduler.iteration_ms[key] > 1e-4 for key in _kol_records(scheduler))
    _without_inline(scheduler, monkeypatch)
    plain = client.recommend(state, 0, iterations=30_000, seed=5)
    # Sliced differently, the same search: the same answer.
    assert capped.iterations == plain.iterations == 30_000 and _same_answer(capped, plain)


def _recommendation_message(job, reason):
    """The oracle: the Recommendation built as a protobuf message, field by field."""
    from fagin.server import answer
    result, action = answer._chosen(job, reason)
    rec = pb.Recommendation()
    options = job.state.options()
    rec.action.CopyFrom(codec.encode_action(job.game, action, False, options))
    rec.iterations = result.iterations
    rec.nodes = result.nodes
    rec.elapsed_ms = result.elapsed_ms
    rec.stop_reason = answer.STOP_REASONS[reason]
    rec.seat = job.seat
    rec.settings.CopyFrom(job.settings)
    for s in result.stats:
        rec.actions.add(action=codec.encode_action(job.game, s.action, False, options), visits=s.visits,
                        mean_value=s.mean_value, policy=s.policy)
    rec.notes.extend(answer._notes(job, reason))
    return rec


def test_an_answer_written_as_bytes_is_the_message_protobuf_writes():
    from fagin.server import answer, config as config_mod
    from fagin.server.request import prepare
    config = config_mod.ServerConfig(workers=1)
    cases = [("kids_of_london", 4, {}), ("gangs_of_kyoto", 5, {"temperature": 0.7}),
             ("london", 3, {"algorithm": "ismcts_rm"}), ("leduc_poker", 2, {"algorithm": "oos"}),
             ("kuhn_poker", 2, {"time_ms": 50, "iterations": 64})]
    for game, players, settings in cases:
        settings = {"iterations": 64, "seed": 3, **settings}
        request = recommend_request(codec.encode_state(new_game(game, players, seed=3)), 0, **settings)
        job = prepare(request, config, 60.0)
        job.searcher.run(iterations=64)
        job.notes.append("a note with a non-ASCII character: \u00e9")
        for reason in ("iterations", "time", "cancelled"):
            message = _recommendation_message(job, reason)
            written = answer.recommendation_bytes(job, reason)
            assert pb.Recommendation.FromString(written) == message, (game, reason)
            assert written == message.SerializeToString(deterministic=True), (game, reason)


def test_small_searches_arriving_together_go_to_the_workers(server, counted, monkeypatch):
    # The loop runs a small search only if it has idled since the last one it ran: a batch's
    # searches (about half a millisecond each), all ready at once, must not run one after
    # another on the loop while the workers wait.  (Before: all 40 ran on the loop; now most
    # go to the workers, and the few that arrive while the loop idles run on it.)
    decoder, searches = counted
    scheduler = server.server.service.scheduler
    # The speed is learned afresh from this test's own search: the shared server's records of
    # the same game and settings come from other tests' searches, and one of them slowed by a
    # loaded machine made the speed look too slow for the loop before this test sent anything.
    monkeypatch.setattr(scheduler, "iteration_ms", {})
    # Each 200-iteration item (about 1 ms) must be small enough for the loop however slow or
    # loaded the machine: with the default 2 ms cap, a machine 2x slower was not.
    _inline_up_to(scheduler, monkeypatch, 20)
    state = codec.encode_state(new_game("kids_of_london", 4, seed=3))
    items = [pb.BatchRecommendRequest(request_id=str(i), request=recommend_request(state, 0, iterations=200,
                                                                                   seed=i))
             for i in range(40)]
    with FaginClient(server.target, timeout=60) as c:
        c.recommend(state, 0, iterations=200, seed=1)         # the game's speed is known
        assert all(scheduler.iteration_ms[key] * 200 < scheduler.config.inline_search_ms
                   for key in _kol_records(scheduler))
        trips = len(searches.names)
        answers = list(c._stub.BatchRecommend(iter(items), timeout=60))
    assert len(answers) == 40 and all(a.recommendation.iterations == 200 for a in answers)
    assert len(searches.names) - trips >= 20, "a batch's small searches ran one by one on the event loop"
