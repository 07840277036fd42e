"""SearchSettings.rollout: the game's rollout policy or uniform rollouts, through the server."""
import grpc
import pytest

from fagin.engines import new_game
from fagin.search import ismcts
from fagin.server import codec


def test_policy_rollouts_are_served_and_match_the_in_process_search(client):
    state = new_game("gangs_of_kyoto", 3, seed=4)
    seat = state.current_player()
    rec = client.recommend(codec.encode_state(state), seat, iterations=800, seed=3, rollout="policy")
    assert rec.settings.rollout == "policy" and not rec.notes
    local = ismcts.run_search(state, seat, iterations=800, seed=3, rollout="policy")
    assert [s.visits for s in rec.actions] == [s.visits for s in local.stats]
    default = client.recommend(codec.encode_state(state), seat, iterations=800, seed=3)
    assert default.settings.rollout == "random"
    assert [s.visits for s in default.actions] != [s.visits for s in rec.actions]


def test_a_game_without_a_policy_says_so(client):
    state = new_game("kuhn_poker", 2, seed=1)
    rec = client.recommend(codec.encode_state(state), state.current_player(), iterations=100,
                           rollout="policy")
    assert any("no rollout policy" in n for n in rec.notes)


def test_an_unknown_rollout_is_refused(client):
    state = new_game("kuhn_poker", 2, seed=1)
    with pytest.raises(grpc.RpcError) as e:
        client.recommend(codec.encode_state(state), 0, iterations=10, rollout="greedy")
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("search.rollout: unknown rollout 'greedy'")


def test_a_huge_unknown_value_is_not_echoed_whole(client):
    state = new_game("kuhn_poker", 2, seed=1)
    with pytest.raises(grpc.RpcError) as e:
        client.recommend(codec.encode_state(state), 0, iterations=10, rollout="x" * 10_000)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert len(e.value.details()) < 300 and "(10000 characters)" in e.value.details()


def test_gamma_given_to_ismcts_is_noted_not_silently_ignored(client):
    state = new_game("kuhn_poker", 2, seed=1)
    rec = client.recommend(codec.encode_state(state), 0, iterations=10, gamma=0.3)
    assert any("search.gamma" in n for n in rec.notes)


def test_a_request_without_a_rollout_gets_the_games_default(client):
    """GameSpec.rollout: London searches with its policy (and the prior) unless told otherwise;
    Kids of London with uniform rollouts."""
    london = new_game("london", 2, seed=1)
    rec = client.recommend(codec.encode_state(london), london.current_player(), iterations=50, seed=1)
    assert rec.settings.rollout == "policy" and not rec.notes
    kids = new_game("kids_of_london", 3, seed=1)
    rec = client.recommend(codec.encode_state(kids), kids.current_player(), iterations=50, seed=1)
    assert rec.settings.rollout == "random"
