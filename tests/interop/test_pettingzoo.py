"""Every game as a PettingZoo AEC environment (fagin.clients.pettingzoo_env), checked by
PettingZoo's own ``api_test`` at each game's least and greatest player count."""
import numpy as np
import pytest
from pettingzoo.test import api_test

from fagin.clients.pettingzoo_env import decode_observation, env, raw_env
from fagin.engines import GAMES, IllegalActionError

CASES = [(game_id, players) for game_id, spec in GAMES.items()
         for players in sorted({spec.min_players, spec.max_players})]


@pytest.mark.filterwarnings("ignore::UserWarning")   # advice about observation types, not failures
@pytest.mark.parametrize("game_id,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_pettingzoo_api(game_id, players):
    api_test(env(game_id, players), num_cycles=1000)


def _play(environment, seed, choose):
    """Plays one game to the end; the (agent, observation, action) of every move."""
    environment.reset(seed=seed)
    trace = []
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, info = environment.last()
        action = None if terminated or truncated else choose(observation)
        trace.append((agent, observation, action))
        environment.step(action)
    return trace


def test_a_game_runs_to_its_returns_with_masks_and_views_of_the_engine():
    environment = raw_env("kids_of_london", 4)
    environment.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    while environment.agents:
        agent = environment.agent_selection
        observation, reward, terminated, truncated, _ = environment.last()
        totals[agent] += reward
        if terminated:
            environment.step(None)
            continue
        state, seat = environment.game_state, int(agent.split("_")[1])
        assert state.current_player() == seat
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
        assert decode_observation(observation) == state.view(seat)
        for other in environment.possible_agents:
            if other != agent:
                assert not environment.observe(other)["action_mask"].any()
        environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if state.is_terminal():
            final = state.returns()
    assert list(totals.values()) == final


def test_the_seed_fixes_the_chance_events():
    def first(observation):
        return int(np.flatnonzero(observation["action_mask"])[0])

    def views(trace):
        return [(agent, decode_observation(obs)) for agent, obs, _ in trace]

    environment = raw_env("leduc_poker")
    assert views(_play(environment, 11, first)) == views(_play(environment, 11, first))
    deals = {str(views(_play(environment, seed, first))[0]) for seed in range(8)}
    assert len(deals) > 1


def test_a_later_seat_does_not_see_an_earlier_secret_choice():
    environment = raw_env("kids_of_london", 3)
    environment.reset(seed=1)
    first = environment.agent_selection
    assert len(environment.game_state.pending_seats()) == 3       # a simultaneous step
    seen = set()
    for action in np.flatnonzero(environment.observe(first)["action_mask"]):
        environment.reset(seed=1)
        environment.step(int(action))
        later = environment.agent_selection
        assert later != first
        seen.add(environment.observe(later)["observation"].tobytes())
    assert len(seen) == 1


def test_illegal_actions_and_unknown_games_are_refused():
    environment = raw_env("kuhn_poker")
    environment.reset(seed=0)
    mask = environment.observe(environment.agent_selection)["action_mask"]
    with pytest.raises(IllegalActionError):
        environment.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(KeyError, match="unknown game"):
        raw_env("no_such_game")
    with pytest.raises(ValueError, match="players"):
        raw_env("kuhn_poker", 3)
