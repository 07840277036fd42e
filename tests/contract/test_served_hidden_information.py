"""Hidden information through the server, for every registered game.

For positions where a seat cannot see everything, a second position that
differs only in what that seat cannot see (a determinization for it) must
get the same recommendation, statistics included, for the same seed, with
every algorithm; and the seat's view must be the same.
"""
from __future__ import annotations

import random

import pytest

from fagin.engines import GAMES, load_game
from fagin.server import codec


ALGORITHMS = ("ismcts", "ismcts_rm", "oos")


def _hidden_positions(game_id, count, seed):
    """Decision positions where the deciding seat cannot see everything, each with
    a twin that differs only there."""
    game = load_game(game_id)
    spec = GAMES[game_id]
    rng = random.Random(seed)
    found = []
    for _ in range(200):
        state = game.new_initial_state(rng.randint(spec.min_players, spec.max_players))
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.getrandbits(63)))
                continue
            seat = rng.choice(state.pending_seats())
            if state.view(seat) != state.describe() and rng.random() < 0.3:
                for s in range(20):
                    twin = state.determinize(seat, rng.getrandbits(63))
                    if twin.describe() != state.describe():
                        found.append((state.clone(), twin, seat))
                        break
            state = state.with_seat_to_act(seat)
            state.apply(rng.choice(state.legal_actions()))
        if len(found) >= count:
            break
    return found


def _answer(client, state, seat, algorithm):
    rec = client.recommend(codec.encode_state(state), seat, algorithm=algorithm, iterations=300, seed=11)
    return (rec.action.id, [(s.action.id, s.visits, round(s.mean_value, 9), round(s.policy, 9))
                            for s in rec.actions])


@pytest.mark.parametrize("game_id", list(GAMES))
def test_what_a_seat_cannot_see_does_not_change_its_recommendation(client, game_id):
    positions = _hidden_positions(game_id, count=2, seed=game_id)
    if not positions:
        pytest.skip(f"{game_id}: no seat ever lacks information")
    for state, twin, seat in positions:
        assert client.view(codec.encode_state(state), seat).state == \
            client.view(codec.encode_state(twin), seat).state
        for algorithm in ALGORITHMS:
            assert _answer(client, state, seat, algorithm) == _answer(client, twin, seat, algorithm), \
                f"{game_id} seat {seat} {algorithm}: the answer depends on what the seat cannot see"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_what_a_seat_cannot_see_does_not_change_its_analysis(client, game_id):
    # An analysis answer too: statistics, plans and beliefs, byte for byte but
    # the search's wall time.
    positions = _hidden_positions(game_id, count=2, seed=game_id + " analysis")
    if not positions:
        pytest.skip(f"{game_id}: no seat ever lacks information")
    for state, twin, seat in positions:
        answers = []
        for position in (state, twin):
            rec = client.recommend(codec.encode_state(position), seat, iterations=300, seed=11, threads=2,
                                   analysis=dict(candidates=3, pv_depth=3, beliefs=True))
            rec.ClearField("elapsed_ms")
            answers.append(rec)
        assert answers[0] == answers[1], f"{game_id} seat {seat}: the analysis depends on what the seat cannot see"
