"""Hostile positions for every registered game, through the server.

Real positions from random play (full descriptions and seats' views), with one field anywhere
replaced by a hostile value (out-of-range numbers, missing values, wrong
shapes, huge lists), sent to every state call: each answers with a result
or INVALID_ARGUMENT naming a field of the state, never another status, a
crash or a hang. A new game gets this by registering.
``FAGIN_FUZZ_EXAMPLES`` sets the cases per game (default 100).
"""
from __future__ import annotations

import copy
import os
import random

import grpc
import pytest

from fagin.engines import GAMES, load_game
from fagin.server import codec


CASES = int(os.environ.get("FAGIN_FUZZ_EXAMPLES", "100"))
HOSTILE_INTS = (-2**31, -129, -2, -1, 0, 1, 2, 3, 7, 13, 99, 127, 128, 255, 256, 2**31 - 1)


def _positions(game_id, rng, count):
    game = load_game(game_id)
    spec = GAMES[game_id]
    out = []
    while len(out) < count:
        state = game.new_initial_state(rng.randint(spec.min_players, spec.max_players))
        for _ in range(rng.randrange(0, 60)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.getrandbits(63)))
            else:
                state = state.with_seat_to_act(rng.choice(state.pending_seats()))
                state.apply(rng.choice(state.legal_actions()))
        out.append(state)
    return out


def _paths(value, prefix=()):
    """Every place in a description: (path, value)."""
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


def _hostile(value, rng):
    if isinstance(value, bool):
        return rng.choice([not value, None])
    if isinstance(value, int):
        return rng.choice(HOSTILE_INTS + (value + 1, value - 1, None))
    if isinstance(value, float):
        return rng.choice([float("nan"), float("inf"), -1e300, None])
    if isinstance(value, list):
        if value and rng.random() < 0.5:
            return value + value * rng.choice([1, 3, 50])          # repeats, too many
        return rng.choice([[], value[:-1], list(reversed(value))])
    if isinstance(value, dict):
        if value:
            dropped = dict(value)
            dropped.pop(rng.choice(list(value)))
            return dropped
        return value
    return None


def _set(d, path, value):
    target = d
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def _mutated_messages(game_id, seed, count):
    rng = random.Random(seed)
    game = load_game(game_id)
    made = []
    for state in _positions(game_id, rng, count):
        # A full description or a seat's view (views have fields of their own).
        d = state.describe() if rng.random() < 0.5 else state.view(rng.randrange(state.num_players))
        places = [p for p, _ in _paths(d) if p]
        for _ in range(20):                      # a mutation the proto can carry
            bad = copy.deepcopy(d)
            path = rng.choice(places)
            value = dict(_paths(d))[path]
            _set(bad, path, _hostile(value, rng))
            try:
                made.append((codec.encode_description(game, bad), state.num_players))
                break
            except (TypeError, ValueError, codec.BadRequest):
                continue
    return made


@pytest.mark.parametrize("game_id", list(GAMES))
def test_hostile_positions_get_an_answer_or_invalid_argument(client, game_id):
    rng = random.Random(game_id)
    for message, players in _mutated_messages(game_id, game_id, CASES):
        seat = rng.randrange(-1, players + 1)
        calls = (lambda: client.legal_actions(message), lambda: client.view(message, seat),
                 lambda: client.recommend(message, seat, iterations=20, seed=1),
                 lambda: client.apply(message, rng.randrange(-1, load_game(game_id).num_distinct_actions + 1),
                                      seed=3))
        for call in calls:
            try:
                call()
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.INVALID_ARGUMENT, \
                    f"{game_id}: {e.code().name}: {e.details()}\n{message}"
                assert e.details().split(":")[0].split(".")[0] in ("state", "seat", "action_id", "search"), \
                    f"{game_id}: the error names no field: {e.details()}"


def test_the_mutator_reaches_every_game():
    for game_id in GAMES:
        assert _mutated_messages(game_id, 1, 3), game_id
