"""London's heuristic bot and rollout policy: legal, informed only by what a seat knows
(LN-83 to LN-86), and quicker to finish a game than uniform play (LN-74)."""
import random

import pytest

from fagin.engines.london.heuristic import LondonHeuristicBot
from fagin.search.playouts import random_playouts, rollout_policy_violations

from .london_helpers import GAME


def _play(players, seed, bots):
    st = GAME.new_initial_state(players)
    rng = random.Random(seed)
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
            continue
        seat = st.current_player()
        legal = st.legal_actions(seat)
        a = bots[seat].choose(st, seat, rng.getrandbits(63))
        assert a in legal
        st.apply(a)
    return st


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rollout_policy_answers_are_legal(players):
    checked, illegal = rollout_policy_violations(GAME.new_initial_state(players), 20, seed=players)
    assert checked > 1000 and illegal == 0


def test_rollout_policy_ends_the_game_sooner_than_uniform_play_LN_74():
    st = GAME.new_initial_state(2)
    _, uniform, _ = random_playouts(st, 100, seed=1)
    _, policy, _ = random_playouts(st, 100, seed=1, policy=True)
    assert policy < 0.7 * uniform


@pytest.mark.parametrize("players", [2, 4])
def test_heuristic_plays_whole_games_legally(players):
    bot = LondonHeuristicBot()
    st = _play(players, players, [bot] * players)
    assert st.is_terminal()


def test_heuristic_beats_random_play():
    from fagin.search.bots import RandomBot
    wins = 0
    for g in range(6):
        bots = [LondonHeuristicBot(), RandomBot()] if g % 2 == 0 else [RandomBot(), LondonHeuristicBot()]
        wins += _play(2, g, bots).returns()[g % 2]
    assert wins >= 5


def test_heuristic_ignores_what_its_seat_cannot_see_LN_84_LN_85():
    """Re-dealing the others' hidden cards and the deck (a determinization for the bot's
    seat) never changes its choice."""
    bot = LondonHeuristicBot()
    st = GAME.new_initial_state(3)
    rng = random.Random(7)
    checked = 0
    while not st.is_terminal() and checked < 60:
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
            continue
        seat = st.current_player()
        seed = rng.getrandbits(63)
        a = bot.choose(st, seat, seed)
        for d in range(3):
            assert bot.choose(st.determinize(seat, d), seat, seed) == a
        checked += 1
        st.apply(a)
    assert checked == 60
