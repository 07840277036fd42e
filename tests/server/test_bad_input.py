"""Bad input through a real server: the fitting status and a message naming the field, never a crash."""
import math
import os

import grpc
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fagin.clients import FaginClient, recommend_request
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import kids_of_london_pb2 as kpb

from .helpers import kol_dict, kol_state, with_

# Examples per fuzz test; raise it for a long local run (FAGIN_FUZZ_EXAMPLES=2000).
FUZZ_EXAMPLES = int(os.environ.get("FAGIN_FUZZ_EXAMPLES", "150"))

BASE = kol_dict(players=3)
STARTED = kol_dict(players=3, cards=(4,))
CHANCE = {**kol_dict(players=3), "phase": "reveal_character", "character": None,
          "pile": kol_dict(players=3)["pile"] + ["banker"]}


def _rec(state_dict, seat=0, **search):
    return pb.RecommendRequest(state=kol_state(state_dict), seat=seat,
                               search=pb.SearchSettings(**search))


def _typed(kind, **kw):
    return pb.Action(kids_of_london=kpb.KidsOfLondonAction(kind=kind, **kw))


# (name, method, request, expected code, expected start of the message)
CASES = [
    ("no game in state", "LegalActions", pb.LegalActionsRequest(state=pb.GameState()),
     "INVALID_ARGUMENT", "state: no game state given"),
    ("unknown game", "NewGame", pb.NewGameRequest(game="chess", players=2),
     "INVALID_ARGUMENT", "game: unknown game 'chess'"),
    ("too many players", "NewGame", pb.NewGameRequest(game="kids_of_london", players=7),
     "INVALID_ARGUMENT", "players:"),
    ("players missing", "NewGame", pb.NewGameRequest(game="kids_of_london"),
     "INVALID_ARGUMENT", "players:"),
    ("unknown option", "NewGame", pb.NewGameRequest(game="kids_of_london", players=3, options={"x": "1"}),
     "INVALID_ARGUMENT", "options: unknown option 'x'"),
    ("players out of range in state", "Recommend", _rec(with_(BASE, ("players",), 9)),
     "INVALID_ARGUMENT", "state.kids_of_london.players"),
    ("negative coins", "Recommend", _rec(with_(BASE, ("seats", 1, "coins"), -3)),
     "INVALID_ARGUMENT", "state.kids_of_london.seats[1].coins"),
    ("duplicate card in hand", "Recommend", _rec(with_(BASE, ("seats", 0, "hand"), [0, 1, 2, 3, 4, 5, 6, 8, 8])),
     "INVALID_ARGUMENT", "state.kids_of_london.seats[0].hand"),
    ("card out of range", "Recommend", _rec(with_(BASE, ("seats", 2, "hand"), [0, 1, 2, 3, 4, 5, 6, 7, 12])),
     "INVALID_ARGUMENT", "state.kids_of_london.seats[2].hand"),
    ("card both in hand and down", "Recommend", _rec(with_(BASE, ("seats", 0, "card"), 3)),
     "INVALID_ARGUMENT", "state.kids_of_london.seats[0].card"),
    ("hand size contradicts the turn", "Recommend", _rec(with_(BASE, ("turn",), 3)),
     "INVALID_ARGUMENT", "state.kids_of_london.pile"),
    ("phase missing", "Recommend", _rec(with_(BASE, ("phase",), None)),
     "INVALID_ARGUMENT", "state.kids_of_london.phase: missing; expected one of PHASE_REVEAL_CHARACTER, "),
    ("character missing at the card choice", "Recommend", _rec(with_(BASE, ("character",), None)),
     "INVALID_ARGUMENT", "state.kids_of_london.character: missing (phase choose_card needs the revealed "
     "character); expected one of CHARACTER_MERCHANT, "),
    ("too many tiles of a kind", "Recommend", _rec(with_(BASE, ("pile",), ["banker"] * 8)),
     "INVALID_ARGUMENT", "state.kids_of_london.pile: banker tiles: 8 face down and 1 face up make 9, "),
    ("fictitious player in a 3-player game", "Recommend",
     _rec(with_(BASE, ("fictitious",), {"coins": 0, "deck": [1], "card": 2})),
     "INVALID_ARGUMENT", "state.kids_of_london.fictitious"),
    ("prince choice outside its phase", "Recommend", _rec(with_(BASE, ("seats", 0, "prince_choice"), True)),
     "INVALID_ARGUMENT", "state.kids_of_london.seats[0].prince_choice"),
    ("seat out of range", "Recommend", _rec(BASE, seat=9),
     "INVALID_ARGUMENT", "seat: 9 is not a seat"),
    ("seat already chose", "Recommend", _rec(STARTED, seat=0),
     "INVALID_ARGUMENT", "seat: seat 0 has no decision pending"),
    ("recommend at a chance node", "Recommend", _rec(CHANCE),
     "INVALID_ARGUMENT", "state: a chance event is pending"),
    ("zero iterations", "Recommend", _rec(BASE, iterations=0),
     "INVALID_ARGUMENT", "search.iterations: must be positive"),
    ("negative iterations", "Recommend", _rec(BASE, iterations=-100),
     "INVALID_ARGUMENT", "search.iterations: must be positive"),
    ("negative time", "Recommend", _rec(BASE, time_ms=-1),
     "INVALID_ARGUMENT", "search.time_ms: must be positive"),
    ("NaN exploration", "Recommend", _rec(BASE, exploration=math.nan),
     "INVALID_ARGUMENT", "search.exploration"),
    ("huge exploration", "Recommend", _rec(BASE, exploration=1e9),
     "INVALID_ARGUMENT", "search.exploration"),
    ("zero threads", "Recommend", _rec(BASE, threads=0),
     "INVALID_ARGUMENT", "search.threads: must be at least 1, got 0"),
    ("negative threads", "Recommend", _rec(BASE, threads=-3),
     "INVALID_ARGUMENT", "search.threads: must be at least 1, got -3"),
    ("unknown algorithm", "Recommend", _rec(BASE, algorithm="alphago"),
     "INVALID_ARGUMENT", "search.algorithm: unknown algorithm 'alphago'"),
    ("illegal action", "ApplyAction", pb.ApplyActionRequest(state=kol_state(STARTED), seat=0, action_id=5),
     "INVALID_ARGUMENT", "seat: seat 0 has no decision pending"),
    ("action already played", "ApplyAction",
     pb.ApplyActionRequest(state=kol_state(kol_dict(players=3, turn=2, hands=[list(range(2, 9))] * 3)),
                           action_id=0),
     "INVALID_ARGUMENT", "action_id: action 0 (play 0) is not legal"),
    ("unknown action id", "ApplyAction", pb.ApplyActionRequest(state=kol_state(BASE), action_id=999),
     "INVALID_ARGUMENT", "action_id: action 999"),
    ("no action", "ApplyAction", pb.ApplyActionRequest(state=kol_state(BASE)),
     "INVALID_ARGUMENT", "action_id: give the action"),
    ("typed action without kind", "ApplyAction",
     pb.ApplyActionRequest(state=kol_state(BASE), action=_typed(kpb.KidsOfLondonAction.KIND_UNSPECIFIED)),
     "INVALID_ARGUMENT", "action.kids_of_london.kind"),
    ("typed card out of range", "ApplyAction",
     pb.ApplyActionRequest(state=kol_state(BASE), action=_typed(kpb.KidsOfLondonAction.KIND_PLAY_CARD, card=11)),
     "INVALID_ARGUMENT", "action.kids_of_london.card"),
    ("action without typed form", "ApplyAction",
     pb.ApplyActionRequest(state=kol_state(BASE), action=pb.Action(id=3)),
     "INVALID_ARGUMENT", "action.typed"),
    ("seat given at a chance node", "LegalActions", pb.LegalActionsRequest(state=kol_state(CHANCE), seat=0),
     "INVALID_ARGUMENT", "seat: a chance event is next"),
    ("view for a missing seat", "ViewState", pb.ViewStateRequest(state=kol_state(BASE), seat=-1),
     "INVALID_ARGUMENT", "seat: -1"),
    ("unknown enum value", "LegalActions",
     pb.LegalActionsRequest(state=pb.GameState(kids_of_london=kpb.KidsOfLondonState(
         players=3, phase=3, character=42))),
     "INVALID_ARGUMENT", "state.kids_of_london.character"),
    ("report interval too short", "StreamRecommend",
     pb.StreamRecommendRequest(request=_rec(BASE, iterations=10), report_interval_ms=3),
     "INVALID_ARGUMENT", "report_interval_ms"),
    ("bad state inside a stream", "StreamRecommend",
     pb.StreamRecommendRequest(request=_rec(with_(BASE, ("seats", 1, "coins"), -3))),
     "INVALID_ARGUMENT", "request.state.kids_of_london.seats[1].coins"),
]


def _call(client, method, request):
    fn = getattr(client._stub, method)
    if method == "StreamRecommend":
        return list(fn(request, timeout=30))
    return fn(request, timeout=30)


@pytest.mark.parametrize("name, method, request_, code, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_a_named_field(client, name, method, request_, code, message):
    with pytest.raises(grpc.RpcError) as e:
        _call(client, method, request_)
    assert e.value.code() == getattr(grpc.StatusCode, code), e.value.details()
    assert e.value.details().startswith(message), e.value.details()


def test_there_are_at_least_20_distinct_bad_inputs():
    assert len({c[0] for c in CASES}) >= 20


def test_oversized_message_is_resource_exhausted(client):
    big = pb.RecommendRequest(state=kol_state(BASE), seat=0)
    big.search.algorithm = "x" * (300 * 1024)       # above the test server's 256 KiB
    with pytest.raises(grpc.RpcError) as e:
        client._stub.Recommend(big, timeout=30)
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_undecodable_bytes_are_invalid_argument(server):
    channel = grpc.insecure_channel(server.target)
    raw = channel.unary_unary("/fagin.v1.Fagin/Recommend")
    with pytest.raises(grpc.RpcError) as e:
        raw(b"\xff\xff\xff\xff\x0f", timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("request: not a valid fagin.v1.RecommendRequest")
    channel.close()


def _only_ok_or_invalid(client, state, seat, action):
    """Every state call answers, with a result or INVALID_ARGUMENT, never another error."""
    for call in (lambda: client.legal_actions(state), lambda: client.view(state, seat),
                 lambda: client.recommend(state, seat, iterations=30),
                 lambda: client.apply(state, action, seed=3)):
        try:
            call()
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.INVALID_ARGUMENT, e.details()


METHODS = ["ListGames", "NewGame", "LegalActions", "ApplyAction", "ViewState", "Recommend"]


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=st.sampled_from(METHODS + ["StreamRecommend"]), data=st.binary(max_size=400))
def test_fuzz_random_bytes_never_crash_the_server(server, method, data):
    channel = grpc.insecure_channel(server.target)
    try:
        if method == "StreamRecommend":
            call = channel.unary_stream(f"/fagin.v1.Fagin/{method}")
            try:
                for _ in call(data, timeout=30):
                    pass
            except grpc.RpcError as e:
                assert e.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OK), e.details()
        else:
            call = channel.unary_unary(f"/fagin.v1.Fagin/{method}")
            try:
                call(data, timeout=30)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.INVALID_ARGUMENT, e.details()
    finally:
        channel.close()


cards = st.lists(st.integers(-3, 12), max_size=11)
seat_dicts = st.fixed_dictionaries({
    "coins": st.integers(-5, 2_000_000), "hand": cards,
    "card": st.one_of(st.none(), st.integers(-2, 10)),
    "prince_choice": st.one_of(st.none(), st.booleans())})
characters = st.sampled_from(["merchant", "left_priest", "right_priest", "jeweller", "banker",
                              "prince", "beggar"])
state_dicts = st.fixed_dictionaries({
    "players": st.integers(0, 7),
    "turn": st.integers(-1, 11),
    "phase": st.one_of(st.none(), st.sampled_from(["reveal_character", "reveal_fictitious", "choose_card",
                                                   "choose_prince", "choose_lone", "over"])),
    "character": st.one_of(st.none(), characters),
    "pile": st.lists(characters, max_size=10),
    "seats": st.lists(seat_dicts, max_size=6),
    "fictitious": st.one_of(st.none(), st.fixed_dictionaries(
        {"coins": st.integers(-1, 50), "deck": cards, "card": st.one_of(st.none(), st.integers(-1, 9))})),
    "robbers": st.lists(st.integers(-1, 6), max_size=4),
    "lone": st.one_of(st.none(), st.integers(-1, 6)),
})


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(d=state_dicts, seat=st.integers(-2, 6), action=st.integers(-5, 40))
def test_fuzz_random_field_values_get_ok_or_invalid_argument(client, d, seat, action):
    _only_ok_or_invalid(client, kol_state(d), seat, action)


def _walked(game_id, players, rnd, most, any_pending_seat=False):
    """A new game after up to ``most`` random steps drawn from ``rnd`` (fewer if it ends): chance
    drawn, each move uniform, made by the seat to act or, with ``any_pending_seat``, by any seat
    with a decision pending."""
    from fagin.engines import new_game
    st_ = new_game(game_id, players, seed=rnd.getrandbits(32))
    for _ in range(rnd.randrange(0, most)):
        if st_.is_terminal():
            break
        if st_.is_chance_node():
            st_.resolve_chance(rnd.getrandbits(32))
        else:
            if any_pending_seat:
                st_.make_current(rnd.choice([s for s in range(players) if st_.clone().make_current(s)]))
            st_.apply(rnd.choice(st_.legal_actions()))
    return st_


def _random_position(players, rnd):
    return _walked("kids_of_london", players, rnd, 40, any_pending_seat=True).describe()


mutations = st.sampled_from([
    ("players", st.integers(-1, 8)), ("turn", st.integers(-1, 10)),
    ("seats", 0, "coins", st.integers(-2, 10**7)), ("seats", 1, "hand", cards),
    ("seats", 0, "card", st.one_of(st.none(), st.integers(-1, 9))),
    ("seats", 1, "prince_choice", st.one_of(st.none(), st.booleans())),
    ("pile", st.lists(characters, max_size=10)), ("robbers", st.lists(st.integers(-1, 5), max_size=3)),
    ("lone", st.one_of(st.none(), st.integers(-1, 5))), ("character", st.one_of(st.none(), characters)),
])


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(players=st.sampled_from([2, 3, 4, 5]), rnd=st.randoms(use_true_random=False), data=st.data(),
       mutate=st.booleans(), seat=st.integers(0, 4))
def test_fuzz_mutated_real_positions(client, players, rnd, data, mutate, seat):
    d = _random_position(players, rnd)
    if mutate:
        path_and_strategy = data.draw(mutations)
        path, strategy = path_and_strategy[:-1], path_and_strategy[-1]
        try:
            d = with_(d, path, data.draw(strategy))
        except (IndexError, TypeError):
            pass
    _only_ok_or_invalid(client, kol_state(d), seat % players, data.draw(st.integers(0, 28)))


# ------------------------------------------------------------ Gangs of Kyoto

def _gk(d):
    from fagin.server import codec
    msg = pb.GameState()
    codec.dict_to_message(d, msg.gangs_of_kyoto)
    msg.gangs_of_kyoto.SetInParent()
    return msg


def _gk_base():
    from ..games.gangs_of_kyoto.helpers import card, position
    return position(3, revealed=card(1), deal=[card(0), card(2)], received=[]).describe()


GK_CASES = [
    ("unknown card", lambda d: with_(d, ("seats", 0, "row"), [{"kind": "exploration", "value": 9}]),
     "state.gangs_of_kyoto.seats[0].row[0]: no such card"),
    ("a card too many", lambda d: with_(d, ("discard",), [d["deck"][0]]),
     "state.gangs_of_kyoto.cards:"),
    ("bell card in a row", lambda d: with_(d, ("seats", 1, "row"), [{"kind": "bell", "bells": 1}]),
     "state.gangs_of_kyoto.seats[1].row[0]"),
    ("row over the limit", lambda d: with_(d, ("seats", 2, "row"),
                                           [{"kind": "exploration", "value": 5, "bells": 2}] * 3),
     "state.gangs_of_kyoto.seats[2].row"),
    ("refuse phase without a Refuse card", lambda d: {**d, "phase": "refuse", "revealed": None,
                                                       "arriving": d["revealed"], "receiver": 1},
     "state.gangs_of_kyoto.receiver"),
    ("hidden bells from nowhere", lambda d: with_(d, ("seats", 1, "hidden_bell_count"), 2),
     "state.gangs_of_kyoto.seats[1].hidden_bell_count"),
    ("first player out of range", lambda d: {**d, "first_player": 3},
     "state.gangs_of_kyoto.first_player"),
]


@pytest.mark.parametrize("name, mutate, message", GK_CASES, ids=[c[0] for c in GK_CASES])
def test_gangs_of_kyoto_bad_states(client, name, mutate, message):
    with pytest.raises(grpc.RpcError) as e:
        client.recommend(_gk(mutate(_gk_base())), 0, iterations=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith(message), e.value.details()


def test_gangs_of_kyoto_bad_calls(client):
    state = _gk(_gk_base())
    with pytest.raises(grpc.RpcError) as e:
        client.new_game("gangs_of_kyoto", 3, play_through="maybe")
    assert e.value.details().startswith("options.play_through")
    with pytest.raises(grpc.RpcError) as e:
        client.apply(client.apply(state, 1).state, 1)
    assert e.value.details().startswith("action_id: action 1 (give to seat 1) is not legal")
    typed = pb.Action(kids_of_london=kpb.KidsOfLondonAction(kind=kpb.KidsOfLondonAction.KIND_PRINCE))
    with pytest.raises(grpc.RpcError) as e:
        client.apply(state, typed)
    assert e.value.details().startswith("action.typed: a kids_of_london action does not apply")


@settings(max_examples=FUZZ_EXAMPLES // 2, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(players=st.sampled_from([2, 3, 4, 5]), rnd=st.randoms(use_true_random=False), data=st.data(),
       seat=st.integers(0, 4))
def test_fuzz_mutated_gangs_of_kyoto_positions(client, players, rnd, data, seat):
    d = _walked("gangs_of_kyoto", players, rnd, 60).describe()
    ints = st.integers(-3, 30)
    card_st = st.fixed_dictionaries({"kind": st.sampled_from(["exploration", "bell", "discard", "refuse"]),
                                     "value": st.integers(-1, 6), "bells": st.integers(-1, 3),
                                     "draw": st.booleans()})
    mutation = data.draw(st.sampled_from([
        ("players", ints), ("first_player", ints), ("active_player", ints), ("deal_to_draw", ints),
        ("received", st.lists(ints, max_size=4)), ("receiver", st.one_of(st.none(), ints)),
        ("revealed", st.one_of(st.none(), card_st)), ("deck", st.lists(card_st, max_size=3)),
        ("phase", st.sampled_from(["draw_deal", "give", "refuse", "draw_effect", "over"])),
        ("seats", 0, "row", st.lists(card_st, max_size=4)), ("seats", 1, "hidden_bell_count", ints),
        ("unseen", st.lists(card_st, max_size=3)), ("deal_size", ints), ("winner", st.one_of(st.none(), ints)),
    ]))
    if data.draw(st.booleans()):
        d = with_(d, mutation[:-1], data.draw(mutation[-1]))
    _only_ok_or_invalid(client, _gk(d), seat % players, data.draw(st.integers(0, 40)))
