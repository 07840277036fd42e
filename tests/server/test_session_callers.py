"""Kept session trees are the caller's: another caller naming the same session reaches none of
them (it is told nothing of them, continues none, replaces none), and the server makes
session names nobody can guess where the client asks."""
import re
from types import SimpleNamespace

import grpc
import pytest

from fagin.engines import load_game, new_game
from fagin.server.codec import encode_state
from fagin.server.config import ServerConfig
from fagin.server.security import ANONYMOUS, caller_identity
from fagin.server.sessions import NO_TREE, SessionStore
from fagin.server.tree_memory import TreeMemory
from fagin.v1 import fagin_pb2 as pb

from ..serving import TEST_CONFIG
from .test_admission import ServiceServer
from .test_sessions import _kept_job

TOKEN_A = "a" * 32
TOKEN_B = "b" * 32


@pytest.fixture(scope="module")
def srv():
    with ServiceServer() as s:
        yield s


def ask(srv, state, seat, token=None, iterations=200, rollout="", **fields):
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    return srv.stub.Recommend(pb.RecommendRequest(
        state=encode_state(state), seat=seat, search=pb.SearchSettings(iterations=iterations, rollout=rollout),
        **fields), metadata=metadata, timeout=60)


def report(rec):
    return rec.session.continued, rec.session.head_start, rec.session.fresh_reason


def kuhn_with_card(card_of_seat_0, card_of_seat_1):
    game = load_game("kuhn_poker")
    return game.from_description({"cards": [card_of_seat_0, card_of_seat_1], "actions": []})


def test_another_callers_session_is_a_session_never_seen_and_stays_its_owners(srv):
    state = new_game("kids_of_london", 4, seed=5)
    first = ask(srv, state, 0, TOKEN_A, session="shared")
    assert report(first) == (False, 0, NO_TREE)
    again = ask(srv, state, 0, TOKEN_A, session="shared")
    assert again.session.continued and again.session.head_start == 200
    never_seen = ask(srv, state, 0, TOKEN_B, session="never-named-before")
    # B names A's session: the same position, then other settings; a fresh reason naming the
    # setting that differs would tell B that A's tree exists, and which setting A uses.
    # (Each try by a caller of its own: a caller's own calls keep its own tree.)
    for k, rollout in enumerate(("random", "policy")):
        theirs = ask(srv, state, 0, f"{TOKEN_B}{k}", rollout=rollout, session="shared")
        assert report(theirs) == report(never_seen) == (False, 0, NO_TREE)
    # Neither continued nor replaced: A's tree is still A's, with all it had.
    later = ask(srv, state, 0, TOKEN_A, session="shared")
    assert later.session.continued and later.session.head_start == 400
    # And B's own calls under the name keep B's tree, apart from A's.
    ask(srv, state, 0, TOKEN_B, session="shared")
    assert ask(srv, state, 0, TOKEN_B, session="shared").session.head_start == 200
    assert ask(srv, state, 0, TOKEN_A, session="shared").session.head_start == 600


def test_a_kept_tree_tells_another_caller_nothing_of_its_seats_hidden_card(srv):
    # A's bot holds seat 0 with the king (2); B plays seat 1 and names A's session, trying
    # each card seat 0 might hold: were the true card's position continued (a head start)
    # and the others not, one call would tell B the hidden card.
    truth = kuhn_with_card(2, 0)
    ask(srv, truth, 0, TOKEN_A, session="kuhn-bot")
    assert ask(srv, truth, 0, TOKEN_A, session="kuhn-bot").session.continued
    answers = {card: report(ask(srv, kuhn_with_card(card, 0 if card else 1), 0, f"{TOKEN_B}{card}",
                                session="kuhn-bot"))
               for card in (2, 1, 0)}
    assert set(answers.values()) == {(False, 0, NO_TREE)}, answers


def test_the_server_makes_a_session_name_nobody_can_guess(srv):
    state = new_game("kids_of_london", 4, seed=6)
    first = ask(srv, state, 0, new_session=True)
    name = first.session.session
    assert re.fullmatch(r"[0-9a-f]{32}", name)
    assert report(first) == (False, 0, NO_TREE)
    assert ask(srv, state, 0, new_session=True).session.session != name
    again = ask(srv, state, 0, session=name)
    assert again.session.continued and again.session.session == name
    with pytest.raises(grpc.RpcError) as e:
        ask(srv, state, 0, session=name, new_session=True)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("new_session: give session")


def _context(metadata=(), identities=None):
    return SimpleNamespace(invocation_metadata=lambda: metadata, peer_identities=lambda: identities)


def test_the_caller_is_its_token_else_its_certificate_else_anonymous():
    with_token = caller_identity(_context((("authorization", f"Bearer {TOKEN_A}"),), [b"client-a"]))
    assert with_token.startswith("token:") and TOKEN_A not in with_token
    assert with_token != caller_identity(_context((("authorization", f"Bearer {TOKEN_B}"),)))
    assert caller_identity(_context(identities=[b"client-a"])) == "x509:client-a"
    assert caller_identity(_context(identities=[b"client-b"])) != "x509:client-a"
    assert caller_identity(_context()) == ANONYMOUS
    assert caller_identity(_context((("authorization", "Basic xyz"),))) == ANONYMOUS


def _store(max_sessions):
    config = ServerConfig(**{**TEST_CONFIG, "max_sessions": max_sessions})
    return config, SessionStore(config, TreeMemory(config.tree_memory_bytes))


def _sessions_of(store, caller):
    return [session for (who, session, _seat) in store.kept if who == caller]


def test_a_caller_keeping_few_trees_keeps_them_however_many_trees_others_ask_to_keep():
    config, store = _store(max_sessions=4)
    _kept_job(config, store, "a0", seed=1, iterations=50, caller="A")
    for k in range(10):               # an anonymous caller naming a new session each call
        _kept_job(config, store, f"flood{k}", seed=k, iterations=50)
    assert _sessions_of(store, "A") == ["a0"] and len(store) == 4
    assert _sessions_of(store, ANONYMOUS) == ["flood7", "flood8", "flood9"]
    # A's next tree makes room out of the caller keeping the most...
    _kept_job(config, store, "a1", seed=2, iterations=50, caller="A")
    assert _sessions_of(store, "A") == ["a0", "a1"] and _sessions_of(store, ANONYMOUS) == ["flood8", "flood9"]
    # ...and once A keeps as many as any other, out of its own, least recently used first.
    _kept_job(config, store, "a2", seed=3, iterations=50, caller="A")
    assert _sessions_of(store, "A") == ["a1", "a2"] and len(store) == 4
    assert store.memory.kept_bytes == sum(e.bytes for e in store.kept.values())


def test_a_search_needing_memory_takes_it_from_the_caller_keeping_the_most_first():
    config, store = _store(max_sessions=8)
    _kept_job(config, store, "a0", seed=1, iterations=100, caller="A")
    for k in range(3):
        _kept_job(config, store, f"b{k}", seed=k, iterations=100, caller="B")
    store.reclaim(1)
    assert _sessions_of(store, "A") == ["a0"] and _sessions_of(store, "B") == ["b1", "b2"]
    assert store.dropped["memory"] == 1


def test_the_python_client_asks_for_a_session_name_and_continues_under_it(srv):
    """FaginClient.recommend(new_session=True): the server's name comes back in the answer and
    continues the seat's tree when sent as ``session``."""
    from fagin.clients import FaginClient

    state = encode_state(new_game("kids_of_london", 4, seed=8))
    with FaginClient(f"127.0.0.1:{srv.port}", timeout=60) as client:
        first = client.recommend(state, 0, iterations=200, seed=1, new_session=True)
        name = first.session.session
        assert re.fullmatch(r"[0-9a-f]{32}", name) and not first.session.continued
        again = client.recommend(state, 0, iterations=200, seed=1, session=name)
        assert again.session.continued and again.session.head_start >= 200
