"""RecommendRequest.ponder_ms: a session's kept tree searched on after its call has answered,
on workers no call is using, yielding at once to any call, within the free tree memory, and
continued by the session's next call (server/pondering.py)."""
import random
import time

import grpc
import pytest

from fagin.engines import new_game
from fagin.server.codec import encode_state
from fagin.v1 import fagin_pb2 as pb

from .test_admission import ServiceServer, serve  # noqa: F401 (fixture)
from .test_sessions import settle


def position(game="oliver_twist", seed=2):
    """A position with a decision pending, its seat."""
    state = settle(new_game(game, 2, seed=seed), random.Random(seed))
    return state, state.current_player()


def ask(stub, state, seat, session="", ponder_ms=0, iterations=200, seed=1, timeout=60):
    return stub.Recommend(pb.RecommendRequest(state=encode_state(state), seat=seat, session=session,
                                              ponder_ms=ponder_ms,
                                              search=pb.SearchSettings(iterations=iterations, seed=seed)),
                          timeout=timeout)


def pondering_of(srv):
    return srv.service.pondering


def wait_for(condition, timeout=20):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "never reached"
        time.sleep(0.01)


def test_the_next_call_continues_a_pondered_tree_with_what_pondering_added(serve):
    srv = serve(workers=2)
    state, seat = position()
    first = ask(srv.stub, state, seat, "g", ponder_ms=400)
    assert first.session.fresh_reason
    ponder = pondering_of(srv)
    wait_for(lambda: ponder.iterations > 0)
    wait_for(lambda: len(ponder) == 0)              # its 400 ms are over
    assert ponder.ended["time"] == 1 and ponder.started == 1
    pondered = ponder.iterations
    # The same position again: the whole tree is the head start, pondering's iterations in it.
    again = ask(srv.stub, state, seat, "g", seed=2)
    assert again.session.continued
    assert again.session.pondered == pondered
    assert again.session.head_start == 200 + pondered
    assert again.iterations == 200


def test_without_pondering_the_tree_waits_as_it_was(serve):
    srv = serve(workers=2)
    state, seat = position()
    ask(srv.stub, state, seat, "g")
    time.sleep(0.2)
    again = ask(srv.stub, state, seat, "g", seed=2)
    assert again.session.continued and again.session.pondered == 0 and again.session.head_start == 200
    assert pondering_of(srv).started == 0


def test_the_sessions_next_call_stops_pondering_and_takes_the_tree(serve):
    srv = serve(workers=2, max_ponder_ms=60_000)
    state, seat = position()
    ask(srv.stub, state, seat, "g", ponder_ms=60_000)
    ponder = pondering_of(srv)
    wait_for(lambda: ponder.iterations > 500)
    began = time.monotonic()
    again = ask(srv.stub, state, seat, "g", seed=2)
    assert time.monotonic() - began < 5          # it did not wait for the 60 s
    assert again.session.continued and again.session.pondered > 500
    assert again.session.head_start == 200 + again.session.pondered
    assert ponder.ended["next call"] == 1
    # The continued call's own tree is kept; it asked for no pondering.
    wait_for(lambda: len(ponder) == 0)


def test_pondering_yields_at_once_to_any_call_and_resumes_after(serve):
    # One worker: a call takes the only one, so pondering must stop for it.
    srv = serve(workers=1, max_ponder_ms=60_000)
    state, seat = position()
    ask(srv.stub, state, seat, "g", ponder_ms=30_000)
    ponder = pondering_of(srv)
    wait_for(lambda: ponder.iterations > 0)
    other, other_seat = position("kids_of_london", 5)
    answer = ask(srv.stub, other, other_seat, iterations=2_000)
    assert answer.iterations == 2_000
    assert ponder.yields >= 1
    at = ponder.iterations
    wait_for(lambda: ponder.iterations > at)         # resumed once the worker was idle
    assert len(ponder) == 1
    ask(srv.stub, state, seat, "g", seed=3)          # ends it
    wait_for(lambda: len(ponder) == 0)


def test_pondering_grows_only_within_free_memory_and_drops_no_other_tree(serve):
    # A budget of 2 MB: the pondering tree soon has no room; the other session's tree stays.
    srv = serve(workers=2, max_tree_memory_mb=2, max_ponder_ms=60_000)
    state, seat = position("london", 3)
    other, other_seat = position("oliver_twist", 4)
    ask(srv.stub, other, other_seat, "keep-me", iterations=100)
    ask(srv.stub, state, seat, "g", ponder_ms=60_000, iterations=100)
    ponder = pondering_of(srv)
    wait_for(lambda: len(ponder) == 0, timeout=60)
    assert ponder.ended["memory"] == 1
    memory = srv.service.scheduler.memory
    assert memory.reserved_bytes <= memory.budget_bytes
    assert srv.service.sessions.dropped["memory"] == 0
    kept = ask(srv.stub, other, other_seat, "keep-me", iterations=100, seed=2)
    assert kept.session.continued


def test_a_dropped_tree_stops_pondering(serve):
    srv = serve(workers=2, max_sessions=1, max_ponder_ms=60_000)
    state, seat = position()
    ask(srv.stub, state, seat, "g", ponder_ms=60_000)
    ponder = pondering_of(srv)
    wait_for(lambda: ponder.iterations > 0)
    other, other_seat = position("kids_of_london", 5)
    ask(srv.stub, other, other_seat, "h")            # the one kept tree's place: "g" is dropped
    wait_for(lambda: len(ponder) == 0)
    assert ponder.ended["dropped"] == 1
    fresh = ask(srv.stub, state, seat, "g", seed=2)
    assert not fresh.session.continued


@pytest.mark.parametrize("fields, message", [
    (dict(ponder_ms=100), "ponder_ms: pondering searches a session's kept tree; give session or new_session too"),
    (dict(ponder_ms=90_000, session="g"), "ponder_ms: at most 60000 ms on this server (--max-ponder-ms), got 90000"),
])
def test_bad_pondering_is_refused_naming_the_field(serve, fields, message):
    srv = serve(max_ponder_ms=60_000)
    state, seat = position()
    with pytest.raises(grpc.RpcError) as e:
        ask(srv.stub, state, seat, **fields)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details() == message


def test_pondering_that_cannot_run_is_noted(serve):
    srv = serve(max_ponder_ms=0)
    state, seat = position()
    answer = ask(srv.stub, state, seat, "g", ponder_ms=100)
    assert any("this server does not ponder (--max-ponder-ms 0)" in n for n in answer.notes)
    srv2 = serve()
    rec = srv2.stub.Recommend(pb.RecommendRequest(
        state=encode_state(state), seat=seat, session="g", ponder_ms=100,
        search=pb.SearchSettings(iterations=100, threads=2)), timeout=60)
    assert any(n.startswith("ponder_ms: this search cannot be kept") for n in rec.notes)
    assert pondering_of(srv2).started == 0
