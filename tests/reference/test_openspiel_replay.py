"""The reference games replay OpenSpiel's own games action by action.

At every step: the same player to act, the same legal actions, the same
chance outcomes and probabilities, and at the end the same returns. And the
information sets are the same partition of histories as OpenSpiel's
information-state strings.
"""
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from fagin.engines import CHANCE, TERMINAL, load_game  # noqa: E402

GAMES = ["kuhn_poker", "leduc_poker"]


def _player(ours):
    p = ours.current_player()
    return {CHANCE: pyspiel.PlayerId.CHANCE, TERMINAL: pyspiel.PlayerId.TERMINAL}.get(p, p)


@pytest.mark.parametrize("game_id", GAMES)
def test_random_games_match_openspiel_step_by_step(game_id):
    theirs_game = pyspiel.load_game(game_id)
    rng = random.Random(7)
    for _ in range(300):
        theirs = theirs_game.new_initial_state()
        ours = load_game(game_id).new_initial_state(2)
        while not theirs.is_terminal():
            assert _player(ours) == theirs.current_player()
            if theirs.is_chance_node():
                expected = sorted(theirs.chance_outcomes())
                got = sorted(ours.chance_outcomes())
                assert [a for a, _ in got] == [a for a, _ in expected]
                assert [p for _, p in got] == pytest.approx([p for _, p in expected])
            else:
                assert ours.legal_actions() == theirs.legal_actions()
            action = rng.choice(theirs.legal_actions())
            theirs.apply_action(action)
            ours.apply(action)
        assert ours.is_terminal()
        assert ours.returns() == pytest.approx(theirs.returns())


@pytest.mark.parametrize("game_id", GAMES)
def test_information_sets_partition_histories_like_openspiel(game_id):
    """Two decision states share our key iff they share OpenSpiel's information-state string."""
    theirs_game = pyspiel.load_game(game_id)
    rng = random.Random(3)
    ours_by_theirs, theirs_by_ours = {}, {}
    for _ in range(400):
        theirs = theirs_game.new_initial_state()
        ours = load_game(game_id).new_initial_state(2)
        while not theirs.is_terminal():
            if not theirs.is_chance_node():
                p = theirs.current_player()
                t, o = (p, theirs.information_state_string(p)), (p, ours.infoset_key(p))
                assert ours_by_theirs.setdefault(t, o) == o
                assert theirs_by_ours.setdefault(o, t) == t
            action = rng.choice(theirs.legal_actions())
            theirs.apply_action(action)
            ours.apply(action)
    assert len(ours_by_theirs) >= 12      # Kuhn has exactly 12 information sets
