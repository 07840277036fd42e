"""Liar's Dice through the real server: a new game, a recommendation, typed actions, validation."""
import grpc
import pytest

from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import liars_dice_pb2


def test_listed_and_played_through_the_server(client):
    assert "liars_dice" in {g.id for g in client.list_games()}
    resp = client.new_game("liars_dice", 2, seed=5)
    state, status = resp.state, resp.status
    assert state.WhichOneof("game") == "liars_dice" and status.current_seat == 0
    assert len(state.liars_dice.dice0) == len(state.liars_dice.dice1) == 1
    steps = 0
    while not status.terminal:
        steps += 1
        assert steps <= 13
        seat = status.current_seat
        rec = client.recommend(state, seat, iterations=300, seed=steps)
        assert rec.action.id in {a.id for a in client.legal_actions(state, seat).actions}
        seen = client.view(state, seat).state
        assert list(getattr(seen.liars_dice, f"dice{1 - seat}")) == [-1]
        applied = client.apply(state, rec.action, seat=seat, seed=steps)
        state, status = applied.state, applied.status
    assert sorted(status.returns) == [-1.0, 1.0]


def test_typed_actions_through_the_server(client):
    state = pb.GameState(liars_dice=liars_dice_pb2.LiarsDiceState(dice0=[2], dice1=[6], actions=[7]))
    legal = client.legal_actions(state, 1).actions
    assert [a.id for a in legal] == list(range(8, 13))
    assert legal[-1].label == "liar" and legal[-1].liars_dice.kind == liars_dice_pb2.LiarsDiceAction.KIND_LIAR
    call = pb.Action(liars_dice=liars_dice_pb2.LiarsDiceAction(kind=liars_dice_pb2.LiarsDiceAction.KIND_LIAR))
    done = client.apply(state, call, seat=1)
    assert done.status.terminal and list(done.status.returns) == [1.0, -1.0]   # 6 is wild: two 2s hold


def test_bad_state_is_refused_naming_the_field(client):
    bad = pb.GameState(liars_dice=liars_dice_pb2.LiarsDiceState(dice0=[2], dice1=[6], actions=[7, 3]))
    with pytest.raises(grpc.RpcError) as e:
        client.legal_actions(bad)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("state.liars_dice.actions[1]")


def test_a_variant_is_served_with_labels_under_its_options(client):
    """numdice=2, four sides, reset-quantity: ids mean other bids than in the default game."""
    from fagin.server import codec  # noqa: F401
    resp = client.new_game("liars_dice", 2, seed=4, numdice="2", dice_sides="4", bidding_rule="reset-quantity")
    state = resp.state
    assert state.liars_dice.options.numdice == 2 and len(state.liars_dice.dice0) == 2
    legal = client.legal_actions(state).actions
    assert [a.label for a in legal][:5] == ["bid 1-1", "bid 2-1", "bid 3-1", "bid 4-1", "bid 1-2"]
    assert legal[-1].label == "bid 4-4" and len(legal) == 16
    rec = client.recommend(state, 0, iterations=300, seed=1)
    assert rec.action.label.startswith("bid")
    played = client.apply(state, rec.action.id, seed=2)
    seen = client.view(played.state, 1).state.liars_dice
    assert list(seen.dice0) == [-1, -1] and seen.options.dice_sides == 4
