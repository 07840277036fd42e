"""RecommendRequest.session (a seat's search tree kept between its calls) and
SearchSettings.stop_when_decided, through a real server; the kept trees' memory in the
admission's budget."""
import asyncio
import random
import time

import grpc
import pytest

from fagin.engines import new_game
from fagin.server import request as request_mod
from fagin.server.codec import encode_state
from fagin.server.config import ServerConfig
from fagin.server.scheduler import Admission, Overloaded
from fagin.server.security import ANONYMOUS
from fagin.server.sessions import SessionStore
from fagin.server.tree_memory import TreeMemory
from fagin.v1 import fagin_pb2 as pb

from ..serving import TEST_CONFIG
from .test_admission import ServiceServer


def settle(state, rng):
    while state.is_chance_node() and not state.is_terminal():
        state.apply(state.sample_chance(rng.getrandbits(63)))
    return state


def ask(stub, state, seat, session="", **search):
    search.setdefault("iterations", 120)
    return stub.Recommend(pb.RecommendRequest(state=encode_state(state), seat=seat, session=session,
                                              search=pb.SearchSettings(**search)), timeout=60)


def same_report(a, b):
    """Two sessions' reports alike but for the sessions' names."""
    return (a.continued, a.head_start, a.fresh_reason) == (b.continued, b.head_start, b.fresh_reason)


def visits(rec):
    return sum(s.visits for s in rec.actions)


def turn_of_two(stub, seed=1):
    """A London 2-player position whose seat, after the server's recommended move, decides
    again with nothing drawn in between: (position, seat, the position after the move).
    The move is that of a search of the default budget seeded `seed`: a session's first call
    of those settings searches the same tree, which has reached the next decision."""
    rng = random.Random(seed)
    state = settle(new_game("london", 2, seed=seed), rng)
    for _ in range(60):
        seat = state.current_player()
        rec = ask(stub, state, seat, seed=seed)
        after = state.clone()
        after.apply(rec.action.id)
        if not after.is_chance_node() and not after.is_terminal() and after.current_player() == seat:
            return state, seat, after
        state = settle(after, rng)
    raise AssertionError("no turn of two decisions found")


@pytest.fixture(scope="module")
def srv():
    with ServiceServer() as s:
        yield s


def test_a_session_continues_its_tree_with_a_head_start(srv):
    state, seat, after = turn_of_two(srv.stub)
    first = ask(srv.stub, state, seat, "game-1", seed=1)
    assert first.HasField("session") and not first.session.continued
    assert first.session.fresh_reason == "no tree kept for this session and seat"
    second = ask(srv.stub, after, seat, "game-1", seed=4)
    assert second.session.continued and second.session.head_start > 0
    assert second.iterations == 120 and second.stop_reason == pb.STOP_REASON_ITERATIONS
    assert visits(second) == second.session.head_start + 120
    # Without a session: no report, and a fresh tree of the budget alone.
    plain = ask(srv.stub, after, seat, seed=4)
    assert not plain.HasField("session") and visits(plain) == 120


def test_the_same_sequence_of_calls_gives_the_same_answers(srv):
    state, seat, after = turn_of_two(srv.stub, seed=2)
    runs = []
    for session in ("seq-a", "seq-b"):
        runs.append([ask(srv.stub, s, seat, session, seed=k) for k, s in ((2, state), (6, after))])
    for a, b in zip(*runs):
        assert a.actions == b.actions and same_report(a.session, b.session)


def test_what_the_seat_cannot_see_changes_no_answer_of_a_session(srv):
    """Hidden information: the kept tree is found by the seat's information set, and grew
    from what the seat could see; twins that differ in the other hand and the deck's order,
    sent as the same sequence of calls, get the same answers."""
    state, seat, after = turn_of_two(srv.stub, seed=3)
    move = next(a for a in state.legal_actions(seat) if _same_seat_after(state, seat, a, after))
    twin = state.determinize(seat, 12345)
    assert twin.describe() != state.describe() and twin.view(seat) == state.view(seat)
    twin_after = twin.clone()
    twin_after.apply(move)
    answers = []
    for session, (here, there) in (("world", (state, after)), ("twin", (twin, twin_after))):
        answers.append([ask(srv.stub, here, seat, session, seed=3), ask(srv.stub, there, seat, session, seed=9)])
    for a, b in zip(*answers):
        assert a.actions == b.actions and a.action.id == b.action.id and same_report(a.session, b.session)
    assert answers[0][1].session.continued and answers[0][1].session.head_start > 0


def _same_seat_after(state, seat, action, after):
    s = state.clone()
    s.apply(action)
    return s.describe() == after.describe()


@pytest.mark.parametrize("change, reason", [
    ({"exploration": 1.5}, "exploration"),
    ({"rollout": "random"}, "rollout"),
])
def test_settings_that_differ_start_a_fresh_tree(srv, change, reason):
    state, seat, after = turn_of_two(srv.stub, seed=1)
    ask(srv.stub, state, seat, f"differ-{reason}", seed=1)
    rec = ask(srv.stub, after, seat, f"differ-{reason}", seed=1, **change)
    assert not rec.session.continued
    assert rec.session.fresh_reason == f"the search settings differ from the kept tree's: {reason}"
    assert visits(rec) == 120
    # ... and the fresh tree is the one kept now: the same settings continue it.
    again = ask(srv.stub, after, seat, f"differ-{reason}", seed=1, **change)
    assert again.session.continued


def test_another_seat_or_game_starts_fresh(srv):
    kids = new_game("kids_of_london", 2, seed=1)          # both seats choose at once
    ask(srv.stub, kids, 0, "seats")
    assert ask(srv.stub, kids, 1, "seats").session.fresh_reason == "no tree kept for this session and seat"
    assert ask(srv.stub, kids, 0, "seats").session.continued      # seat 0's tree is its own
    london = settle(new_game("london", 2, seed=1), random.Random(1))
    seat = london.current_player()
    ask(srv.stub, london, seat, "games")
    assert ask(srv.stub, kids, seat, "games").session.fresh_reason == \
        "the kept tree is of another game or player count"
    # Another London game: the kept tree never reached its positions.
    other = next(g for g in (settle(new_game("london", 2, seed=k), random.Random(k)) for k in range(2, 40))
                 if g.current_player() == seat)
    ask(srv.stub, london, seat, "elsewhere")
    assert ask(srv.stub, other, seat, "elsewhere").session.fresh_reason == \
        "the kept tree never reached this position"


def test_a_game_keyed_by_what_it_shows_continues_across_the_other_seats_turns(srv):
    """Oliver Twist keys a position by what it shows: a seat's kept tree is found again after
    the other seat has moved, not only within its own turn."""
    rng = random.Random(4)
    state = settle(new_game("oliver_twist", 2, seed=4), rng)
    across = turns = 0
    last = None
    for k in range(40):
        seat = state.current_player()
        rec = ask(srv.stub, state, seat, "twist", iterations=300, seed=k)
        if last is not None and last != seat and k > 1:
            turns += 1
            across += rec.session.continued
        last = seat
        state.apply(rec.action.id)
        settle(state, rng)
        if state.is_terminal():
            break
    assert turns >= 3 and across >= 1, (turns, across)


def test_a_simultaneous_phase_keeps_each_seats_tree(srv):
    """Goofspiel's bids are simultaneous: a seat's kept root, rebuilt from its view to be played
    forward, had the phase's first pending seat to act, not the seat (the second seat's view
    does not tell that the first has bid), and the first seat's bids were tried as the
    second's (an INTERNAL error, "action 7 is not legal here").  Each seat of a whole game asks
    with its session in turn; the game ends with no error and trees continued."""
    rng = random.Random(3)
    state = settle(new_game("goofspiel", 2, seed=3), rng)
    continued = asked = 0
    while not state.is_terminal():
        seat = state.current_player()
        rec = ask(srv.stub, state, seat, f"bids-{seat}", iterations=200, seed=asked)
        asked += 1
        continued += rec.session.continued
        state.apply(rec.action.id)
        settle(state, rng)
    assert asked >= 20 and continued >= 1, (asked, continued)


def test_searches_that_cannot_be_kept_run_without_the_session_and_say_so(srv):
    state = settle(new_game("london", 2, seed=1), random.Random(1))
    seat = state.current_player()
    for search, why in (({"threads": 2}, "2 threads search 2 trees"),
                        ({"algorithm": "ismcts_rm"}, "algorithm ismcts_rm")):
        rec = ask(srv.stub, state, seat, "unkept", **search)
        assert not rec.session.continued and why in rec.session.fresh_reason
        assert any(n.startswith("session: this search cannot be kept") for n in rec.notes)
    rec = srv.stub.Recommend(pb.RecommendRequest(state=encode_state(state), seat=seat, session="unkept",
                                                 search=pb.SearchSettings(iterations=50),
                                                 analysis=pb.AnalysisSettings()), timeout=60)
    assert "analysis" in rec.session.fresh_reason and rec.root.visits > 0
    assert (ANONYMOUS, "unkept", seat) not in srv.service.sessions.kept


@pytest.mark.parametrize("session, message", [
    ("x" * 129, "session: at most 128 characters, got 129"),
    ("game\n1", "session: printable ASCII characters only"),
    ("partie-é", "session: printable ASCII characters only"),
])
def test_bad_session_names_are_refused(srv, session, message):
    state = new_game("kids_of_london", 2, seed=1)
    with pytest.raises(grpc.RpcError) as e:
        ask(srv.stub, state, 0, session)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith(message)
    stream = srv.stub.StreamRecommend(pb.StreamRecommendRequest(request=pb.RecommendRequest(
        state=encode_state(state), seat=0, session=session)), timeout=30)
    with pytest.raises(grpc.RpcError) as e:
        list(stream)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("request." + message)


def test_stream_and_batch_continue_a_session_too(srv):
    state, seat, after = turn_of_two(srv.stub, seed=1)
    req = pb.RecommendRequest(state=encode_state(state), seat=seat, session="streamed",
                              search=pb.SearchSettings(iterations=120, seed=1))
    reports = list(srv.stub.StreamRecommend(pb.StreamRecommendRequest(request=req), timeout=60))
    assert reports[-1].final and not reports[-1].recommendation.session.continued
    req = pb.RecommendRequest(state=encode_state(after), seat=seat, session="streamed",
                              search=pb.SearchSettings(iterations=120))
    [resp] = list(srv.stub.BatchRecommend(iter([pb.BatchRecommendRequest(request_id="b", request=req)]),
                                          timeout=60))
    assert resp.recommendation.session.continued and resp.recommendation.session.head_start > 0


@pytest.mark.parametrize("call", ["Recommend", "StreamRecommend"])
def test_a_call_refused_by_admission_leaves_its_sessions_tree_kept(srv, monkeypatch, call):
    """A call that continued its session's tree and was then refused by admission control
    searched nothing: the tree is kept for the session's next call, on either method.
    (Before: StreamRecommend dropped it, and the retried call searched afresh.)"""
    state, seat = new_game("kids_of_london", 2, seed=1), 0        # keyed by what it shows
    session = f"refused-{call}"
    first = ask(srv.stub, state, seat, session, seed=1)
    store = srv.service.sessions
    tree = store.kept[(ANONYMOUS, session, seat)].search

    def refuse(job, stream=False):
        raise Overloaded("server busy: refused by the test; retry later", 100)
    monkeypatch.setattr(srv.service.scheduler, "admit", refuse)
    req = pb.RecommendRequest(state=encode_state(state), seat=seat, session=session,
                              search=pb.SearchSettings(iterations=120, seed=4))
    with pytest.raises(grpc.RpcError) as e:
        if call == "Recommend":
            srv.stub.Recommend(req, timeout=60)
        else:
            list(srv.stub.StreamRecommend(pb.StreamRecommendRequest(request=req), timeout=60))
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    monkeypatch.undo()
    assert store.kept[(ANONYMOUS, session, seat)].search is tree
    assert srv.admission.kept_bytes == sum(entry.bytes for entry in store.kept.values())
    again = ask(srv.stub, state, seat, session, seed=4)
    assert again.session.continued and again.session.head_start == visits(first)


# --- bounds: the session limit, idle expiry, memory --------------------------------------------

def test_the_least_recently_used_tree_is_dropped_beyond_the_limit():
    with ServiceServer(max_sessions=2) as srv:
        state = new_game("kids_of_london", 2, seed=1)
        for name in ("s1", "s2", "s3"):
            ask(srv.stub, state, 0, name, iterations=50)
        store = srv.service.sessions
        assert [k[1] for k in store.kept] == ["s2", "s3"] and store.dropped["limit"] == 1
        assert ask(srv.stub, state, 0, "s1", iterations=50).session.fresh_reason == \
            "no tree kept for this session and seat"
        assert ask(srv.stub, state, 0, "s3", iterations=50).session.continued
        assert srv.admission.kept_bytes == sum(e.bytes for e in store.kept.values()) > 0
        assert srv.admission.reserved_bytes == srv.admission.kept_bytes      # no search under way


def test_an_idle_tree_is_dropped_without_a_call():
    # Idle for 3 s: long enough that a loaded machine cannot expire the tree before the
    # first check, short enough to wait for.
    with ServiceServer(session_idle_seconds=3) as srv:
        state = new_game("kids_of_london", 2, seed=1)
        ask(srv.stub, state, 0, "idle", iterations=50)
        assert len(srv.service.sessions) == 1 and srv.admission.kept_bytes > 0
        end = time.monotonic() + 30
        while len(srv.service.sessions) and time.monotonic() < end:
            time.sleep(0.05)
        assert len(srv.service.sessions) == 0 and srv.admission.kept_bytes == 0
        assert srv.admission.reserved_bytes == 0 and srv.service.sessions.dropped["idle"] == 1


def test_a_server_without_sessions_keeps_nothing():
    with ServiceServer(max_sessions=0) as srv:
        state = new_game("kids_of_london", 2, seed=1)
        rec = ask(srv.stub, state, 0, "none", iterations=50)
        assert "--max-sessions 0" in rec.session.fresh_reason and len(srv.service.sessions) == 0
        assert any("keeps no trees" in n for n in rec.notes)


def _kept_job(config, store, session, seed, iterations=300, caller=ANONYMOUS):
    """A London search of a session, run and kept as a call of `caller` would leave it."""
    state = settle(new_game("london", 2, seed=seed), random.Random(seed))
    job = request_mod.prepare(pb.RecommendRequest(state=encode_state(state), seat=state.current_player(),
                                                  session=session,
                                                  search=pb.SearchSettings(iterations=iterations)), config)
    asyncio.run(store.attach(job, session, caller))
    job.searcher.parts[0].cap_nodes(iterations + 1)
    job.searcher.run(iterations=iterations)
    store.keep(job)
    return job


def test_kept_trees_count_against_the_tree_memory_and_give_way_to_searches():
    config = ServerConfig(**{**TEST_CONFIG, "max_tree_memory_mb": 4})
    admission = Admission(1, 8, config.tree_memory_bytes, config.slice_ms)
    store = SessionStore(config, admission.memory)
    for k in range(3):
        _kept_job(config, store, f"m{k}", seed=k, iterations=200)
    held = sum(e.bytes for e in store.kept.values())
    assert len(store) == 3 and admission.kept_bytes == admission.reserved_bytes == held > 0
    # A search whose first slice needs memory only the kept trees hold gets it: the least
    # recently used are dropped, no more than it needs.
    need = config.tree_memory_bytes - held + store.kept[(ANONYMOUS, "m0", 0)].bytes + 1
    ticket = admission.enter(1, need)
    assert admission.turn_now(ticket)
    assert (ANONYMOUS, "m0", 0) not in store.kept and store.dropped["memory"] >= 1 and len(store) >= 1
    assert admission.reserved_bytes <= config.tree_memory_bytes
    # While searches hold the memory, a finished session's tree is not kept at all.
    rest = config.tree_memory_bytes - admission.reserved_bytes + admission.kept_bytes
    big = admission.enter(1, rest)
    admission.done_slice(ticket, 0.0)
    assert admission.turn_now(big) and admission.kept_bytes == 0
    _kept_job(config, store, "late", seed=5)
    assert len(store) == 0 and admission.reserved_bytes <= config.tree_memory_bytes
    admission.leave(ticket)
    admission.leave(big)
    assert admission.reserved_bytes == 0


def test_a_tree_that_cannot_be_kept_costs_no_other_its_place():
    """Review finding: at the session limit the least recently used tree was dropped before it
    was known that the new one could be held; with searches holding the memory, both were lost."""
    config = ServerConfig(**{**TEST_CONFIG, "max_tree_memory_mb": 4, "max_sessions": 1})
    admission = Admission(1, 8, config.tree_memory_bytes, config.slice_ms)
    store = SessionStore(config, admission.memory)
    _kept_job(config, store, "a", seed=1, iterations=200)
    kept_a = admission.kept_bytes
    big = admission.enter(1, config.tree_memory_bytes - admission.reserved_bytes)   # all the rest
    assert admission.turn_now(big)
    larger = _kept_job(config, store, "b", seed=2, iterations=3000)
    assert max(larger.searcher.num_nodes * larger.node_bytes, larger.searcher.tree_bytes) > kept_a
    assert list(store.kept) == [(ANONYMOUS, "a", 0)] and store.dropped["limit"] == 0
    admission.leave(big)


def test_a_continued_tree_may_grow_past_its_first_budget():
    config = ServerConfig(**TEST_CONFIG)
    store = SessionStore(config, TreeMemory(config.tree_memory_bytes))
    first = _kept_job(config, store, "grow", seed=1, iterations=200)
    search = first.searcher.parts[0]
    state = first.state
    job = request_mod.prepare(pb.RecommendRequest(state=encode_state(state), seat=first.seat, session="grow",
                                                  search=pb.SearchSettings(iterations=200)), config)
    asyncio.run(store.attach(job, "grow", ANONYMOUS))
    assert job.session_report.continued and job.searcher.parts[0] is search
    assert job.node_cap >= search.num_nodes + 200 and job.base_iterations == 200
    assert job.remaining()[0] == 200


# --- stop_when_decided -------------------------------------------------------------------------

def test_stop_when_decided_answers_the_whole_budgets_move_with_fewer_iterations(srv):
    decided = 0
    for seed in range(8):
        state = settle(new_game("london", 2, seed=seed), random.Random(seed))
        seat = state.current_player()
        whole = ask(srv.stub, state, seat, seed=seed, iterations=400)
        early = ask(srv.stub, state, seat, seed=seed, iterations=400, stop_when_decided=True)
        assert early.action.id == whole.action.id and early.settings.stop_when_decided
        if early.stop_reason == pb.STOP_REASON_DECIDED:
            decided += 1
            assert early.iterations < 400 and visits(early) == early.iterations
        else:
            assert early.stop_reason == pb.STOP_REASON_ITERATIONS and early.actions == whole.actions
    assert decided


def test_stop_when_decided_is_noted_where_it_cannot_apply(srv):
    state = new_game("kids_of_london", 2, seed=1)
    for search, why in (({"time_ms": 20, "iterations": None}, "no iteration budget"),
                        ({"temperature": 1.0}, "drawn at temperature 1"),
                        ({"threads": 2}, "2 threads")):
        search = {k: v for k, v in search.items() if v is not None}
        if "time_ms" in search:
            rec = srv.stub.Recommend(pb.RecommendRequest(state=encode_state(state), seat=0, search=pb.SearchSettings(
                time_ms=20, stop_when_decided=True)), timeout=60)
        else:
            rec = ask(srv.stub, state, 0, stop_when_decided=True, **search)
        assert not rec.settings.stop_when_decided and rec.stop_reason != pb.STOP_REASON_DECIDED
        assert any(n.startswith("search.stop_when_decided: not applied") and why in n for n in rec.notes), rec.notes


def test_a_decided_stop_is_an_answer_whatever_min_iterations_says(srv):
    for seed in range(8):
        state = settle(new_game("london", 2, seed=seed), random.Random(seed))
        rec = ask(srv.stub, state, state.current_player(), seed=seed, iterations=400, min_iterations=400,
                  stop_when_decided=True)
        if rec.stop_reason == pb.STOP_REASON_DECIDED:
            assert rec.iterations < 400
            return
    pytest.fail("no decided stop among the positions")


def test_the_python_client_passes_a_session_and_stop_when_decided(srv):
    from fagin.clients import FaginClient
    state = encode_state(new_game("kids_of_london", 2, seed=1))
    with FaginClient(f"127.0.0.1:{srv.port}", timeout=60) as client:
        first = client.recommend(state, 0, iterations=60, session="client", stop_when_decided=True)
        again = client.recommend(state, 0, iterations=60, session="client", stop_when_decided=True)
    assert first.settings.stop_when_decided and not first.session.continued
    assert again.session.continued and again.session.head_start == visits(first)


def test_playing_the_kept_root_forward_reads_only_what_the_seat_sees():
    """Review finding: the kept root was played forward as sent, hidden part and all, and in
    London a seat's move may take the deck's top card, which only University's owner has
    seen (`deck_top`): twins of one view then continued or not by their hidden cards.  Played
    from the seat's view, twins always agree.  (In this random game of seed 1 the hidden top
    card decided it at several decisions before the fix.)"""
    from fagin.search.ismcts import ISMCTS, SearchSettings
    from fagin.server.sessions import _by_own_move
    rng = random.Random(1)
    state = new_game("london", 2, seed=1)
    checked = 0
    while not state.is_terminal():
        settle(state, rng)
        if state.is_terminal():
            break
        seat = state.current_player()
        seen = state.describe()
        if seen["deck_top"] and seen["uni_owner"] != seat:
            for action in state.legal_actions(seat):
                target = state.clone()
                target.apply(action)
                if target.is_chance_node() or target.is_terminal() or target.current_player() != seat:
                    continue
                found = [_by_own_move(kept, seat, target)
                         for kept in (state, state.determinize(seat, 7), state.determinize(seat, 8))]
                keys = [None if f is None else ISMCTS(f, seat).root_key for f in found]
                assert keys[0] == keys[1] == keys[2]
                checked += 1
        state.apply(rng.choice(state.legal_actions(seat)))
    assert checked >= 5


def test_a_kept_tree_without_room_to_grow_is_not_continued():
    """Review finding: a kept tree at the node cap was continued and ran its budget frozen,
    without a node added or a word said.  It now starts afresh, and says why."""
    with ServiceServer(max_nodes=500) as srv:
        state = settle(new_game("oliver_twist", 2, seed=1), random.Random(1))
        seat = state.current_player()
        first = ask(srv.stub, state, seat, "full", iterations=400, seed=1)
        assert not first.session.continued
        again = ask(srv.stub, state, seat, "full", iterations=400, seed=2)
        assert not again.session.continued
        assert "no room to grow" in again.session.fresh_reason and "500" in again.session.fresh_reason
        assert srv.service.sessions.dropped["not continued"] == 1
        small = ask(srv.stub, state, seat, "full", iterations=50, seed=3)
        assert small.session.continued and visits(small) == small.session.head_start + 50


def test_a_kept_tree_is_counted_at_what_it_holds():
    # Before: at its nodes times its game's bytes a node, a bound for room to grow, which
    # counted kept trees at about 3 times their memory (1,075 MB against 465 MB of RSS) and
    # gave up the cache, and refused searches, for memory that was free.
    config = ServerConfig(**TEST_CONFIG)
    store = SessionStore(config, TreeMemory(config.tree_memory_bytes))
    job = _kept_job(config, store, "held", seed=3, iterations=5000)
    entry = store.kept[(ANONYMOUS, "held", job.seat)]
    assert entry.bytes == entry.search.tree_bytes == store.memory.kept_bytes


@pytest.mark.parametrize("game_id", ["london", "gangs_of_kyoto"])
def test_a_record_continues_a_kept_tree_past_what_others_did_in_games_keyed_by_history(srv, game_id):
    # London and Gangs of Kyoto key a position by the history the seat saw: a record carries
    # it, so a seat's tree continues past chance outcomes and other seats' moves since its
    # last call (a card drawn mid-turn, a new turn), where the tree reached them; a state,
    # which does not carry it, continues only after a move of the seat's own.
    from fagin.engines.registry import load_game
    game = load_game(game_id)
    rng = random.Random(5)
    state = game.new_initial_state(2)
    record = pb.GameRecord(game=game_id, players=2)
    others_since = {0: False, 1: False}     # a move not the seat's own since its last call
    past_others = 0
    for calls in range(400):
        if state.is_terminal() or past_others >= 2:
            break
        if state.is_chance_node():
            action = state.sample_chance(rng.getrandbits(63))
            record.moves.add(action_id=action)
            others_since = {0: True, 1: True}
        else:
            seat = state.current_player()
            rec = srv.stub.Recommend(pb.RecommendRequest(record=record, seat=seat, session=f"past-{game_id}",
                                                         search=pb.SearchSettings(iterations=300, seed=calls)),
                                     timeout=60)
            if rec.session.continued and others_since[seat]:
                past_others += 1
            action = rec.action.id
            record.moves.add(seat=seat, action_id=action)
            others_since[seat] = False
            others_since[1 - seat] = True
        state.apply(action)
    assert past_others >= 2
