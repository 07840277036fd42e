"""Gangs of Kyoto's search by budget (GameSpec.budget_settings): from 4,096 iterations at 2
players, the heuristic's playouts with its pick as the tree's prior (weight 10); below that,
at other player counts and on time alone, uniform playouts (seeds/gangs_of_kyoto.md,
"Large budgets")."""
from fagin.engines import new_game
from fagin.search import ismcts
from fagin.search.root_parallel import root_parallel_search
from fagin.search.bots import make_bot
from fagin.server import codec


def _opening(players):
    state = new_game("gangs_of_kyoto", players, seed=4)
    return state, state.current_player()


def test_a_served_search_of_4096_iterations_plays_the_heuristics_playouts_with_its_prior(client):
    state, seat = _opening(2)
    big = client.recommend(codec.encode_state(state), seat, iterations=4096, seed=3)
    assert big.settings.rollout == "policy" and not big.notes
    local = ismcts.run_search(state, seat, iterations=4096, seed=3, rollout="policy", prior=10.0)
    assert [s.visits for s in big.actions] == [s.visits for s in local.stats]
    uniform = ismcts.run_search(state, seat, iterations=4096, seed=3, rollout="random")
    assert [s.visits for s in local.stats] != [s.visits for s in uniform.stats]
    # The top bot level searches 4,096 iterations: the frontends' strongest bot plays it.
    top = client.recommend(codec.encode_state(state), seat, level=10, seed=3)
    assert top.settings.rollout == "policy" and top.settings.iterations == 4096
    assert client.recommend(codec.encode_state(state), seat, level=9, seed=3).settings.rollout == "random"


def test_smaller_timed_and_larger_table_searches_keep_uniform_playouts(client):
    state, seat = _opening(2)
    small = client.recommend(codec.encode_state(state), seat, iterations=1024, seed=3)
    assert small.settings.rollout == "random"
    local = ismcts.run_search(state, seat, iterations=1024, seed=3, rollout="random")
    assert [s.visits for s in small.actions] == [s.visits for s in local.stats]
    timed = client.recommend(codec.encode_state(state), seat, time_ms=30, seed=3)
    assert timed.settings.rollout == "random"
    three, seat3 = _opening(3)
    assert client.recommend(codec.encode_state(three), seat3, iterations=4096, seed=3).settings.rollout == "random"
    # The thresholds count a tree's iterations: four threads of 1,024 are four small trees.
    four = client.recommend(codec.encode_state(state), seat, iterations=4096, threads=4, seed=3)
    assert four.settings.rollout == "random"
    assert client.recommend(codec.encode_state(state), seat, iterations=16384, threads=4,
                            seed=3).settings.rollout == "policy"
    # Measured with UCB only: regret matching keeps uniform playouts.
    assert client.recommend(codec.encode_state(state), seat, iterations=4096, algorithm="ismcts_rm",
                            seed=3).settings.rollout == "random"
    # A request that names its rollout gets it, at any budget.
    asked = client.recommend(codec.encode_state(state), seat, iterations=4096, seed=3, rollout="random")
    assert asked.settings.rollout == "random"


def test_one_thread_gives_the_plain_searchs_answer_at_a_large_budget():
    import numpy as np
    state, seat = _opening(2)
    plain = ismcts.run_search(state, seat, iterations=4096, seed=5, rollout="policy")
    parallel = root_parallel_search(state, seat, iterations=4096, seed=5, threads=1, rollout="policy")
    assert plain.stats == parallel.stats and plain.action == parallel.action
    assert ismcts.ISMCTS(state, seat, ismcts.SearchSettings(rollout="policy", budget=np.int64(4096))).prior == 10.0
    assert ismcts.ISMCTS(state, seat, ismcts.SearchSettings(rollout="policy", budget=4096, selection="rm")).prior == 0.0


def test_a_bot_of_4096_iterations_searches_as_the_server_does():
    state, seat = _opening(2)
    bot = make_bot("ismcts:4096")
    local = root_parallel_search(state, seat, iterations=4096, seed=5, threads=1, rollout="policy", prior=10.0)
    assert bot.choose(state, seat, 5) == local.action
    assert make_bot("ismcts:4096:random").choose(state, seat, 5) == root_parallel_search(
        state, seat, iterations=4096, seed=5, threads=1, rollout="random").action


def test_the_scheduler_times_the_large_budget_search_apart():
    """An iteration that asks the policy at every tree node (the prior) costs more: the
    server's admission keeps its speed apart from the plain policy search's."""
    from fagin.clients import recommend_request
    from fagin.server.config import ServerConfig
    from fagin.server.request import prepare
    from fagin.server.scheduler import _speed_key
    from ...serving import TEST_CONFIG
    state, seat = _opening(2)
    config = ServerConfig(**TEST_CONFIG)
    encoded = codec.encode_state(state)
    big = prepare(recommend_request(encoded, seat, iterations=4096), config)
    plain = prepare(recommend_request(encoded, seat, iterations=1024, rollout="policy"), config)
    assert big.settings.rollout == plain.settings.rollout == "policy"
    assert _speed_key(big) != _speed_key(plain)
    assert _speed_key(plain) == _speed_key(prepare(recommend_request(encoded, seat, iterations=64,
                                                                     rollout="policy"), config))
