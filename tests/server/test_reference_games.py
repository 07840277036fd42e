"""The reference games through the real server: every call, views and hidden information."""
import pytest

from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import goofspiel_pb2, kuhn_poker_pb2, leduc_poker_pb2

CASES = [("kuhn_poker", {}), ("leduc_poker", {}),
         ("goofspiel", {"num_cards": "5", "imp_info": "true", "points_order": "descending"})]


@pytest.mark.parametrize("game, options", CASES)
def test_play_a_game_through_the_server(client, game, options):
    resp = client.new_game(game, 2, seed=3, **options)
    state, status = resp.state, resp.status
    steps = 0
    while not status.terminal:
        steps += 1
        assert steps < 100
        seat = status.current_seat
        legal = client.legal_actions(state, seat)
        assert legal.actions
        rec = client.recommend(state, seat, iterations=300, seed=steps, algorithm="ismcts_rm")
        assert rec.action.id in {a.id for a in legal.actions}
        # A view for the acting seat is a state that gets the same recommendation.
        seen = client.view(state, seat).state
        assert client.recommend(seen, seat, iterations=300, seed=steps, algorithm="ismcts_rm").actions == \
            rec.actions
        applied = client.apply(state, rec.action, seat=seat, seed=steps)
        state, status = applied.state, applied.status
    assert sum(status.returns) == pytest.approx(0.0)          # zero-sum


def test_reference_states_are_validated_by_replay(client):
    import grpc
    bad = pb.GameState(kuhn_poker=kuhn_poker_pb2.KuhnPokerState(cards=[1, 1]))
    with pytest.raises(grpc.RpcError) as e:
        client.legal_actions(bad)
    assert e.value.details().startswith("state.kuhn_poker.cards[1]")
    bad = pb.GameState(leduc_poker=leduc_poker_pb2.LeducPokerState(private_cards=[0, 3], round1=[0]))
    with pytest.raises(grpc.RpcError) as e:
        client.legal_actions(bad)
    assert e.value.details().startswith("state.leduc_poker.round1[0]")
    bad = pb.GameState(goofspiel=goofspiel_pb2.GoofspielState(
        options=goofspiel_pb2.GoofspielState.Options(num_cards=4, points_order="descending"),
        point_cards=[3], bids0=[2], bids1=[2, 1]))
    with pytest.raises(grpc.RpcError) as e:
        client.legal_actions(bad)
    assert e.value.details().startswith("state.goofspiel.bids1")


def test_kuhn_hidden_card_does_not_change_the_answer(client):
    """Seat 0, to act after pass-bet, cannot see seat 1's card."""
    a = client.recommend(pb.GameState(kuhn_poker=kuhn_poker_pb2.KuhnPokerState(cards=[1, 0], actions=[0, 1])),
                         0, iterations=2000, seed=4)
    b = client.recommend(pb.GameState(kuhn_poker=kuhn_poker_pb2.KuhnPokerState(cards=[1, 2], actions=[0, 1])),
                         0, iterations=2000, seed=4)
    assert a.actions == b.actions
