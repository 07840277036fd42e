"""Every game as an OpenSpiel game (fagin.clients.openspiel_games), checked by OpenSpiel itself.

OpenSpiel's own random-simulation test (``pyspiel.random_sim_test``: legal
actions sorted and masked, chance distributions, clones, serialisation round
trips, information-state and observation strings for every seat at every
decision, returns within the declared bounds and summing as declared) runs on
every registered game at its least and its greatest player count; OpenSpiel's
CFR and exploitability run on Kuhn poker, and its Python ISMCTS bot plays games
with simultaneous moves.
"""
import json
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr, exploitability, get_all_states, ismcts, mcts

from fagin.clients import openspiel_games
from fagin.engines import GAMES

CASES = [(game_id, players) for game_id, spec in GAMES.items()
         for players in sorted({spec.min_players, spec.max_players})]


def test_every_game_is_registered_under_its_prefixed_name():
    names = openspiel_games.register_games()
    assert names == [f"fagin_{game_id}" for game_id in GAMES]
    assert set(names) <= set(pyspiel.registered_names())
    assert openspiel_games.register_games() == names          # a second call registers nothing new


@pytest.mark.parametrize("game_id,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_openspiel_random_simulation(game_id, players):
    game = openspiel_games.load(game_id, players)
    assert game.num_players() == players
    # A few games each; one for the long games (thousands of actions), whose views are
    # the costly part of each step.
    sims = 1 if game.max_game_length() > 1000 else 3
    checked = []

    def strings_are_the_seats_views(state):
        """Run by OpenSpiel at every state it reaches: each seat's strings are its view
        (checked, like OpenSpiel's serialisation, at the first ten states of a game and
        then at powers of two, as a long game's views are slow to make)."""
        checked.append(state.move_number())
        n = state.move_number()
        if n >= 10 and n & (n - 1):
            return
        engine = state.fagin_state
        for seat in range(players):
            view = openspiel_games.view_json(engine, seat)
            assert state.observation_string(seat) == view
            assert state.information_state_string(seat) == f"{engine.infoset_key(seat):016x} {view}"

    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False,
                            state_checker_fn=strings_are_the_seats_views)
    assert len(checked) > sims


def test_game_string_carries_players_and_options():
    game = pyspiel.load_game("fagin_goofspiel(num_cards=4,returns_type=total_points)")
    assert game.fagin_options["num_cards"] == 4
    assert _first_decision(game).legal_actions() == [0, 1, 2, 3]
    # A reference game's bounds are those of the OpenSpiel game it copies: 1+2+3+4 points at most.
    assert (game.min_utility(), game.max_utility()) == (0.0, 10.0)
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game)
    assert openspiel_games.load("kids_of_london", 4).num_players() == 4
    with pytest.raises(Exception, match="players"):
        openspiel_games.load("kids_of_london", 9)
    with pytest.raises(Exception, match="num_cards"):
        openspiel_games.load("goofspiel", num_cards=99)


def _first_decision(game, seed=5):
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[seed % len(outcomes)][0])
    return state


def test_simultaneous_choices_stay_hidden_in_the_sequence():
    """Kids of London's secret card choice is taken seat after seat; the later seat's
    information state is the same whatever the earlier seat chose."""
    game = openspiel_games.load("kids_of_london", 3)
    state = _first_decision(game)
    assert len(state.fagin_state.pending_seats()) == 3       # a simultaneous step
    first = state.current_player()
    children = [state.child(a) for a in state.legal_actions()]
    assert len(children) > 1
    later = children[0].current_player()
    assert later != first
    assert len({c.information_state_string(later) for c in children}) == 1
    assert len({c.observation_string(later) for c in children}) == 1
    assert len({c.information_state_string(first) for c in children}) == len(children)


def test_action_strings_are_the_engines_labels_of_chance_outcomes_and_decisions():
    game = openspiel_games.load("kuhn_poker")
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["deal J", "deal Q", "deal K"]
    state = _first_decision(game)
    assert [state.action_to_string(a) for a in state.legal_actions()] == \
        [state.fagin_state.action_label(a) for a in state.legal_actions()] == ["pass", "bet"]


def test_strings_show_only_the_seats_view():
    game = openspiel_games.load("kuhn_poker")
    state = _first_decision(game)
    engine = state.fagin_state
    for seat in range(2):
        assert json.loads(state.observation_string(seat)) == engine.view(seat)
        key, view = state.information_state_string(seat).split(" ", 1)
        assert int(key, 16) == engine.infoset_key(seat)
        assert json.loads(view) == engine.view(seat)
    cards = engine.describe()["cards"]
    assert json.loads(state.observation_string(0))["cards"] == [cards[0], -1]


@pytest.mark.parametrize("game_id", ["kuhn_poker", "leduc_poker"])
def test_openspiel_enumerates_the_same_tree_as_its_own_game(game_id):
    """OpenSpiel's get_all_states walks a reference game's copy: the same histories
    (chance outcomes, decisions, terminals) as OpenSpiel's own game, each with the
    same player to act, legal actions and returns."""
    def everything(game):
        return get_all_states.get_all_states(game, depth_limit=-1, include_terminals=True,
                                             include_chance_states=True)
    ours, theirs = everything(openspiel_games.load(game_id)), everything(pyspiel.load_game(game_id))
    assert set(ours) == set(theirs)
    for history, state in ours.items():
        other = theirs[history]
        assert (state.current_player(), state.legal_actions()) == \
            (other.current_player(), other.legal_actions()), history
        assert state.returns() == pytest.approx(other.returns()), history


def test_openspiel_cfr_solves_fagin_kuhn_as_it_solves_its_own():
    """OpenSpiel's CFR over fagin's Kuhn poker walks the same tree as over OpenSpiel's
    kuhn_poker: after as many iterations the average policies are equally exploitable."""
    ours, theirs = openspiel_games.load("kuhn_poker"), pyspiel.load_game("kuhn_poker")
    solvers = [cfr.CFRSolver(ours), cfr.CFRSolver(theirs)]
    for _ in range(60):
        for solver in solvers:
            solver.evaluate_and_update_policy()
    ours_conv = exploitability.nash_conv(ours, solvers[0].average_policy())
    theirs_conv = exploitability.nash_conv(theirs, solvers[1].average_policy())
    assert ours_conv == pytest.approx(theirs_conv, abs=1e-9)
    assert ours_conv < 0.05


def test_resampled_states_keep_the_seats_information_and_vary_the_rest():
    game = openspiel_games.load("kuhn_poker")
    state = _first_decision(game)
    own, other = state.fagin_state.describe()["cards"]
    rng = random.Random(0)
    draws = [state.resample_from_infostate(0, rng.random) for _ in range(40)]
    assert {d.information_state_string(0) for d in draws} == {state.information_state_string(0)}
    assert {d.current_player() for d in draws} == {0}
    assert {tuple(d.fagin_state.describe()["cards"]) for d in draws} == \
        {(own, c) for c in range(3) if c != own}
    assert state.fagin_state.describe()["cards"] == [own, other]          # the original is untouched
    with pytest.raises(Exception, match="resample_from_infostate"):
        pyspiel.serialize_game_and_state(game, draws[0])


@pytest.mark.parametrize("game_id,players,options", [
    ("kids_of_london", 3, {}),
    # The engine's determinize reopens the first bid: the second bidder must stay the one to act.
    ("goofspiel", 2, {"num_cards": 5, "imp_info": True}),
])
def test_openspiel_ismcts_bot_plays_games_with_simultaneous_moves(game_id, players, options):
    """OpenSpiel's ISMCTS asserts at every simulation that the drawn world has the
    root's seat to act and information state, so this also checks resampling inside
    simultaneous steps."""
    game = openspiel_games.load(game_id, players, **options)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0,
                           max_simulations=20, random_state=np.random.RandomState(1))
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(bot.step(state))
    assert state.returns() == state.fagin_state.returns()
