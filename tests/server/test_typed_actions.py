"""Typed actions where a game reuses ids for decisions and chance outcomes (OpenSpiel's games)."""
import grpc
import pytest

from fagin.engines import load_game, new_game
from fagin.server import codec
from fagin.v1 import fagin_pb2 as pb
from fagin.v1.kuhn_poker_pb2 import KuhnPokerAction
from fagin.v1.leduc_poker_pb2 import LeducPokerAction
from fagin.v1.liars_dice_pb2 import LiarsDiceAction


def _typed(game_id, **fields):
    action = pb.Action()
    getattr(action, game_id).SetInParent()
    for name, value in fields.items():
        setattr(getattr(action, game_id), name, value)
    return action


def _refused(client, state, action, stop_at_chance=False):
    with pytest.raises(grpc.RpcError) as e:
        client.apply(codec.encode_state(state), action, stop_at_chance=stop_at_chance)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return e.value.details()


def test_a_deal_given_at_a_decision_is_refused_not_played_as_a_bet(client):
    state = new_game("kuhn_poker", 2, seed=1)                  # cards dealt; seat 0 to act
    kind = KuhnPokerAction.KIND_DEAL
    details = _refused(client, state, _typed("kuhn_poker", kind=kind, card=1))
    assert details.startswith("action.kuhn_poker.kind: KIND_DEAL is a chance outcome")
    played = client.apply(codec.encode_state(state), _typed("kuhn_poker", kind=KuhnPokerAction.KIND_BET))
    assert [a.label for a in played.applied] == ["bet"]


def test_a_bet_given_at_a_chance_event_is_refused_not_played_as_a_deal(client):
    state = load_game("kuhn_poker").new_initial_state(2)        # nothing dealt yet
    details = _refused(client, state, _typed("kuhn_poker", kind=KuhnPokerAction.KIND_BET), True)
    assert details.startswith("action.kuhn_poker.kind: a chance event is next")
    dealt = client.apply(codec.encode_state(state), _typed("kuhn_poker", kind=KuhnPokerAction.KIND_DEAL,
                                                           card=2), stop_at_chance=True)
    assert [a.label for a in dealt.applied] == ["deal K"]


def test_leduc_and_liars_dice_tell_them_apart_too(client):
    state = new_game("leduc_poker", 2, seed=1)
    assert _refused(client, state, _typed("leduc_poker", kind=LeducPokerAction.KIND_DEAL, card=2)) \
        .startswith("action.leduc_poker.kind: KIND_DEAL is a chance outcome")
    state = new_game("liars_dice", 2, seed=1)
    assert _refused(client, state, _typed("liars_dice", kind=LiarsDiceAction.KIND_ROLL, face=3)) \
        .startswith("action.liars_dice.kind: KIND_ROLL is a chance outcome")


def test_an_empty_typed_action_says_what_is_missing(client):
    for game_id, expected in (("kuhn_poker", "action.kuhn_poker.kind: missing; expected one of KIND_PASS"),
                              ("leduc_poker", "action.leduc_poker.kind: missing; expected one of KIND_FOLD"),
                              ("liars_dice", "action.liars_dice.kind: missing; expected one of KIND_BID"),
                              ("goofspiel", "action.goofspiel.card: missing")):
        details = _refused(client, new_game(game_id, 2, seed=1), _typed(game_id))
        assert details.startswith(expected), details
        assert "None" not in details
