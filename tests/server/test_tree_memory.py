"""The server's tree memory has one owner (server/tree_memory.py): every byte counted against
max_tree_memory_mb is a reservation it made, and every way a call or a kept tree ends returns
it.  First the owner alone, then through a real server: after each path a call can take
(answered, refused, cancelled, out of time, failed) and each way a kept tree goes (the session
limit, idle expiry, a search needing its memory), what is counted is exactly the kept trees."""
import asyncio
import math
import time

import grpc
import pytest

from fagin.engines import new_game
from fagin.server import answer
from fagin.server.codec import encode_state
from fagin.server.scheduler import Admission, Overloaded
from fagin.server.security import ANONYMOUS
from fagin.server.tree_memory import KEPT, SEARCH, TAKEN, TreeMemory
from fagin.v1 import fagin_pb2 as pb

from .test_admission import ServiceServer

STATE = encode_state(new_game("kids_of_london", players=2, seed=1))


def balanced(memory, kept=()):
    """Whether `memory` counts exactly the reservations in `kept`, as kept trees."""
    kept = list(kept)
    return (memory.reservations == set(kept) and all(r.kind == KEPT for r in kept)
            and memory.reserved_bytes == memory.kept_bytes == sum(r.bytes for r in kept))


# --- the owner alone ---------------------------------------------------------------------------

def test_a_searchs_reservation_grows_holds_and_returns_whole():
    memory = TreeMemory(1000)
    res = memory.for_search()
    assert res.kind == SEARCH and res.bytes == 0 and res in memory.reservations
    memory.hold(res, 100)                   # what its trees hold, counted at once
    memory.hold(res, 50)                    # never lowered by a smaller reading
    assert res.bytes == memory.reserved_bytes == 100
    assert memory.grow(res, 400) and res.bytes == memory.reserved_bytes == 400
    memory.release(res)
    memory.release(res)                     # twice (a call's cleanup may run again) is harmless
    assert res.bytes == 0 and balanced(memory)


def test_a_reservation_the_budget_cannot_hold_is_not_grown_at_all():
    memory = TreeMemory(1000)
    holder, other = memory.for_search(), memory.for_search()
    assert memory.grow(holder, 800)
    assert not memory.fits(other, 300) and not memory.grow(other, 300)
    assert other.bytes == 0 and memory.reserved_bytes == 800
    memory.hold(other, 300)                 # memory already in use is counted whatever the budget
    assert memory.reserved_bytes == 1100
    for res in (holder, other):
        memory.release(res)
    assert balanced(memory)


def test_kept_trees_are_given_up_for_a_search_only_where_that_is_enough():
    memory = TreeMemory(1000)
    dropped = []
    kept = [memory.keep(300), memory.keep(300)]

    def reclaim(nbytes):                    # the session store's: oldest first
        while kept and sum(dropped) < nbytes:
            res = kept.pop(0)
            dropped.append(res.bytes)
            memory.release(res)
    memory.reclaim = reclaim
    search = memory.for_search()
    assert memory.fits(search, 900)
    assert memory.grow(search, 500)         # 100 short: the oldest kept tree goes
    assert dropped == [300] and memory.reserved_bytes == 800 and memory.kept_bytes == 300
    other = memory.for_search()
    assert not memory.grow(other, 600)      # beyond what kept trees hold: none dropped for nothing
    assert dropped == [300] and memory.kept_bytes == 300
    memory.release(search)
    memory.release(other)
    assert balanced(memory, kept)


def test_a_tree_is_not_kept_while_searches_hold_the_memory():
    memory = TreeMemory(1000)
    memory.reclaim = lambda nbytes: pytest.fail("no kept tree is dropped for a tree that cannot be kept")
    search = memory.for_search()
    assert memory.grow(search, 900)
    assert not memory.could_keep(200) and memory.keep(200) is None
    assert memory.reservations == {search} and memory.kept_bytes == 0
    memory.release(search)
    assert balanced(memory)


def test_a_taken_tree_stays_counted_until_released_and_is_not_given_up_meanwhile():
    memory = TreeMemory(1000)
    tree = memory.keep(600)
    memory.take(tree)
    assert tree.kind == TAKEN and memory.reserved_bytes == 600 and memory.kept_bytes == 0
    search = memory.for_search()
    assert not memory.fits(search, 500)     # its bytes are not a kept tree's to give up
    assert memory.free_at(500) == math.inf  # nor a search's that will return them
    memory.release(tree)
    memory.release(search)
    assert balanced(memory)


def test_memory_is_free_when_the_searches_holding_it_may_end():
    memory = TreeMemory(1000)
    now = time.monotonic()
    timed = memory.for_search(release_at=now + 60)
    assert memory.grow(timed, 600)
    assert memory.free_at(300) <= time.monotonic()
    assert memory.free_at(500) == pytest.approx(now + 60)
    anytime = memory.for_search()
    assert memory.grow(anytime, 300)
    assert memory.free_at(400) <= time.monotonic()       # the any-time holder's first
    assert memory.free_at(1001) == math.inf


def test_an_admission_refused_or_left_returns_every_reservation():
    admission = Admission(workers=1, max_queued=1, tree_budget_bytes=1000, slice_ms=25)
    memory = admission.memory
    now = time.monotonic()
    holder = admission.enter(1, 900, ends=now + 60, release_at=now + 60, held=100)
    assert admission.turn_now(holder) and holder.bytes == memory.reserved_bytes == 900
    with pytest.raises(Overloaded):
        admission.enter(1, 500, ends=now + 1)          # the memory is not free before its end
    queued = admission.enter(1, 50, held=20)            # counted at what it holds, not granted
    with pytest.raises(Overloaded):
        admission.enter(1, 10)                          # the queue is full
    assert memory.reserved_bytes == 920
    admission.done_slice(holder, 0.01)
    admission.leave(holder)
    admission.leave(queued)
    assert balanced(memory) and admission.active == 0 and admission.queued == 0


# --- through a server: every path returns what it reserved -------------------------------------

@pytest.fixture(scope="module")
def srv():
    s = ServiceServer(workers=1, max_sessions=3, max_time_ms=10_000)
    yield s
    s.close()


def on_loop(srv, function):
    """`function()` run on the server's event loop, where the memory changes."""
    async def call():
        return function()
    return asyncio.run_coroutine_threadsafe(call(), srv.loop).result(10)


def settled(srv, timeout=10):
    """Waits until no search holds memory, then whether the memory counts the kept trees alone."""
    memory, store = srv.service.scheduler.memory, srv.service.sessions

    def state():
        if srv.admission.active or srv.admission.queued or srv.admission.queued_streams:
            return None
        return balanced(memory, [e.reservation for e in store.kept.values()])
    end = time.monotonic() + timeout
    while (result := on_loop(srv, state)) is None:
        assert time.monotonic() < end, "searches never ended"
        time.sleep(0.01)
    return result


def request(session="", **search):
    search.setdefault("iterations", 200)
    return pb.RecommendRequest(state=STATE, seat=0, session=session, search=pb.SearchSettings(**search))


def streamed(req):
    return pb.StreamRecommendRequest(request=req, report_interval_ms=20)


def test_answered_calls_return_their_reservations(srv):
    srv.stub.Recommend(request(), timeout=30)
    assert settled(srv)
    srv.stub.Recommend(request("answered"), timeout=30)
    srv.stub.Recommend(request("answered"), timeout=30)          # continued, kept again
    assert list(srv.stub.StreamRecommend(streamed(request("answered-stream")), timeout=30))[-1].final
    items = [pb.BatchRecommendRequest(request_id=str(k), request=request(f"batch-{k}")) for k in range(2)]
    assert len(list(srv.stub.BatchRecommend(iter(items), timeout=30))) == 2
    assert settled(srv) and len(srv.service.sessions) == 3       # the limit dropped the oldest


@pytest.mark.parametrize("method", ["Recommend", "StreamRecommend"])
def test_refused_calls_return_their_reservations(srv, monkeypatch, method):
    srv.stub.Recommend(request(f"refused-{method}"), timeout=30)
    scheduler = srv.service.scheduler
    admit = scheduler.admit

    def refuse(job, stream=False):
        ticket = admit(job, stream)          # a reservation made, then the call refused
        scheduler.leave(job, ticket)
        raise Overloaded("server busy: refused by the test; retry later", 100)
    monkeypatch.setattr(scheduler, "admit", refuse)
    with pytest.raises(grpc.RpcError) as e:
        if method == "Recommend":
            srv.stub.Recommend(request(f"refused-{method}"), timeout=30)
        else:
            list(srv.stub.StreamRecommend(streamed(request(f"refused-{method}")), timeout=30))
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    monkeypatch.undo()
    assert settled(srv) and (ANONYMOUS, f"refused-{method}", 0) in srv.service.sessions.kept


def test_cancelled_calls_return_their_reservations(srv):
    long = request("cancelled", iterations=None, time_ms=8000)
    call = srv.stub.Recommend.future(long, timeout=30)
    stream = srv.stub.StreamRecommend(streamed(request("cancelled-stream", iterations=None, time_ms=8000)),
                                      timeout=30)
    assert not next(stream).final
    call.cancel()
    stream.cancel()
    assert settled(srv)


def test_calls_out_of_time_return_their_reservations(srv):
    with pytest.raises(grpc.RpcError) as e:
        # The server's most iterations, of which a 0.5 s deadline leaves time for a fraction.
        srv.stub.Recommend(request("late", iterations=200_000, min_iterations=200_000), timeout=0.5)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    with pytest.raises(grpc.RpcError) as e:
        list(srv.stub.StreamRecommend(streamed(request("late-stream", iterations=None, time_ms=200,
                                                       min_iterations=10**8)), timeout=30))
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert settled(srv)


def test_calls_that_fail_return_their_reservations(srv, monkeypatch):
    def broken(job, reason):
        raise RuntimeError("the answer failed")
    monkeypatch.setattr(answer, "recommendation_bytes", broken)
    with pytest.raises(grpc.RpcError) as e:
        srv.stub.Recommend(request("failed"), timeout=30)
    assert e.value.code() == grpc.StatusCode.INTERNAL
    monkeypatch.undo()
    assert settled(srv)


def test_evicted_trees_return_their_reservations():
    srv = ServiceServer(workers=1, max_sessions=2, session_idle_seconds=2, max_tree_memory_mb=4)
    try:
        store = srv.service.sessions
        for name in ("e1", "e2", "e3"):                            # beyond the limit
            srv.stub.Recommend(request(name), timeout=30)
        assert settled(srv) and store.dropped["limit"] == 1
        # A search needing the memory the kept trees hold drops them: its trees, capped to fit
        # the budget, reach the cap by its iterations.
        srv.stub.Recommend(request(iterations=20_000), timeout=30)
        assert settled(srv) and store.dropped["memory"] >= 1
        srv.stub.Recommend(request("e4"), timeout=30)
        end = time.monotonic() + 30                                 # idle past 2 s
        while len(store) and time.monotonic() < end:
            time.sleep(0.05)
        assert settled(srv) and len(store) == 0 and store.dropped["idle"] >= 1
        assert srv.admission.reserved_bytes == 0
    finally:
        srv.close()
